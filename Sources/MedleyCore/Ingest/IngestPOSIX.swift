#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Thin, throwing-free wrappers over the few POSIX calls ingest needs. FileManager would do, but it stats every
/// entry twice and hides d_type; on a 100,000-file library the difference is seconds.
enum IngestPOSIX {
    /// Identifies a file or folder regardless of the path used to reach it (symlinks, hard links, two roots).
    struct FileIdentity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// The parts of `struct stat` ingest cares about.
    struct Status: Sendable {
        enum Kind: Sendable { case file, directory, other }
        let kind: Kind
        let identity: FileIdentity
        let size: Int64
        let modified: Date

        init(_ raw: stat) {
            switch raw.st_mode & S_IFMT {
            case S_IFREG: kind = .file
            case S_IFDIR: kind = .directory
            default: kind = .other
            }
            identity = FileIdentity(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
            size = Int64(raw.st_size)
            #if canImport(Darwin)
            let time = raw.st_mtimespec
            #else
            let time = raw.st_mtim
            #endif
            modified = Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
        }
    }

    /// The next entry of an open folder listing: its name's bytes (without the terminating NUL)
    /// and its `d_type`; nil at the end. The one place a `dirent` is read.
    static func nextEntry(of directory: OpaquePointer) -> Result<(name: [UInt8], type: UInt8)?, Errno> {
        errno = 0
        guard let record = readdir(directory) else {
            return errno == 0 ? .success(nil) : .failure(Errno(code: errno))
        }
        let type = record.pointee.d_type
        let name = withUnsafeBytes(of: &record.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
        return .success((name, type))
    }

    /// The current errno as readable text ("Permission denied").
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// `stat` (following symlinks), or the errno on failure.
    static func status(of path: String) -> Result<Status, Errno> {
        var raw = stat()
        guard stat(path, &raw) == 0 else { return .failure(Errno(code: errno)) }
        return .success(Status(raw))
    }

    /// Whether anything (even a dangling symlink) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var raw = stat()
        return lstat(path, &raw) == 0
    }

    /// The canonical absolute path (symlinks, "." and ".." resolved), or nil if it cannot be resolved.
    static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// An errno value, kept as a type so results can carry it.
    struct Errno: Error, Equatable {
        let code: Int32
        var text: String { IngestPOSIX.errorText(code) }
        var meansMissing: Bool { code == ENOENT || code == ENOTDIR }
    }

    /// `path` joined with a child name, without doubling the slash after "/".
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Whether `path` is `directory` itself or lies below it (compared by whole components, so "/a/bc" is not
    /// below "/a/b"). Both must be canonical. Compared by UTF-8 bytes, as the filesystem does: String's `==` and
    /// `hasPrefix` treat "é" and "e" + U+0301 (two names on disk) as equal.
    static func isWithin(_ path: String, directory: String) -> Bool {
        if path.utf8.elementsEqual(directory.utf8) || directory == "/" { return true }
        return path.utf8.starts(with: directory.utf8) && path.utf8.dropFirst(directory.utf8.count).first == UInt8(ascii: "/")
    }

    /// Makes `path` absolute (against the working directory) and tidies it: repeated slashes, "." components and a
    /// trailing slash go. ".." is kept, because resolving it textually would be wrong across symlinks.
    static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let parts = absolute.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// The folder part of a normalized absolute path ("/a/b.jpg" → "/a", "/b.jpg" → "/").
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a normalized absolute path.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
