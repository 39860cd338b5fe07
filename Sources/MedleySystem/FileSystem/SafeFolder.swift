#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Why a file operation under an export root failed or was refused.
public struct FileSystemFailure: ClassifiedError, CustomStringConvertible {
    public enum Kind: Equatable {
        /// A symbolic link where Medley needs a real folder or file: never followed.
        case link
        /// Something that is not a folder where a folder is needed.
        case notFolder
        /// Something that is not a regular file of its own (a folder, a device, a file with other
        /// hard links) where Medley keeps a file.
        case notFile
        /// The system refused, with this errno.
        case system(Int32)
    }

    /// The path concerned, as the pipeline spells the export root.
    public let path: String
    public let kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .link: return "\(path) is a symbolic link"
        case .notFolder: return "\(path) is not a folder"
        case .notFile: return "\(path) is not a regular file of its own"
        case .system(let code): return "\(path): \(String(cString: strerror(code)))"
        }
    }

    /// The system's words alone ("No space left on device").
    public var reason: String {
        switch kind {
        case .link: return "it is a symbolic link"
        case .notFolder: return "it is not a folder"
        case .notFile: return "it is not a regular file of its own"
        case .system(let code): return String(cString: strerror(code))
        }
    }

    /// The errno when the system refused.
    public var errorCode: Int32? {
        if case .system(let code) = kind { return code }
        return nil
    }

    public var systemErrno: Int32? { errorCode }

    /// A link, a non-folder or a shared file is Medley's refusal, not the system's: no class.
    public var failureClass: FailureClass? { errorCode.flatMap { FailureClass(errno: $0) } }
}

/// A folder held open by its descriptor. Everything below it is reached with the `*at()` calls,
/// one component at a time, each opened with `O_NOFOLLOW`: a symbolic link planted anywhere under
/// the folder is refused, never followed, so no write, rename or delete made through a
/// `SafeFolder` can land outside it. Renames move entries between two held folders, and removes
/// unlink the entry itself (a link, never its target).
public final class SafeFolder: @unchecked Sendable {
    // @unchecked: immutable after init; the descriptor is only used with thread-safe system calls.
    public let descriptor: Int32
    /// The folder as the pipeline spells it (for messages).
    public let path: String
    /// The folder without symbolic links, for libraries that take a path (encoders, SQLite).
    public let realPath: String

    private init(descriptor: Int32, path: String, realPath: String) {
        self.descriptor = descriptor
        self.path = path
        self.realPath = realPath
    }

    deinit { close(descriptor) }

    /// Opens a folder the pipeline names (an export root), creating it and its parents when
    /// `creating`. Links in this path itself are the pipeline's choice and are followed; links
    /// below it are not.
    public static func open(_ path: String, creating: Bool) throws -> SafeFolder {
        if creating {
            var prefix = ""
            for component in path.split(separator: "/") {
                prefix += "/" + component
                if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                    throw FileSystemFailure(path: prefix, kind: .system(errno))
                }
            }
        }
        let descriptor = openPath(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw FileSystemFailure(path: path, kind: code == ENOTDIR ? .notFolder : .system(code))
        }
        let real = SafeFolder.realPath(of: descriptor) ?? FileSystem.resolvedPath(path) ?? path
        return SafeFolder(descriptor: descriptor, path: path, realPath: real)
    }

    /// The folder `name` inside this one, created first when `creating`; refused when it is a link.
    public func folder(_ name: String, creating: Bool) throws -> SafeFolder {
        if creating, mkdirat(descriptor, name, 0o755) != 0, errno != EEXIST {
            throw FileSystemFailure(path: child(name), kind: .system(errno))
        }
        let opened = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            switch kind(of: name) {
            case S_IFLNK?: throw FileSystemFailure(path: child(name), kind: .link)
            case let mode? where mode != S_IFDIR: throw FileSystemFailure(path: child(name), kind: .notFolder)
            default: throw FileSystemFailure(path: child(name), kind: .system(code))
            }
        }
        return SafeFolder(descriptor: opened, path: child(name), realPath: realPath + "/" + name)
    }

    /// The folder at `components` below this one (each refused when it is a link).
    public func folder(at components: [String], creating: Bool) throws -> SafeFolder {
        var current = self
        for component in components {
            current = try current.folder(component, creating: creating)
        }
        return current
    }

    /// The type bits (`S_IFREG`, `S_IFDIR`, `S_IFLNK` …) of the entry `name`, not following a
    /// link; nil when there is no such entry.
    public func kind(of name: String) -> mode_t? {
        rawStatus(of: name).map { $0.st_mode & S_IFMT }
    }

    /// `fstatat` of the entry itself (a link is described, not followed); nil when absent.
    public func status(of name: String) -> FileSystem.Status? {
        rawStatus(of: name).map(FileSystem.Status.init)
    }

    private func rawStatus(of name: String) -> stat? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info
    }

    /// Opens (and with `O_CREAT` in `flags`, creates) the regular file `name`, never through a link.
    public func openFile(_ name: String, flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        let opened = openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        guard opened >= 0 else {
            let code = errno
            if code == ELOOP || kind(of: name) == S_IFLNK { throw FileSystemFailure(path: child(name), kind: .link) }
            throw FileSystemFailure(path: child(name), kind: .system(code))
        }
        return opened
    }

    /// Moves the entry `name` to `newName` in `folder` (which may be this one), replacing what is
    /// there (a link there is replaced, its target untouched).
    public func move(_ name: String, to folder: SafeFolder, as newName: String) throws {
        guard renameat(descriptor, name, folder.descriptor, newName) == 0 else {
            throw FileSystemFailure(path: folder.child(newName), kind: .system(errno))
        }
    }

    /// Removes the entry `name` (a link itself, never what it points to). False when it could not.
    @discardableResult
    public func remove(_ name: String) -> Bool {
        unlinkat(descriptor, name, 0) == 0
    }

    /// Removes the empty folder `name`. False when it is not empty, absent or cannot be removed.
    @discardableResult
    public func removeFolder(_ name: String) -> Bool {
        unlinkat(descriptor, name, AT_REMOVEDIR) == 0
    }

    /// The names of the folder's entries (read through the descriptor, so the folder listed is
    /// the one held open, whatever has been renamed since).
    public func names() -> [String] {
        let byDescriptor = "/proc/self/fd/\(descriptor)"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: byDescriptor) { return names }
        return (try? FileManager.default.contentsOfDirectory(atPath: realPath)) ?? []
    }

    /// The path of an entry, for messages.
    public func child(_ name: String) -> String { path + "/" + name }

    /// The path the kernel knows for an open folder (Linux: `/proc/self/fd/N`).
    private static func realPath(of descriptor: Int32) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
              target.hasPrefix("/"), !target.hasSuffix(" (deleted)") else { return nil }
        return target
    }
}

/// Whole writes and syncs on a descriptor, with the errno when they fail (FileHandle's `write(_:)`
/// stops the process on a full disk; these report it).
public enum Descriptor {
    /// Writes every byte; the errno of the first failure, or nil.
    public static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        var rest = bytes
        while !rest.isEmpty {
            let written = writeBytes(descriptor, rest)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            rest.removeFirst(written)
        }
        return nil
    }

    /// `fsync`; the errno on failure, or nil.
    public static func sync(_ descriptor: Int32) -> Int32? {
        fsync(descriptor) == 0 ? nil : errno
    }

    /// `flock`: takes the lock on the open file, shared or exclusive. Without `wait`, fails at once
    /// when another holds it (EWOULDBLOCK); with it, blocks, resumed after a signal. Returns nil
    /// when taken, else the errno. (Held between processes, containers and PID namespaces of one
    /// host; on NFS Linux emulates it with the server's byte-range locks.)
    public static func lock(_ descriptor: Int32, exclusive: Bool, wait: Bool) -> Int32? {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB)
        while flock(descriptor, operation) != 0 {
            let code = errno
            if wait, code == EINTR { continue }
            return code
        }
        return nil
    }

    /// Releases this open file's `flock`.
    public static func unlock(_ descriptor: Int32) {
        flock(descriptor, LOCK_UN)
    }

    /// Whether the lock could be taken now without waiting (it is then released again at once).
    public static func isUnlocked(_ descriptor: Int32, exclusive: Bool) -> Bool {
        guard lock(descriptor, exclusive: exclusive, wait: false) == nil else { return false }
        unlock(descriptor)
        return true
    }

    /// The open file's status (`fstat`), nil when it cannot be read.
    public static func status(_ descriptor: Int32) -> FileSystem.Status? {
        try? FileSystem.status(ofDescriptor: descriptor).get()
    }

    /// Replaces the whole content with `bytes` (a lock file's holder line); the errno of a failure, or nil.
    public static func replaceContent(_ descriptor: Int32, with bytes: [UInt8]) -> Int32? {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return errno }
        return write(descriptor, bytes)
    }

    /// Closes a descriptor this process opened.
    public static func close(_ descriptor: Int32) {
        FileSystem.close(descriptor)
    }

    /// The whole content from the start (small files: lock files).
    public static func readAll(_ descriptor: Int32) -> String {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { return "" }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data = (try? handle.readToEnd()) ?? nil
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

// The C calls under the names SafeFolder and Descriptor use for their own methods.
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func writeBytes(_ descriptor: Int32, _ bytes: [UInt8]) -> Int { write(descriptor, bytes, bytes.count) }
