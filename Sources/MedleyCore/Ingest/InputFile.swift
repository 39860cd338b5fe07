#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }
private func openPath(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }

/// An ingested file opened once for its whole item, after checking that what was opened lies under the ingest root.
///
/// The listing and the reading of a file are apart in time, and in that time the file (or a folder on its path) can
/// be replaced by a symbolic link to anywhere. So an item never reads its input by path: it opens it here, and every
/// reader of the item — the content hash, the sniffer, libvips, libsndfile, FFmpeg, the tag readers — reads this one
/// open file, through `readPath` (`/proc/self/fd/N`, which reopens the open file itself, never a name) or the
/// descriptor. The bytes hashed for `persistentID` are then the bytes decoded.
///
/// How it is opened:
/// - A file the walk reached without a link: from the root folder, one component at a time with `O_NOFOLLOW`
///   (folders also `O_DIRECTORY`), so a link anywhere on the path fails the item.
/// - A file reached through a link that stayed inside the root (which ingest follows): by its path, links followed.
/// - Either way, the opened file must then be a regular file whose canonical path lies under the root as it was
///   resolved when the walk began, and that path must name the very file opened (same device and inode).
public final class InputFile {
    /// The file as listed, with the size and modification time of what was opened.
    public let file: IngestedFile
    /// The open descriptor (read-only, close-on-exec); closed by `close()` or when this object goes.
    public private(set) var descriptor: Int32
    /// The path decoders open: `/proc/self/fd/N` when the system has it, else the checked canonical path.
    public let readPath: String

    private init(file: IngestedFile, descriptor: Int32, readPath: String) {
        self.file = file
        self.descriptor = descriptor
        self.readPath = readPath
    }

    deinit { close() }

    /// Closes the descriptor (idempotent). Decoders must be done with `readPath` by then.
    public func close() {
        guard descriptor >= 0 else { return }
        closeDescriptor(descriptor)
        descriptor = -1
    }

    /// A message from a decoder with `readPath` put back as the path a person knows.
    public func describing(_ message: String) -> String {
        guard readPath != file.path else { return message }
        var result = ""
        var rest = Substring(message)
        while let range = rest.range(of: readPath) {
            result += rest[..<range.lowerBound]
            // "/proc/self/fd/1" is also the start of "/proc/self/fd/12": only whole numbers are ours.
            if let next = rest[range.upperBound...].first, next.isNumber {
                result += rest[range]
            } else {
                result += file.path
            }
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// Whether `/proc/self/fd/N` can stand for an open file (Linux with /proc mounted).
    private static let hasProcFileDescriptors: Bool = access("/proc/self/fd", F_OK) == 0

    /// Opens `file` for reading, or throws an `ItemFailure` saying why it may not or cannot be read.
    public static func open(_ file: IngestedFile) throws -> InputFile {
        let descriptor = file.throughLink ? try openFollowingLinks(file) : try openWithoutLinks(file)
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            let reason = failure(errno, file)
            closeDescriptor(descriptor)
            throw reason
        }
        guard opened.st_mode & S_IFMT == S_IFREG else {
            closeDescriptor(descriptor)
            throw ItemFailure(.input, "it is no longer a regular file (it was replaced after it was listed); not read")
        }
        // The open file must be named by a path under the root: a link swapped in anywhere cannot pass.
        guard let canonical = IngestPOSIX.resolvedPath(file.path),
              IngestPOSIX.isWithin(canonical, directory: file.canonicalRoot) else {
            closeDescriptor(descriptor)
            throw ItemFailure(.input, "it now resolves outside the ingest root \(file.canonicalRoot) (a symbolic link replaced it or a folder on its path after it was listed); not read")
        }
        var named = stat()
        guard stat(canonical, &named) == 0, named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else {
            closeDescriptor(descriptor)
            throw ItemFailure(.input, "it changed while it was being opened (replaced after it was listed); not read")
        }
        // O_NONBLOCK only kept a FIFO swapped in from blocking the open; reads of a regular file ignore it.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        let status = IngestPOSIX.Status(opened)
        return InputFile(file: file.with(size: status.size, modified: status.modified), descriptor: descriptor,
                         readPath: hasProcFileDescriptors ? "/proc/self/fd/\(descriptor)" : canonical)
    }

    private static let fileFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    private static let folderFlags = O_RDONLY | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC

    /// From the root folder, one name at a time, never through a link.
    private static func openWithoutLinks(_ file: IngestedFile) throws -> Int32 {
        var folder = openPath(file.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw failure(errno, file) }
        let names = file.relativePath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = names.last, !names.contains(".."), !names.contains(".") else {
            closeDescriptor(folder)
            throw ItemFailure(.input, "its relative path \(file.relativePath) cannot be opened below the root")
        }
        for name in names.dropLast() {
            let next = openat(folder, name, folderFlags)
            let code = errno
            if next < 0 {
                let reason = isLink(name, in: folder)
                    ? ItemFailure(.input, "the folder \(name) on its path was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
                    : failure(code, file)
                closeDescriptor(folder)
                throw reason
            }
            closeDescriptor(folder)
            folder = next
        }
        let descriptor = openat(folder, last, fileFlags)
        let code = errno
        defer { closeDescriptor(folder) }
        guard descriptor >= 0 else {
            if isLink(last, in: folder) {
                throw ItemFailure(.input, "it was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
            }
            throw failure(code, file)
        }
        return descriptor
    }

    /// A file ingest reached through a link inside the root: the link is followed, the result checked by the caller.
    private static func openFollowingLinks(_ file: IngestedFile) throws -> Int32 {
        let descriptor = openPath(file.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, file) }
        return descriptor
    }

    private static func isLink(_ name: String, in folder: Int32) -> Bool {
        var status = stat()
        return fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// The system's reason, in the words a person needs (a vanished file, the descriptor limit).
    static func failure(_ code: Int32, _ file: IngestedFile) -> ItemFailure {
        switch code {
        case ENOENT, ENOTDIR:
            return ItemFailure(.input, "it vanished after it was listed")
        case EMFILE, ENFILE:
            return ItemFailure(.input, "cannot open it: \(IngestPOSIX.errorText(code)) (\(ResourceLimits.descriptorLimitText))")
        default:
            return ItemFailure(.input, "cannot open it: \(IngestPOSIX.errorText(code))")
        }
    }
}
