import MedleyKernels
import CFFmpegShim
import Foundation

/// Something audio frames are read from: libsndfile's reader or FFmpeg's.
public protocol AudioSource: AnyObject {
    var info: AudioStreamInfo { get }
    /// Up to `frames` interleaved float frames; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int
    /// Back to the first frame.
    func rewind() throws
    /// Moves on by up to `frames` frames without handing them out; returns how many it passed.
    func skip(frames: Int) throws -> Int
    /// Damaged frames the decoder skipped so far (it resyncs on the next one).
    var damagedFrames: Int { get }
}

extension AudioSource {
    public var damagedFrames: Int { 0 }

    /// Moves on by up to `frames` frames without handing them out; returns how many it passed (fewer at
    /// the end). Decodes and drops them, unless the source can seek exactly.
    public func skip(frames: Int) throws -> Int { try decodeAndDrop(frames: frames) }

    /// Decodes up to `frames` frames and drops them; returns how many there were.
    public func decodeAndDrop(frames: Int) throws -> Int {
        let block = 4096
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: block * max(info.channels, 1))
        defer { buffer.deallocate() }
        var passed = 0
        while passed < frames {
            let read = try read(into: buffer, frames: min(block, frames - passed))
            passed += read
            if read == 0 { break }
        }
        return passed
    }
}

extension AudioSource {
    /// Reads the whole stream from where it is and meters it (peak and sum of squares per channel).
    public func meterToEnd() throws -> Meter {
        let channels = info.channels, frames = 4096
        var meter = Meter(channels: channels)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
        defer { buffer.deallocate() }
        while true {
            let read = try read(into: buffer, frames: frames)
            meter.add(buffer, frames: read)
            if read < frames { return meter }
        }
    }
}

/// Something audio frames are written to: libsndfile's writer or FFmpeg's.
public protocol AudioSink: AnyObject {
    func write(_ buffer: UnsafePointer<Float>, frames: Int) throws
    func close() throws
}

extension AudioReader: AudioSource {}
extension AudioWriter: AudioSink {}

/// Calls a shim function that reports errors as text into a buffer, and throws that text with
/// FFmpeg's code behind it: `AVERROR(errno)` as the errno (ENOSPC while encoding: a full disk).
func checked<T>(_ operation: String = "decode", path: String? = nil,
                _ body: (UnsafeMutablePointer<CChar>, Int) -> T?) throws -> T {
    var buffer = [CChar](repeating: 0, count: 512)
    _ = medley_ffmpeg_take_error_code()
    let result = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    guard let result else {
        throw MediaError(.ffmpeg, operation, String(cString: buffer), cause: ffmpegCause(medley_ffmpeg_take_error_code()), path: path)
    }
    return result
}

/// FFmpeg's code as a cause: `AVERROR(e)` is −e (an errno), the rest are FFmpeg's own tags.
func ffmpegCause(_ code: Int32) -> MediaError.Cause {
    if code == 0 { return .unspecified }
    if code < 0, code > -4096 { return .system(errno: -code) }
    return .library(code: code)
}

/// The first audio stream of any file FFmpeg reads (M4A with AAC or Apple Lossless, MP4, MP3,
/// FLAC, …). Damaged frames are skipped and counted, as ffmpeg does.
public final class FFmpegAudioReader: AudioSource {
    private var handle: OpaquePointer
    private let path: String
    public private(set) var info: AudioStreamInfo

    public init(path: String) throws {
        self.path = path
        handle = try checked(path: path) { medley_decoder_open(path, $0, $1) }
        var rate: Int32 = 0, channels: Int32 = 0, frames: Int64 = 0
        var codec: UnsafePointer<CChar>?
        medley_decoder_info(handle, &rate, &channels, &frames, &codec)
        info = AudioStreamInfo(sampleRate: Int(rate), channels: Int(channels), frames: Int(frames),
                               container: String(cString: medley_decoder_container(handle)),
                               encoding: codec.map { String(cString: $0) } ?? "?")
        // An MP3 without a Xing/Info header: libavformat estimates the length from the bit rate;
        // the frame headers say it exactly.
        if info.container == "mp3", let counted = MPEGFrameScan.count(ofFileAt: path), counted.sampleRate == info.sampleRate {
            info.frames = counted.frames
        }
        var bits: Int32 = 0, isFloat: Int32 = 0
        medley_decoder_depth(handle, &bits, &isFloat)
        info.bitDepth = bits > 0 ? Int(bits) : nil
        info.isFloat = isFloat != 0
        // Every property is set: throwing now runs deinit, which frees the decoder.
        guard info.sampleRate > 0, info.channels > 0, info.frames >= 0 else {
            throw MediaError(.ffmpeg, "decode", "cannot decode: the stream gives \(info.channels) channels at \(info.sampleRate) Hz", cause: .unsupported)
        }
    }

    deinit { medley_decoder_free(handle) }

    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        let count = try checked(path: path) { error, size -> Int32? in
            let n = medley_decoder_read(handle, buffer, Int32(frames), error, size)
            return n < 0 ? nil : n
        }
        return Int(count)
    }

    public var damagedFrames: Int { Int(medley_decoder_damaged(handle)) }

    /// Whether `info.frames` is the stream's own count rather than an estimate from the bit rate.
    public var countIsStated: Bool { medley_decoder_count_is_stated(handle) != 0 }

    public func rewind() throws {
        let fresh = try checked(path: path) { medley_decoder_open(path, $0, $1) }
        medley_decoder_free(handle)
        handle = fresh
    }
}

/// The kinds of stream a container holds, as libavformat sees them: for files whose first bytes
/// cannot tell an audio-only MP4, MOV, Matroska or Ogg from a movie.
public enum StreamProbe {
    /// Whether the file holds a video stream that is not cover art, and an audio stream; nil when
    /// libavformat cannot read it.
    public static func streams(ofFileAt path: String) -> (video: Bool, audio: Bool)? {
        var video: Int32 = 0, audio: Int32 = 0
        guard medley_probe_streams(path, &video, &audio) == 0 else { return nil }
        return (video != 0, audio != 0)
    }
}

/// What FFmpeg writes: a muxer and an encoder by their FFmpeg names.
public struct FFmpegOutputFormat: Sendable, Equatable {
    /// "ipod" (.m4a), "caf", "ogg", "mp3".
    public var muxer: String
    /// "aac", "alac", "adpcm_ima_qt", "libopus", "libmp3lame".
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    /// Bits per second (nil: the encoder's default).
    public var bitRate: Int?
    /// Lossless bit depth (16 or 24).
    public var bitsPerSample: Int?

    public init(muxer: String, codec: String, sampleRate: Int, channels: Int, bitRate: Int? = nil, bitsPerSample: Int? = nil) {
        self.muxer = muxer
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.bitsPerSample = bitsPerSample
    }
}

/// Encodes float frames with FFmpeg's encoders into a new file.
public final class FFmpegAudioWriter: AudioSink {
    private var handle: OpaquePointer?

    /// `encoderThread`: encode on a thread of the writer's own, so that the caller's decoding and
    /// resampling overlap the encoder (a lone item, or the tail of a batch, then uses two cores).
    /// The packets are the same either way; without a thread (or if none can be started) the
    /// encoder runs inside `write`.
    public init(path: String, format: FFmpegOutputFormat, encoderThread: Bool = true) throws {
        let handle = try checked("encode", path: path) {
            medley_encoder_open(path, format.muxer, format.codec, Int32(format.sampleRate), Int32(format.channels),
                                Int64(format.bitRate ?? 0), Int32(format.bitsPerSample ?? 0), $0, $1)
        }
        if encoderThread { _ = medley_encoder_start_thread(handle) }
        self.handle = handle
    }

    deinit { if let handle { medley_encoder_free(handle) } }

    public func write(_ buffer: UnsafePointer<Float>, frames: Int) throws {
        guard let handle else { throw MediaError(.ffmpeg, "encode", "the file is already closed") }
        _ = try checked("encode") { error, size -> Bool? in
            medley_encoder_write(handle, buffer, Int32(frames), error, size) == 0 ? true : nil
        }
    }

    /// Flushes the encoder (its padding and delay are recorded by the muxer) and closes the file.
    public func close() throws {
        guard let handle else { return }
        defer {
            medley_encoder_free(handle)
            self.handle = nil
        }
        _ = try checked("encode") { error, size -> Bool? in medley_encoder_finish(handle, error, size) == 0 ? true : nil }
    }
}
