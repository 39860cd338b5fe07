import Foundation

/// Writes outputs so that no reader ever sees half a file under its final name: the encoder
/// writes into `<to>/.medley/tmp/`, and only a complete file is renamed into place (rename is
/// atomic within one file system, and `.medley/` is inside the export root, so it is the same
/// one). A failed item removes its temporary file and leaves no folders behind.
struct AtomicOutput {
    let exportRoot: String
    let temporaryFolder: String

    init(exportRoot: String) {
        self.exportRoot = exportRoot
        temporaryFolder = exportRoot + "/.medley/tmp"
    }

    /// Whether `folder`, with every symlink resolved, still lies in the export root: a link
    /// inside the root that points elsewhere must not carry an output out of it.
    func staysInside(_ folder: String) -> Bool {
        guard let root = realpath(exportRoot, nil), let resolved = realpath(folder, nil) else { return false }
        defer { free(root); free(resolved) }
        // By bytes, as the filesystem compares: Strings compare canonically equivalent names (é and
        // e + ◌́, two folders on Linux) as equal, and see "/" + a combining mark as one non-"/" Character.
        let rootBytes = UnsafeRawBufferPointer(start: root, count: strlen(root))
        let pathBytes = UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))
        let slash = UInt8(ascii: "/")
        return pathBytes.elementsEqual(rootBytes) || (pathBytes.starts(with: rootBytes)
            && (rootBytes.last == slash || pathBytes.dropFirst(rootBytes.count).first == slash))
    }

    /// Creates the working folder and removes temporary files that earlier runs, since dead,
    /// left behind. Files of a live process (another shard on this machine) are kept.
    func prepare() throws {
        try FileManager.default.createDirectory(atPath: temporaryFolder, withIntermediateDirectories: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder)) ?? []
        for name in names {
            guard let pid = Int32(name.split(separator: "-").first ?? ""), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(temporaryFolder + "/" + name)
            }
        }
    }

    /// Removes the working folder if nothing is left in it (nor in `.medley/`).
    func finish() {
        rmdir(temporaryFolder)
        rmdir((temporaryFolder as NSString).deletingLastPathComponent)
    }

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter = 0

    private func temporaryPath(fileExtension: String) -> String {
        Self.counterLock.lock()
        Self.counter += 1
        let n = Self.counter
        Self.counterLock.unlock()
        return "\(temporaryFolder)/\(getpid())-\(n).\(fileExtension.isEmpty ? "tmp" : fileExtension)"
    }

    /// A path in the temporary folder for an intermediate file (removed by the caller, or by the
    /// next run if this process dies).
    func scratchPath(fileExtension: String) -> String {
        temporaryPath(fileExtension: fileExtension)
    }

    /// Runs `encode` with a temporary path, then moves the result to `destination`.
    /// Returns the size written.
    func write(to destination: String, fileExtension: String, encode: (String) throws -> Void) throws -> Int64 {
        let temporary = temporaryPath(fileExtension: fileExtension)
        do {
            try encode(temporary)
            let attributes = try FileManager.default.attributesOfItem(atPath: temporary)
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            guard size > 0 else { throw ItemFailure("the encoder wrote an empty file") }
            let folder = (destination as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            guard staysInside(folder) else {
                throw ItemFailure("refused to write \(destination): a symbolic link under the export root leads outside it")
            }
            guard rename(temporary, destination) == 0 else {
                throw ItemFailure("cannot move the result into place at \(destination): \(String(cString: strerror(errno)))")
            }
            return size
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// Why one item failed, in words for the summary (the path is added by the caller).
public struct ItemFailure: Error, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
