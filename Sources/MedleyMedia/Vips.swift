import CVipsShim
import Foundation
import MedleyKernels

/// An image failed to load, convert or save; `reason` is libvips' own words.
public struct MediaError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

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
            throw MediaError("libvips could not start: \(takeError())")
        }
        started = true
    }

    /// Sets libvips' own worker pool per image (by default one thread per core).
    public static func setThreadsPerImage(_ threads: Int) throws {
        try start()
        medley_vips_set_concurrency(Int32(threads))
    }

    /// libvips' pending error text (and clears it).
    static func takeError() -> String {
        guard let text = medley_vips_take_error() else { return "out of memory (even for libvips' message)" }
        defer { free(text) }
        let message = String(cString: text)
        return message.isEmpty ? "unknown libvips error" : Self.tidy(message)
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

/// Output image formats.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, tiff, heif, gif

    /// The file extension written for this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }

    /// Whether `quality` means anything to the encoder.
    public var isLossy: Bool { self == .jpeg || self == .webp || self == .heif }

    var saverName: String { rawValue == "tiff" ? "tiffsave" : rawValue + "save" }

    var code: Int32 {
        switch self {
        case .jpeg: return Int32(MEDLEY_SAVE_JPEG)
        case .png: return Int32(MEDLEY_SAVE_PNG)
        case .webp: return Int32(MEDLEY_SAVE_WEBP)
        case .tiff: return Int32(MEDLEY_SAVE_TIFF)
        case .heif: return Int32(MEDLEY_SAVE_HEIF)
        case .gif: return Int32(MEDLEY_SAVE_GIF)
        }
    }

    /// The format a file extension names (jpg, jpeg, tif, …).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "tif", "tiff": self = .tiff
        case "heic", "heif", "avif": self = .heif
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The output format for a libvips loader name ("jpegload" → jpeg), used by `format: same`.
    public init?(loader: String) {
        let base = loader.replacingOccurrences(of: "load", with: "")
            .replacingOccurrences(of: "_source", with: "").replacingOccurrences(of: "_buffer", with: "")
        switch base {
        case "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "tiff": self = .tiff
        case "heif": self = .heif
        case "gif": self = .gif
        default: return nil
        }
    }
}
