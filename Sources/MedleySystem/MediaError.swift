#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What a failure means to whoever handles it, decided from its cause (an errno, a library's code),
/// never from its words.
public enum FailureClass: Sendable, Equatable {
    /// The disk (or the user's quota) is full: ENOSPC, EDQUOT, SQLITE_FULL.
    case diskFull
    /// The system refused access: EACCES, EPERM, EROFS.
    case permission
    /// No such file or folder: ENOENT.
    case notFound
    /// A library could not decode the content: damaged, truncated, or not the format it claims.
    case corruptData

    /// The class of a system call's errno, or nil when it has none of these meanings.
    public init?(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .diskFull
        case EACCES, EPERM, EROFS: self = .permission
        case ENOENT: self = .notFound
        default: return nil
        }
    }
}

/// An error that knows its cause well enough to be classed: `failureClass` comes from the case
/// (errno, library code), so a message that merely mentions "No space left on device" is not a full disk.
public protocol ClassifiedError: Error {
    /// What the failure means, or nil when none of `FailureClass`'s meanings apply.
    var failureClass: FailureClass? { get }
    /// The system's errno behind the failure, when there is one.
    var systemErrno: Int32? { get }
}

/// The error of every adapter: which library failed, doing what, why (the errno or the library's own
/// code when it gives one), on which path when known — and the words Medley has always printed
/// (`description`, checked by tests and written to manifests).
public struct MediaError: ClassifiedError, Equatable, CustomStringConvertible, Sendable {
    /// The library (or Medley's own code) that failed.
    public enum Library: String, Sendable {
        case libvips, ffmpeg, libsndfile, libsamplerate, libebur128, libqrencode, libraw, xxhash, sqlite, exiv2
        /// A system call (open, read, write, rename …).
        case system
        /// Medley's own Swift code (tag parsers, checks before a library is called).
        case medley
    }

    /// Why it failed, as the library reported it.
    public enum Cause: Equatable, Sendable {
        /// A system call failed with this errno (also FFmpeg's `AVERROR(errno)` and the errno
        /// captured right after a library's failed write).
        case system(errno: Int32)
        /// The library's own result code (SQLite's `SQLITE_*`, libsndfile's `SF_ERR_*`, FFmpeg's
        /// `AVERROR_*` tags, libsamplerate's and libebur128's error numbers).
        case library(code: Int32)
        /// The content cannot be decoded: damaged, truncated, or not the format it claims.
        case corruptData
        /// The request is beyond what the library or Medley supports (a format, a rate, a size).
        case unsupported
        /// The library gave words only.
        case unspecified
    }

    /// The library that failed.
    public var library: Library
    /// What was being done ("load", "save", "decode", "write" …).
    public var operation: String
    /// Why, as the library said it.
    public var cause: Cause
    /// The file concerned, when known.
    public var path: String?
    /// The words Medley prints (the library's own, or Medley's).
    public var message: String

    /// An adapter's failure: `library` doing `operation` said `message`, for `cause`.
    public init(_ library: Library, _ operation: String, _ message: String, cause: Cause = .unspecified, path: String? = nil) {
        self.library = library
        self.operation = operation
        self.message = message
        self.cause = cause
        self.path = path
    }

    /// A system call's failure with its errno, in Medley's words (`message`, which usually end in the
    /// system's), or the system's words alone.
    public static func system(_ operation: String, errno code: Int32, path: String? = nil, _ message: String? = nil) -> MediaError {
        MediaError(.system, operation, message ?? String(cString: strerror(code)), cause: .system(errno: code), path: path)
    }

    /// The words, exactly as Medley has always printed them.
    public var description: String { message }

    /// The words (the name callers used before the cause was kept).
    public var reason: String { message }

    /// The same cause told in other words (a caller adding what it was doing), about `path`.
    public func saying(_ message: String, path: String? = nil) -> MediaError {
        var copy = self
        copy.message = message
        if let path { copy.path = path }
        return copy
    }

    /// The errno inside an error Foundation threw (a `FileHandle` write: a POSIX error, or a Cocoa
    /// error with one underneath, or the Cocoa code for a full disk), or nil.
    public static func systemErrno(in error: Error) -> Int32? {
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return Int32(clamping: bridged.code) }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(clamping: underlying.code)
        }
        if bridged.domain == NSCocoaErrorDomain, bridged.code == CocoaError.fileWriteOutOfSpace.rawValue { return ENOSPC }
        return nil
    }

    /// The same failure with other words (a temporary file's name replaced by the output's).
    public func rewording(_ change: (String) -> String) -> MediaError {
        var copy = self
        copy.message = change(message)
        copy.path = path.map(change)
        return copy
    }

    public var systemErrno: Int32? {
        if case .system(let code) = cause { return code }
        return nil
    }

    public var failureClass: FailureClass? {
        switch cause {
        case .system(let code): return FailureClass(errno: code)
        case .corruptData: return .corruptData
        case .unsupported, .unspecified: return nil
        case .library(let code): return library.failureClass(code: code)
        }
    }
}

extension MediaError.Library {
    /// The class of a library's own result code. The values are the libraries' stable, documented
    /// ABI (their headers are imported by the adapters, not here, which sits below them).
    func failureClass(code: Int32) -> FailureClass? {
        switch self {
        case .sqlite:
            // Primary result codes (the low byte of an extended one), sqlite3.h.
            switch code & 0xff {
            case 13: return .diskFull                  // SQLITE_FULL
            case 3, 8, 23: return .permission          // SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH
            case 11, 26: return .corruptData           // SQLITE_CORRUPT, SQLITE_NOTADB
            default: return nil
            }
        case .ffmpeg:
            // AVERROR(e) is −e; AVERROR_INVALIDDATA is FFERRTAG('I','N','D','A').
            if code < 0, code > -4096 { return FailureClass(errno: -code) }
            return code == -0x4144_4E49 ? .corruptData : nil
        case .libsndfile:
            // SF_ERR_UNRECOGNISED_FORMAT, SF_ERR_MALFORMED_FILE (sndfile.h).
            return code == 1 || code == 3 ? .corruptData : nil
        default:
            return nil
        }
    }
}
