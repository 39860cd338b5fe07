#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One folder open for listing: its identity (checked on the folder opened, so a link swapped in
/// between checks cannot fool the caller) and its entries as `readdir` gives them — names as bytes,
/// since a name on disk need not be UTF-8. The one place a `dirent` is read.
public final class FolderListing {
    /// What `d_type` says an entry is (`unknown` on file systems that do not fill it: ask `status(of:)`).
    public enum EntryType: Sendable, Equatable { case directory, link, regular, unknown, other }

    private let directory: OpaquePointer
    /// The folder opened.
    public let identity: FileSystem.FileIdentity

    private init(directory: OpaquePointer, identity: FileSystem.FileIdentity) {
        self.directory = directory
        self.identity = identity
    }

    deinit { closedir(directory) }

    /// Opens the folder at `path`. `followingLink` false: a link there is refused (ELOOP, also when
    /// the system says ENOTDIR for `O_NOFOLLOW|O_DIRECTORY` on a link).
    public static func open(_ path: String, followingLink: Bool) -> Result<FolderListing, FileSystem.Errno> {
        let folder = openFolder(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW))
        guard folder >= 0 else {
            let code = errno
            return .failure(FileSystem.Errno(code: !followingLink && FileSystem.isLink(path) ? ELOOP : code))
        }
        guard let directory = fdopendir(folder) else {
            let code = errno
            close(folder)
            return .failure(FileSystem.Errno(code: code))
        }
        var raw = stat()
        guard fstat(dirfd(directory), &raw) == 0 else {
            let code = errno
            closedir(directory)
            return .failure(FileSystem.Errno(code: code))
        }
        return .success(FolderListing(directory: directory, identity: FileSystem.Status(raw).identity))
    }

    /// The next entry: its name's bytes (without the terminating NUL) and its type; nil at the end.
    public func next() -> Result<(name: [UInt8], type: EntryType)?, FileSystem.Errno> {
        errno = 0
        guard let record = readdir(directory) else {
            return errno == 0 ? .success(nil) : .failure(FileSystem.Errno(code: errno))
        }
        let type: EntryType
        switch Int32(record.pointee.d_type) {
        case Int32(DT_DIR): type = .directory
        case Int32(DT_LNK): type = .link
        case Int32(DT_REG): type = .regular
        case Int32(DT_UNKNOWN): type = .unknown
        default: type = .other
        }
        let name = withUnsafeBytes(of: &record.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
        return .success((name, type))
    }

    /// The entry `name` itself (`fstatat` without following a link), nil when it is gone.
    public func status(of name: String) -> FileSystem.Status? {
        var raw = stat()
        guard fstatat(dirfd(directory), name, &raw, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileSystem.Status(raw)
    }

    /// memcmp order, shorter first on a common prefix — the order `sort` gives byte strings in C,
    /// and the order folders are listed in.
    public static func precedesByteWise(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBufferPointer { l in
            right.withUnsafeBufferPointer { r in
                let common = Swift.min(l.count, r.count)
                if common > 0, let a = l.baseAddress, let b = r.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return order < 0 }
                }
                return l.count < r.count
            }
        }
    }
}

// The C call under a name FolderListing's `open` does not hide.
private func openFolder(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
