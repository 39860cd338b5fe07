import Foundation

/// An output's name under its export root, as the job's name template rendered it: checked once
/// (not empty, not inside `.medley/`) when it is made, and kept relative — the claim, the skip
/// policy, the steps' own rules and the atomic write all take this value, so no one turns it
/// absolute and back, or parses its extension again.
struct OutputName: Hashable, Sendable {
    /// The export root (`export.to`) as the job wrote it.
    let root: String
    /// The path below the root, as rendered (the manifest's `output` is `root/relative`).
    let relative: String
    /// `relative` split into its folders and file name (empty components dropped).
    let components: [String]
    /// The file name's extension, lowercased ("" when it has none): what picks a container.
    let ext: String
    /// The output's path as the manifest, events and console give it (`root/relative`).
    let path: String

    /// Checks `relative`, a rendered name, as an output under `root`.
    init(_ relative: String, root: String) throws {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !components.isEmpty else { throw ItemFailure(.output, "an empty output name") }
        if let first = components.first(where: { $0 != "." }), first.lowercased() == ExportRoot.folderName {
            throw ItemFailure(.output, "refused to write \(root)/\(relative): it is inside \(root)/\(ExportRoot.folderName), "
                              + "Medley's own folder (manifest, run state, temporary files); change export.name or the values it uses")
        }
        self.root = root
        self.relative = relative
        self.components = components
        ext = (relative as NSString).pathExtension.lowercased()
        path = root + "/" + relative
    }
}
