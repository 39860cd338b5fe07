#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The file system by path: status, existence, resolution and path arithmetic, the folder listing
/// (`FolderListing`) and byte reads of an open file — thin, throwing-free wrappers over the POSIX calls
/// ingest, watch and the run state need (descriptor-relative, no-follow access below a root is `SafeFolder`).
/// FileManager would do, but it stats every entry twice and hides d_type; on a 100,000-file library
/// the difference is seconds.
public enum FileSystem {
    /// Identifies a file or folder regardless of the path used to reach it (symlinks, hard links, two roots).
    public struct FileIdentity: Hashable, Sendable {
        public let device: UInt64
        public let inode: UInt64

        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// The parts of `struct stat` ingest cares about.
    public struct Status: Sendable {
        public enum Kind: Sendable { case file, directory, other }
        public let kind: Kind
        public let identity: FileIdentity
        public let size: Int64
        public let modified: Date
        /// A symbolic link itself (only `linkStatus` describes one; `kind` is then `.other`).
        public let isLink: Bool
        /// How many names the file has (hard links).
        public let linkCount: Int
        /// The modification time exactly as the file system keeps it.
        public let modifiedTime: (seconds: Int64, nanoseconds: Int64)

        public init(_ raw: stat) {
            isLink = raw.st_mode & S_IFMT == S_IFLNK
            linkCount = Int(raw.st_nlink)
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
            modifiedTime = (Int64(time.tv_sec), Int64(time.tv_nsec))
        }
    }

    /// The current errno as readable text ("Permission denied").
    public static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// `stat` (following symlinks), or the errno on failure.
    public static func status(of path: String) -> Result<Status, Errno> {
        var raw = stat()
        guard stat(path, &raw) == 0 else { return .failure(Errno(code: errno)) }
        return .success(Status(raw))
    }

    /// `lstat`: the entry itself (a link is described, not followed), or the errno on failure.
    public static func linkStatus(of path: String) -> Result<Status, Errno> {
        var raw = stat()
        guard lstat(path, &raw) == 0 else { return .failure(Errno(code: errno)) }
        return .success(Status(raw))
    }

    /// Whether `path` itself is a symbolic link.
    public static func isLink(_ path: String) -> Bool {
        (try? linkStatus(of: path).get())?.isLink == true
    }

    /// The status of an open file, or the errno on failure.
    public static func status(ofDescriptor descriptor: Int32) -> Result<Status, Errno> {
        var raw = stat()
        guard fstat(descriptor, &raw) == 0 else { return .failure(Errno(code: errno)) }
        return .success(Status(raw))
    }

    /// Reads up to `count` bytes of an open file from `offset` with `pread` (its own offset is left
    /// alone, so the same open file can be sniffed and decoded); fewer at its end.
    public static func read(_ descriptor: Int32, count: Int, at offset: Int64) -> Result<[UInt8], Errno> {
        guard count > 0 else { return .success([]) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        var failure: Int32?
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let read = pread(descriptor, base + filled, count - filled, off_t(offset) + off_t(filled))
                if read < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if read == 0 { return }
                filled += read
            }
        }
        if let failure { return .failure(Errno(code: failure)) }
        return .success(Array(bytes.prefix(filled)))
    }

    /// Closes a descriptor this process opened.
    public static func close(_ descriptor: Int32) {
        _ = closeDescriptor(descriptor)
    }

    /// Descriptors open now: the entries of `/proc/self/fd`, or, without it, the numbers below `highest` in use.
    public static func openDescriptorCount(askingUpTo highest: Int) -> Int {
        if case .success(let folder) = FolderListing.open("/proc/self/fd", followingLink: true) {
            var count = 0
            while case .success(let entry?) = folder.next() {
                if entry.name.first != UInt8(ascii: ".") { count += 1 }
            }
            return max(0, count - 1)  // the listing's own descriptor
        }
        return (0..<max(0, highest)).filter { fcntl(Int32($0), F_GETFD) != -1 }.count
    }

    /// Whether the file system can name an open file by `/proc/self/fd/N` (Linux with /proc mounted).
    public static let hasProcFileDescriptors: Bool = access("/proc/self/fd", F_OK) == 0

    /// Whether anything (even a dangling symlink) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        var raw = stat()
        return lstat(path, &raw) == 0
    }

    /// The canonical absolute path (symlinks, "." and ".." resolved), or nil if it cannot be resolved.
    public static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` with links resolved in the part that exists; the rest appended as written.
    public static func realPath(_ path: String) -> String {
        var existing = normalized(path)
        var missing: [String] = []
        while existing != "/" {
            if let resolved = resolvedPath(existing) {
                return ([resolved == "/" ? "" : resolved] + missing.reversed()).joined(separator: "/")
            }
            missing.append(lastComponent(of: existing))
            existing = parent(of: existing)
        }
        return "/" + missing.reversed().joined(separator: "/")
    }

    /// An errno value, kept as a type so results can carry it.
    public struct Errno: ClassifiedError, Equatable {
        public let code: Int32
        public init(code: Int32) { self.code = code }
        public var text: String { FileSystem.errorText(code) }
        public var meansMissing: Bool { code == ENOENT || code == ENOTDIR }
        public var systemErrno: Int32? { code }
        public var failureClass: FailureClass? { FailureClass(errno: code) }
    }

    /// `path` joined with a child name, without doubling the slash after "/".
    public static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Whether `path` is `directory` itself or lies below it (compared by whole components, so "/a/bc" is not
    /// below "/a/b"). Both must be canonical. Compared by UTF-8 bytes, as the filesystem does: String's `==` and
    /// `hasPrefix` treat "é" and "e" + U+0301 (two names on disk) as equal.
    public static func isWithin(_ path: String, directory: String) -> Bool {
        if path.utf8.elementsEqual(directory.utf8) || directory == "/" { return true }
        return path.utf8.starts(with: directory.utf8) && path.utf8.dropFirst(directory.utf8.count).first == UInt8(ascii: "/")
    }

    /// Makes `path` absolute (against the working directory) and tidies it: repeated slashes, "." components and a
    /// trailing slash go. ".." is kept, because resolving it textually would be wrong across symlinks.
    public static func normalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let parts = absolute.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }

    /// The folder part of a normalized absolute path ("/a/b.jpg" → "/a", "/b.jpg" → "/").
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a normalized absolute path.
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

// The C call under the name FileSystem uses for its own method.
private func closeDescriptor(_ descriptor: Int32) -> Int32 { close(descriptor) }
