#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a file for reading that a walk listed, without following a link swapped in since.
extension FileSystem {
    /// Why `openForReading(below:_:)` failed.
    public enum OpenFailure: Error, Equatable {
        /// The folder `name` on the path is now a symbolic link: not followed.
        case folderIsLink(String)
        /// The file itself is now a symbolic link: not followed.
        case fileIsLink
        /// The names do not lead below the root (none, or "." or "..").
        case notBelowRoot
        /// The system refused, with this errno.
        case system(Errno)
    }

    /// Opens `components` below the folder `root` for reading: from the root, one name at a time
    /// with `O_NOFOLLOW` (folders also `O_DIRECTORY`), so a link anywhere on the path fails. The
    /// file is opened `O_NONBLOCK` (a FIFO swapped in cannot block the open; `clearNonBlocking`
    /// after checking it is a regular file). The caller closes the descriptor (`close`).
    public static func openForReading(below root: String, _ components: [String]) -> Result<Int32, OpenFailure> {
        var folder = openPath(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return .failure(.system(Errno(code: errno))) }
        guard let last = components.last, !components.contains(".."), !components.contains(".") else {
            close(folder)
            return .failure(.notBelowRoot)
        }
        for name in components.dropLast() {
            let next = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC)
            let code = errno
            if next < 0 {
                let failure: OpenFailure = isLink(name, in: folder) ? .folderIsLink(name) : .system(Errno(code: code))
                close(folder)
                return .failure(failure)
            }
            close(folder)
            folder = next
        }
        let descriptor = openat(folder, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        let code = errno
        defer { close(folder) }
        guard descriptor >= 0 else {
            return .failure(isLink(last, in: folder) ? .fileIsLink : .system(Errno(code: code)))
        }
        return .success(descriptor)
    }

    /// Opens `path` for reading, links followed (`O_NONBLOCK`, as above).
    public static func openForReading(_ path: String) -> Result<Int32, Errno> {
        let descriptor = openPath(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        return descriptor >= 0 ? .success(descriptor) : .failure(Errno(code: errno))
    }

    /// Opens `path` for reading, refusing a link at its last component (`O_NOFOLLOW`).
    public static func openForReadingWithoutLink(_ path: String) -> Result<Int32, Errno> {
        let descriptor = openPath(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        return descriptor >= 0 ? .success(descriptor) : .failure(Errno(code: errno))
    }

    /// Opens `path` for writing, emptied, and created (mode 0644) when `creating`. The file at the
    /// path is written, never replaced: a named pipe a reader waits on stays that pipe.
    public static func openForWriting(_ path: String, creating: Bool) -> Result<Int32, Errno> {
        let descriptor = creating ? openPath(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                                  : openPath(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        return descriptor >= 0 ? .success(descriptor) : .failure(Errno(code: errno))
    }

    /// Reads of a regular file ignore `O_NONBLOCK`; cleared once the open file is known to be one.
    public static func clearNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    }

    private static func isLink(_ name: String, in folder: Int32) -> Bool {
        var status = stat()
        return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }
}

// The C call under a name FileSystem's own methods do not hide.
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func openPath(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
