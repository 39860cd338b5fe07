import CVipsShim
import Foundation
import MedleyKernels

// Every adapter's error, `MediaError`, and the safe file-system adapter live in MedleySystem, below
// this module; re-exported (as swift-nio's NIO re-exports NIOCore) so users of MedleyMedia see them as before.
@_exported import MedleySystem

/// libvips, started once per process.
public enum Vips {
    private static let startLock = NSLock()
    nonisolated(unsafe) private static var started = false

    /// Starts libvips (idempotent; every entry point here calls it).
    public static func start() throws {
        startLock.lock()
        defer { startLock.unlock() }
        guard !started else { return }
        guard medley_vips_start("medley") == 0 else {
            throw MediaError(.libvips, "start", "libvips could not start: \(takeError())")
        }
        started = true
    }

    /// Sets libvips' own worker pool per image (by default one thread per core). libvips reads it
    /// whenever a sink (a save, a reduction) starts, for that sink's pool.
    public static func setThreadsPerImage(_ threads: Int) throws {
        try start()
        medley_vips_set_concurrency(Int32(clamping: max(1, threads)))
    }

    /// Whether libvips' vector (SIMD) paths are on: libvips' default, off when `VIPS_NOVECTOR` is set.
    public static var vectorPathsEnabled: Bool {
        guard (try? start()) != nil else { return false }
        return medley_vips_vector_enabled() != 0
    }

    /// How many liborc compiles and frees libvips has made through Medley's lock (CVipsShim/medley_orc.c,
    /// which keeps liborc before 0.4.34 from corrupting its code allocator across threads).
    public static var serialisedOrcCalls: Int { medley_orc_serialised_calls() }

    /// The workers libvips gives the pool of each sink that starts now.
    public static var threadsPerImage: Int {
        guard (try? start()) != nil else { return 1 }
        return Int(medley_vips_concurrency())
    }

    /// Runs libvips work so that a failure's text is its own. libvips 8.14 has one error buffer
    /// for the process, written from its worker threads, so text taken while other items run may
    /// be theirs. Many `attributed` bodies run at once; when one fails with a `MediaError`, it is
    /// run again alone — after the others' libvips work in flight has finished, on an empty
    /// buffer — and that run's outcome is the item's. Only failures are serialised.
    /// `body` must be safe to repeat (it writes only its own temporary file), and must not nest;
    /// its argument is true for the run alone, which must open its files afresh (a libvips image
    /// whose load failed fails again without saying why).
    public static func attributed<T>(_ body: (_ again: Bool) throws -> T) throws -> T {
        medley_vips_shared_begin()
        let first: Result<T, Error>
        do { first = .success(try body(false)) } catch { first = .failure(error) }
        medley_vips_shared_end()
        guard case .failure(let error) = first, error is MediaError else { return try first.get() }
        medley_vips_exclusive_begin()
        defer { medley_vips_exclusive_end() }
        return try body(true)
    }

    /// Runs `body` with libvips' and GLib's log messages (`g_warning`) collected for it — also
    /// from libvips' worker threads that run its images' kernels — instead of written to stderr.
    /// The messages come back with `body`'s result, or are added to `messages` when it throws.
    public static func collectingMessages<T>(into messages: inout LibraryMessages, _ body: () throws -> T) throws -> T {
        try start()
        guard let sink = medley_log_begin() else { return try body() }
        let result: Result<T, Error>
        do { result = .success(try body()) } catch { result = .failure(error) }
        let collected = MessageSink()
        withExtendedLifetime(collected) {
            medley_log_end(sink, { context, message, count in
                guard let context, let message else { return }
                Unmanaged<MessageSink>.fromOpaque(context).takeUnretainedValue().entries.append((String(cString: message), Int(count)))
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        for (message, count) in collected.entries { messages.add(message, count: count) }
        return try result.get()
    }

    /// Runs libvips work as one item's: a failure's text is its own (`attributed`: repeated alone after a
    /// failure, `again` true then) and libvips' and GLib's log messages are collected for it
    /// (`collectingMessages`) — those of the run whose outcome is the item's, added to `messages` whether
    /// `body` returns or throws.
    public static func run<T>(collectingInto messages: inout LibraryMessages, _ body: (_ again: Bool) throws -> T) throws -> T {
        var collected = LibraryMessages()
        defer { messages.merge(collected) }
        return try attributed { again in
            collected = LibraryMessages()
            return try collectingMessages(into: &collected) { try body(again) }
        }
    }

    /// libvips' pending error text (and clears it).
    static func takeError() -> String {
        guard let text = medley_vips_take_error() else { return "out of memory (even for libvips' message)" }
        defer { free(text) }
        let message = String(cString: text)
        return message.isEmpty ? "unknown libvips error" : Self.tidy(message)
    }

    /// A saver's failure. The cause is the errno when the calling thread has one (it cleared errno
    /// before the save). Often it has none, or one left by an unrelated call, and the words are the only record: libvips writes an image
    /// from its sink's worker and write-behind threads, whose errno the caller cannot read, and
    /// hands a failed write(2) on as text only (`vips_error_system`, the system's strerror words),
    /// with no code in its API. So this one place reads the system's words for a full disk or
    /// quota back into ENOSPC / EDQUOT; nothing past the adapter decides from text.
    static func saveFailure(path: String, errno captured: Int32) -> MediaError {
        let message = takeError()
        let full = [ENOSPC, EDQUOT]
        var cause = MediaError.Cause.unspecified
        if full.contains(captured) {
            cause = .system(errno: captured)
        } else if let code = full.first(where: { message.contains(String(cString: strerror($0))) }) {
            cause = .system(errno: code)
        } else if captured != 0 {
            cause = .system(errno: captured)
        }
        return MediaError(.libvips, "save", message, cause: cause, path: path)
    }

    /// libvips prefixes lines with the operation name ("VipsJpeg: …"); keep the words, one line.
    static func tidy(_ message: String) -> String {
        message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// The libvips loader that recognises the file's content, e.g. "jpegload"; nil if none.
    public static func loader(forFileAt path: String) -> String? {
        guard (try? start()) != nil, let name = medley_vips_find_loader(path) else { return nil }
        return String(cString: name)
    }

    /// Whether this libvips build can write a format (HEIF support depends on the build).
    public static func canSave(_ format: ImageFormat) -> Bool {
        guard (try? start()) != nil else { return false }
        return medley_vips_has_operation(format.saverName) != 0
    }
}

/// Receives a collection's messages from C.
private final class MessageSink { var entries: [(String, Int)] = [] }

/// Log messages of libvips and GLib for one item, each once with how often it came.
public struct LibraryMessages: Sendable {
    private var order: [String] = []
    private var counts: [String: Int] = [:]

    public init() {}

    /// Adds another collection's messages and counts.
    public mutating func merge(_ other: LibraryMessages) {
        for message in other.order { add(message, count: other.counts[message] ?? 1) }
    }

    /// A message from another library read for the same item (exiv2's, through the metadata adapter).
    public mutating func note(_ message: String) { add(message, count: 1) }

    mutating func add(_ message: String, count: Int) {
        if counts[message] == nil { order.append(message) }
        counts[message, default: 0] += count
    }

    /// One line per message: "VIPS: not enough data (1,212 times)".
    public var lines: [String] {
        order.map { message in
            let count = counts[message] ?? 1
            return count == 1 ? message : "\(message) (\(Self.grouped(count)) times)"
        }
    }

    /// 1212 → "1,212".
    static func grouped(_ value: Int) -> String {
        var digits = String(value), groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return ([digits] + groups).joined(separator: ",")
    }
}

/// Output image formats.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// `heif` is HEVC-coded HEIF (`.heic`, as iPhones write it); `avif` is libvips' heifsave with AV1.
    case jpeg, png, webp, tiff, heif, gif, avif, jxl

    /// The file extension written for this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        case .heif: return "heic"
        default: return rawValue
        }
    }

    /// Metadata an image may carry.
    public enum Metadata: String, CaseIterable, Sendable {
        case exif = "EXIF", xmp = "XMP", iptc = "IPTC", icc = "ICC profile"

        /// libvips' field for it.
        var field: String {
            switch self {
            case .exif: return "exif-data"
            case .xmp: return "xmp-data"
            case .iptc: return "iptc-data"
            case .icc: return "icc-profile-data"
            }
        }
    }

    /// What libvips 8.14's saver for this format writes (checked with exiftool): TIFF gets no
    /// EXIF block, only JPEG gets IPTC, GIF gets nothing; jxlsave writes a bare codestream, which
    /// holds the ICC profile (libvips reads it back) but no EXIF or XMP box.
    public var carries: Set<Metadata> {
        switch self {
        case .jpeg: return [.exif, .xmp, .iptc, .icc]
        case .png, .webp, .heif, .avif: return [.exif, .xmp, .icc]
        case .tiff: return [.xmp, .icc]
        case .jxl: return [.icc]
        case .gif: return []
        }
    }

    /// Whether `quality` means anything to the encoder.
    public var isLossy: Bool { [.jpeg, .webp, .heif, .avif, .jxl].contains(self) }

    /// Whether the format has an alpha channel (JPEG has none: transparent parts are flattened).
    public var holdsAlpha: Bool { self != .jpeg }

    /// The most bits a sample the saver writes: 16 for PNG, TIFF and JPEG XL, 12 for HEIF/AVIF, else 8.
    public var maximumBitDepth: Int {
        switch self {
        case .png, .tiff, .jxl: return 16
        case .heif, .avif: return 12
        case .jpeg, .webp, .gif: return 8
        }
    }

    var saverName: String {
        switch self {
        case .tiff: return "tiffsave"
        case .avif: return "heifsave"
        default: return rawValue + "save"
        }
    }

    var code: Int32 {
        switch self {
        case .jpeg: return Int32(MEDLEY_SAVE_JPEG)
        case .png: return Int32(MEDLEY_SAVE_PNG)
        case .webp: return Int32(MEDLEY_SAVE_WEBP)
        case .tiff: return Int32(MEDLEY_SAVE_TIFF)
        case .heif: return Int32(MEDLEY_SAVE_HEIF)
        case .gif: return Int32(MEDLEY_SAVE_GIF)
        case .avif: return Int32(MEDLEY_SAVE_AVIF)
        case .jxl: return Int32(MEDLEY_SAVE_JXL)
        }
    }

    /// The format a file extension names (jpg, jpeg, tif, …).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "tif", "tiff": self = .tiff
        case "heic", "heif": self = .heif
        case "avif": self = .avif
        case "jxl": self = .jxl
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The output format for a libvips loader name ("jpegload" → jpeg), used by `format: same`;
    /// `heifCompression` (libvips' `heif-compression` field, "av1" or "hevc") tells AVIF from HEIC.
    public init?(loader: String, heifCompression: String?) {
        self.init(loader: loader)
        if self == .heif && heifCompression == "av1" { self = .avif }
    }

    /// The output format for a libvips loader name ("jpegload" → jpeg).
    public init?(loader: String) {
        let base = loader.replacingOccurrences(of: "load", with: "")
            .replacingOccurrences(of: "_source", with: "").replacingOccurrences(of: "_buffer", with: "")
        switch base {
        case "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "tiff": self = .tiff
        case "heif": self = .heif
        case "jxl": self = .jxl
        case "gif": self = .gif
        default: return nil
        }
    }
}
