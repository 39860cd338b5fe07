import Foundation
import MedleySystem

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
