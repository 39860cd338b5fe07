import CSndfile
import Foundation

/// What an audio file holds, from its header.
public struct AudioStreamInfo: Sendable, Equatable {
    public let sampleRate: Int
    public let channels: Int
    /// Sample frames (one sample per channel); 0 when the container does not say.
    public internal(set) var frames: Int
    /// libsndfile's names, e.g. "WAV (Microsoft)", "Signed 16 bit PCM".
    public let container: String
    public let encoding: String
    /// Bits per sample of a losslessly stored source (PCM, FLAC, ALAC): 8…32, or 32/64 with
    /// `isFloat`; nil for lossy codecs, whose decode has no depth of its own.
    public var bitDepth: Int? = nil
    /// Whether the source stores floating-point samples (which may lie beyond full scale).
    public var isFloat = false

    public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// Streams float frames out of any file libsndfile reads (WAV, AIFF, CAF, FLAC, Ogg Vorbis,
/// Opus, MP3, …), a block at a time, so a ten-hour file never sits in memory.
public final class AudioReader {
    private let handle: OpaquePointer
    public private(set) var info: AudioStreamInfo

    public init(path: String) throws {
        var raw = SF_INFO()
        let handle = try SndfileOpen.open(path, mode: Int32(SFM_READ), &raw, failure: "cannot decode: ")
        self.handle = handle
        info = AudioStreamInfo(sampleRate: Int(raw.samplerate), channels: Int(raw.channels), frames: Int(raw.frames),
                               container: Self.name(of: raw.format & Int32(SF_FORMAT_TYPEMASK), major: true),
                               encoding: Self.name(of: raw.format & Int32(SF_FORMAT_SUBMASK), major: false))
        (info.bitDepth, info.isFloat) = Self.depth(of: raw.format & Int32(SF_FORMAT_SUBMASK))
        guard info.channels > 0, info.sampleRate > 0 else {
            sf_close(handle)
            throw MediaError(.libsndfile, "decode", "cannot decode: the header gives \(info.channels) channels at \(info.sampleRate) Hz", cause: .corruptData)
        }
        if let (promised, present) = Self.shortSampleChunk(handle) {
            sf_close(handle)
            throw MediaError(.libsndfile, "decode", "truncated: the header promises \(promised) bytes of samples, the file holds \(present)", cause: .corruptData)
        }
    }

    /// libsndfile reads a cut WAV or AIFF to the cut without an error, and notes in its log
    /// "data : 88200 (should be 11939)": the sample chunk is shorter than its header says.
    static func shortSampleChunk(_ handle: OpaquePointer) -> (promised: Int, present: Int)? {
        var log = [CChar](repeating: 0, count: 4096)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        for line in String(cString: log).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("data :") || text.hasPrefix("SSND :"),
                  let open = text.range(of: "(should be ") else { continue }
            let promised = Int(text[text.index(text.startIndex, offsetBy: 6)..<open.lowerBound].trimmingCharacters(in: .whitespaces))
            let present = Int(text[open.upperBound...].prefix { $0.isNumber })
            // 0xFFFFFFFF is no promise: a writer that could not seek back (FFmpeg to a pipe) leaves a WAV's data size
            // there, meaning "to the end of the file", which is where libsndfile reads to.
            if let promised, let present, present < promised, promised != 0xFFFF_FFFF { return (promised, present) }
        }
        return nil
    }

    deinit { sf_close(handle) }

    /// Whether libsndfile refused the file for its encoding (Opus or IMA4 ADPCM in CAF), which FFmpeg may decode.
    public static func refusedEncoding(_ error: MediaError) -> Bool {
        error.cause == .library(code: Int32(SF_ERR_UNSUPPORTED_ENCODING))
    }

    /// The stored depth of libsndfile's lossless subformats (µ-law, A-law, ADPCM, Vorbis, Opus
    /// and MPEG are lossy: nil).
    static func depth(of subformat: Int32) -> (Int?, Bool) {
        switch subformat {
        case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): return (8, false)
        case Int32(SF_FORMAT_PCM_16), Int32(SF_FORMAT_ALAC_16): return (16, false)
        case Int32(SF_FORMAT_ALAC_20): return (20, false)
        case Int32(SF_FORMAT_PCM_24), Int32(SF_FORMAT_ALAC_24): return (24, false)
        case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_ALAC_32): return (32, false)
        case Int32(SF_FORMAT_FLOAT): return (32, true)
        case Int32(SF_FORMAT_DOUBLE): return (64, true)
        default: return (nil, false)
        }
    }

    /// Reads up to `frames` interleaved float frames (−1…1); returns how many were read (0 at
    /// the end). A damaged stream throws rather than returning short silently.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
        let error = sf_error(handle)
        if error != 0 { throw MediaError(.libsndfile, "decode", "cannot decode: " + String(cString: sf_error_number(error)), cause: .library(code: error)) }
        return count
    }

    /// Back to the first frame (for a second pass, e.g. after measuring the peak).
    public func rewind() throws {
        guard sf_seek(handle, 0, SEEK_SET) == 0 else { throw MediaError(.libsndfile, "seek", "cannot seek back to the start") }
    }

    /// Moves on by up to `frames` frames: a seek, exact for the formats libsndfile reads; where the seek
    /// cannot go (past a short file's real end, a format that does not seek), decoded and dropped.
    public func skip(frames: Int) throws -> Int {
        let here = sf_seek(handle, 0, SEEK_CUR)
        if here >= 0, frames > 0, sf_seek(handle, sf_count_t(frames), SEEK_CUR) >= 0 { return frames }
        if here >= 0 { _ = sf_seek(handle, here, SEEK_SET) }
        return try decodeAndDrop(frames: frames)
    }

    static func name(of format: Int32, major: Bool) -> String {
        var info = SF_FORMAT_INFO()
        info.format = format
        let command = major ? SFC_GET_FORMAT_INFO : SFC_GET_FORMAT_INFO
        guard sf_command(nil, Int32(command), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
              let name = info.name else { return String(format: "0x%x", format) }
        return String(cString: name)
    }
}

/// What to write: libsndfile's container and encoding plus the stream's shape.
public struct AudioOutputFormat: Sendable, Equatable {
    public enum Container: String, Sendable, CaseIterable { case caf, wav, aiff, flac }
    public enum Encoding: Sendable, Equatable {
        case pcm(bits: Int)
        case float(bits: Int)
        case ulaw, alaw
        case flac(bits: Int)
        case alac(bits: Int)
    }

    public var container: Container
    public var encoding: Encoding
    public var sampleRate: Int
    public var channels: Int
    /// nil: the container's natural order (WAV little, AIFF big, CAF big).
    public var bigEndian: Bool?

    public init(container: Container, encoding: Encoding, sampleRate: Int, channels: Int, bigEndian: Bool? = nil) {
        self.container = container
        self.encoding = encoding
        self.sampleRate = sampleRate
        self.channels = channels
        self.bigEndian = bigEndian
    }

    var libsndfileFormat: Int32 {
        let major: Int32
        switch container {
        case .caf: major = Int32(SF_FORMAT_CAF)
        case .wav: major = Int32(SF_FORMAT_WAV)
        case .aiff: major = Int32(SF_FORMAT_AIFF)
        case .flac: major = Int32(SF_FORMAT_FLAC)
        }
        let sub: Int32
        switch encoding {
        case .pcm(8): sub = Int32(container == .wav ? SF_FORMAT_PCM_U8 : SF_FORMAT_PCM_S8)
        case .flac(8): sub = Int32(SF_FORMAT_PCM_S8)
        case .pcm(24), .flac(24): sub = Int32(SF_FORMAT_PCM_24)
        case .pcm(32): sub = Int32(SF_FORMAT_PCM_32)
        case .pcm, .flac: sub = Int32(SF_FORMAT_PCM_16)
        case .float(64): sub = Int32(SF_FORMAT_DOUBLE)
        case .float: sub = Int32(SF_FORMAT_FLOAT)
        case .ulaw: sub = Int32(SF_FORMAT_ULAW)
        case .alaw: sub = Int32(SF_FORMAT_ALAW)
        case .alac(20): sub = Int32(SF_FORMAT_ALAC_20)
        case .alac(24): sub = Int32(SF_FORMAT_ALAC_24)
        case .alac(32): sub = Int32(SF_FORMAT_ALAC_32)
        case .alac: sub = Int32(SF_FORMAT_ALAC_16)
        }
        let endian: Int32 = bigEndian.map { $0 ? Int32(SF_ENDIAN_BIG) : Int32(SF_ENDIAN_LITTLE) } ?? Int32(SF_ENDIAN_FILE)
        return major | sub | endian
    }

    /// Whether libsndfile can write this combination (e.g. a big-endian WAV cannot exist).
    public var isWritable: Bool {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = libsndfileFormat
        return sf_format_check(&info) != 0
    }
}

/// Writes float frames into a new file. Samples beyond full scale are clipped, not wrapped.
public final class AudioWriter {
    private var handle: OpaquePointer?
    public let format: AudioOutputFormat

    public init(path: String, format: AudioOutputFormat) throws {
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channels)
        info.format = format.libsndfileFormat
        guard sf_format_check(&info) != 0 else {
            throw MediaError(.libsndfile, "encode", "libsndfile cannot write \(format.encoding) in \(format.container) at \(format.sampleRate) Hz, \(format.channels) channels", cause: .unsupported)
        }
        let handle = try SndfileOpen.open(path, mode: Int32(SFM_WRITE), &info, failure: "cannot create \(path): ")
        self.handle = handle
        self.format = format
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
    }

    deinit { if let handle { sf_close(handle) } }

    public func write(_ buffer: UnsafePointer<Float>, frames: Int) throws {
        guard let handle else { throw MediaError(.libsndfile, "write", "the file is already closed") }
        let written = sf_writef_float(handle, buffer, sf_count_t(frames))
        guard written == frames else {
            // errno read before anything else runs: libsndfile reports a failed write(2) as
            // SF_ERR_SYSTEM with strerror's words, and the errno is the cause (ENOSPC: a full disk).
            let code = errno
            throw MediaError(.libsndfile, "write", "cannot write: " + String(cString: sf_strerror(handle)),
                             cause: SndfileOpen.cause(sf_error(handle), errno: code))
        }
    }

    /// Finishes the file (headers, FLAC/ALAC tables). Throws if the disk refused the rest.
    /// Not flushed to disk (no `sf_write_sync`, an fsync): the encoder writes a scratch file that
    /// the tag writer copies into the output's temporary file, which is the one synced before
    /// its rename (`ReplacementFile.commit`); an fsync here cost every item a disk flush for a
    /// file deleted a moment later.
    public func close() throws {
        guard let handle else { return }
        self.handle = nil
        let result = sf_close(handle)
        let code = errno
        guard result == 0 else {
            throw MediaError(.libsndfile, "finish", "cannot finish the file", cause: SndfileOpen.cause(result, errno: code))
        }
    }
}

/// sf_open, one at a time. A failed sf_open leaves its reason only in libsndfile's one global
/// error number, which `sf_strerror(nil)` reads: with items opened in parallel, another open can
/// overwrite it first, and a file would fail with some other file's reason ("No Error.", "File
/// does not exist or is not a regular file"). Holding one lock over the open and the read of its
/// error keeps each reason with its own file.
enum SndfileOpen {
    private static let lock = NSLock()

    /// The handle, or throws `failure` followed by libsndfile's reason for this open.
    static func open(_ path: String, mode: Int32, _ info: inout SF_INFO, failure: String) throws -> OpaquePointer {
        lock.lock()
        defer { lock.unlock() }
        guard let handle = sf_open(path, mode, &info) else {
            let code = errno
            throw MediaError(.libsndfile, "open", failure + String(cString: sf_strerror(nil)), cause: cause(sf_error(nil), errno: code),
                             path: path)
        }
        return handle
    }

    /// libsndfile's error number as a cause: SF_ERR_SYSTEM means a system call failed, and `errno`
    /// (read right after the failed call) says which way.
    static func cause(_ error: Int32, errno code: Int32) -> MediaError.Cause {
        if error == Int32(SF_ERR_SYSTEM), code != 0 { return .system(errno: code) }
        return error == 0 ? .unspecified : .library(code: error)
    }
}
