import Foundation
import MedleySystem
import MedleyMedia

/// The one way Medley puts a file under an export root — outputs, cover art, manifests, the
/// merged manifest, playlists, reports and their thumbnails, summaries: a temporary file of this
/// process in `<to>/.medley/tmp/` (created with O_EXCL), filled, then renamed into place through
/// real folders only (`ExportRoot`, by descriptor, refusing links), or removed. Rename is atomic
/// within one file system and `.medley/` is inside the export root, so no reader ever sees half a
/// file under its final name, and a process killed mid-write leaves only a temporary file, which
/// the next run removes.
final class AtomicFile {
    let root: ExportRoot
    let temporary: TemporaryFile
    /// The temporary file's path without links (for encoders that write by path).
    let path: String
    /// Open for writing when created with `open: true`, until `commit` or `discard`.
    private(set) var descriptor: Int32?
    private var finished = false

    /// A new temporary file named `<run id>-<n><suffix>`.
    init(in root: ExportRoot, suffix: String, open: Bool = false) throws {
        self.root = root
        (temporary, descriptor) = try root.createTemporary(suffix: suffix, keepOpen: open)
        path = temporary.path
    }

    deinit { if !finished { discard() } }

    /// Appends `bytes` through the open descriptor; the errno of a failed write, else nil.
    func write(_ bytes: [UInt8]) -> Int32? {
        guard let descriptor else { return EBADF }
        return Descriptor.write(descriptor, bytes)
    }

    /// Flushes what was written through the descriptor to disk; the errno of a failure, else nil.
    func sync() -> Int32? {
        guard let descriptor else { return nil }
        return Descriptor.sync(descriptor)
    }

    /// Renames the file to `relative` under the root, creating its folders (every one a real folder).
    func commit(at name: OutputName) throws {
        closeDescriptor()
        try root.place(temporary, at: name)
        finished = true
    }

    /// Renames the file to `name` in `folder`, a folder under the root.
    func commit(in folder: SafeFolder, as name: String) throws {
        closeDescriptor()
        try root.place(temporary, in: folder, as: name)
        finished = true
    }

    /// Removes the temporary file (nothing is put in place).
    func discard() {
        closeDescriptor()
        finished = true
        root.discard(temporary)
    }

    private func closeDescriptor() {
        if let descriptor { Descriptor.close(descriptor) }
        descriptor = nil
    }
}


/// Writes outputs so that no reader ever sees half a file under its final name: the encoder
/// writes a temporary file of this process in `<to>/.medley/tmp/`, and only a complete file is
/// renamed into place (rename is atomic within one file system, and `.medley/` is inside the
/// export root, so it is the same one). The folders on the way are created and entered one by
/// one, refusing symbolic links (`ExportRoot`), so a link planted under the export root cannot
/// carry an output — or a folder made for it — outside. A failed item removes its temporary file
/// and leaves no folders behind.
struct AtomicOutput {
    /// nil in a dry run, which writes nothing.
    let root: ExportRoot?

    /// A path in the temporary folder for an intermediate file; `removeScratch` removes it (or
    /// the next run, if this process dies).
    func scratchPath(fileExtension: String) throws -> TemporaryFile {
        guard let root else { throw ItemFailure(.output, "a dry run writes nothing") }
        do {
            return try root.createTemporary(suffix: "." + (fileExtension.isEmpty ? "tmp" : fileExtension)).file
        } catch let failure as FileSystemFailure {
            throw ItemFailure(.output, "cannot create a temporary file in \(failure.path): \(failure.reason)", cause: failure)
        }
    }

    func removeScratch(_ file: TemporaryFile) { root?.discard(file) }

    /// Runs `encode` with a temporary path, then moves the result to `name` under the export
    /// root; the temporary's suffix is `fileExtension`, else the name's own. Returns the size written.
    func write(to name: OutputName, fileExtension: String? = nil, encode: (String) throws -> Void) throws -> Int64 {
        guard let root else { throw ItemFailure(.output, "a dry run writes nothing") }
        let destination = name.path
        let fileExtension = fileExtension ?? name.ext
        let temporary: AtomicFile
        do {
            temporary = try AtomicFile(in: root, suffix: "." + (fileExtension.isEmpty ? "tmp" : fileExtension))
        } catch let failure as FileSystemFailure {
            throw ItemFailure(.output, "cannot create a temporary file in \(failure.path): \(failure.reason)", cause: failure)
        }
        do {
            try encode(temporary.path)
            // What was written must still be a regular file, not a link put in its place.
            let size = try root.size(of: temporary.temporary)
            guard size > 0 else { throw ItemFailure(.output, "the encoder wrote an empty file") }
            do {
                try temporary.commit(at: name)
            } catch let failure as FileSystemFailure {
                switch failure.kind {
                case .link, .notFolder, .notFile:
                    throw ItemFailure(.output, "refused to write \(destination): \(failure); Medley writes only through real folders "
                                      + "under the export root, so that no link can lead outside it", cause: failure)
                case .system:
                    throw ItemFailure(.output, "cannot put the result in place at \(destination): \(failure)", cause: failure)
                }
            }
            return size
        } catch {
            temporary.discard()
            throw Self.naming(destination, for: temporary.path, in: error)
        }
    }

    /// An encoder's error names the file it was writing: this run's temporary file, whose random
    /// name means nothing to a reader and differs from run to run. The output's name stands in for it.
    static func naming(_ destination: String, for temporaryPath: String, in error: Error) -> Error {
        switch error {
        case let failure as ItemFailure:
            return ItemFailure(failure.kind, failure.reason.replacingOccurrences(of: temporaryPath, with: destination),
                               context: failure.context?.replacingOccurrences(of: temporaryPath, with: destination),
                               cause: failure.cause.map { naming(destination, for: temporaryPath, in: $0) })
        case let failure as MediaError:
            return failure.rewording { $0.replacingOccurrences(of: temporaryPath, with: destination) }
        default:
            return error
        }
    }
}
