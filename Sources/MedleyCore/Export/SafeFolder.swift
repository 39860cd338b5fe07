#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleySystem

/// Why a file operation under an export root failed or was refused.
struct FileSystemFailure: ClassifiedError, CustomStringConvertible {
    enum Kind: Equatable {
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
    let path: String
    let kind: Kind

    var description: String {
        switch kind {
        case .link: return "\(path) is a symbolic link"
        case .notFolder: return "\(path) is not a folder"
        case .notFile: return "\(path) is not a regular file of its own"
        case .system(let code): return "\(path): \(String(cString: strerror(code)))"
        }
    }

    /// The system's words alone ("No space left on device").
    var reason: String {
        switch kind {
        case .link: return "it is a symbolic link"
        case .notFolder: return "it is not a folder"
        case .notFile: return "it is not a regular file of its own"
        case .system(let code): return String(cString: strerror(code))
        }
    }

    var errorCode: Int32? {
        if case .system(let code) = kind { return code }
        return nil
    }

    var systemErrno: Int32? { errorCode }

    /// A link, a non-folder or a shared file is Medley's refusal, not the system's: no class.
    var failureClass: FailureClass? { errorCode.flatMap { FailureClass(errno: $0) } }
}

/// A folder held open by its descriptor. Everything below it is reached with the `*at()` calls,
/// one component at a time, each opened with `O_NOFOLLOW`: a symbolic link planted anywhere under
/// the folder is refused, never followed, so no write, rename or delete made through a
/// `SafeFolder` can land outside it. Renames move entries between two held folders, and removes
/// unlink the entry itself (a link, never its target).
final class SafeFolder: @unchecked Sendable {
    // @unchecked: immutable after init; the descriptor is only used with thread-safe system calls.
    let descriptor: Int32
    /// The folder as the pipeline spells it (for messages).
    let path: String
    /// The folder without symbolic links, for libraries that take a path (encoders, SQLite).
    let realPath: String

    private init(descriptor: Int32, path: String, realPath: String) {
        self.descriptor = descriptor
        self.path = path
        self.realPath = realPath
    }

    deinit { close(descriptor) }

    /// Opens a folder the pipeline names (an export root), creating it and its parents when
    /// `creating`. Links in this path itself are the pipeline's choice and are followed; links
    /// below it are not.
    static func open(_ path: String, creating: Bool) throws -> SafeFolder {
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
        let real = SafeFolder.realPath(of: descriptor) ?? IngestPOSIX.resolvedPath(path) ?? path
        return SafeFolder(descriptor: descriptor, path: path, realPath: real)
    }

    /// The folder `name` inside this one, created first when `creating`; refused when it is a link.
    func folder(_ name: String, creating: Bool) throws -> SafeFolder {
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
    func folder(at components: [String], creating: Bool) throws -> SafeFolder {
        var current = self
        for component in components {
            current = try current.folder(component, creating: creating)
        }
        return current
    }

    /// The type bits (`S_IFREG`, `S_IFDIR`, `S_IFLNK` …) of the entry `name`, not following a
    /// link; nil when there is no such entry.
    func kind(of name: String) -> mode_t? {
        status(of: name).map { $0.st_mode & S_IFMT }
    }

    /// `fstatat` of the entry itself (a link is described, not followed); nil when absent.
    func status(of name: String) -> stat? {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info
    }

    /// Opens (and with `O_CREAT` in `flags`, creates) the regular file `name`, never through a link.
    func openFile(_ name: String, flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
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
    func move(_ name: String, to folder: SafeFolder, as newName: String) throws {
        guard renameat(descriptor, name, folder.descriptor, newName) == 0 else {
            throw FileSystemFailure(path: folder.child(newName), kind: .system(errno))
        }
    }

    /// Removes the entry `name` (a link itself, never what it points to). False when it could not.
    @discardableResult
    func remove(_ name: String) -> Bool {
        unlinkat(descriptor, name, 0) == 0
    }

    /// Removes the empty folder `name`. False when it is not empty, absent or cannot be removed.
    @discardableResult
    func removeFolder(_ name: String) -> Bool {
        unlinkat(descriptor, name, AT_REMOVEDIR) == 0
    }

    /// The names of the folder's entries (read through the descriptor, so the folder listed is
    /// the one held open, whatever has been renamed since).
    func names() -> [String] {
        let byDescriptor = "/proc/self/fd/\(descriptor)"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: byDescriptor) { return names }
        return (try? FileManager.default.contentsOfDirectory(atPath: realPath)) ?? []
    }

    /// The path of an entry, for messages.
    func child(_ name: String) -> String { path + "/" + name }

    /// The path the kernel knows for an open folder (Linux: `/proc/self/fd/N`).
    private static func realPath(of descriptor: Int32) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
              target.hasPrefix("/"), !target.hasSuffix(" (deleted)") else { return nil }
        return target
    }
}

/// Whole writes and syncs on a descriptor, with the errno when they fail (FileHandle's `write(_:)`
/// stops the process on a full disk; these report it).
enum Descriptor {
    /// Writes every byte; the errno of the first failure, or nil.
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
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
    static func sync(_ descriptor: Int32) -> Int32? {
        fsync(descriptor) == 0 ? nil : errno
    }

    /// The whole content from the start (small files: lock files).
    static func readAll(_ descriptor: Int32) -> String {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { return "" }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data = (try? handle.readToEnd()) ?? nil
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

// The C calls under the names SafeFolder and Descriptor use for their own methods.
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func writeBytes(_ descriptor: Int32, _ bytes: [UInt8]) -> Int { write(descriptor, bytes, bytes.count) }
