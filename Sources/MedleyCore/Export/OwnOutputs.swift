import Foundation
import MedleySystem

/// Tells a job's own outputs from its inputs when its export root lies inside an ingest root
/// (`from: [photos]`, `to: photos/sepia`). Paths are compared as written first and, where the
/// export root is inside an ingest root, by their real paths too, so no symbolic link — to the
/// ingest root or to the export root — makes Medley take its outputs for new inputs.
final class OwnOutputs {
    // Used by the one thread that enumerates (its cache is not shared).
    let exportRoot: String
    /// The export root with links resolved (as far as it exists).
    let realExportRoot: String
    /// Whether files can be inside the export root under a path that does not say so.
    let mustResolve: Bool
    /// Files come folder by folder: each folder is resolved once.
    private var lastFolder: String?
    private var lastFolderIsOwn = false

    init(exportRoot: String, ingestRoots: [String]) {
        self.exportRoot = exportRoot
        realExportRoot = FileSystem.realPath(exportRoot)
        let real = realExportRoot
        mustResolve = ingestRoots.contains { root in
            guard case .success(let plan) = FileEnumerator.RootPlan.make(root),
                  let folder = FileSystem.resolvedPath(plan.location) else { return false }
            return FileSystem.isWithin(real, directory: folder)
        }
    }

    func contains(_ path: String) -> Bool {
        if FileSystem.isWithin(path, directory: exportRoot) { return true }
        guard mustResolve else { return false }
        // A file that is itself a link is judged by where it leads.
        if FileSystem.isLink(path) {
            guard let real = FileSystem.resolvedPath(path) else { return false }
            return FileSystem.isWithin(real, directory: realExportRoot)
        }
        let folder = FileSystem.parent(of: path)
        if folder != lastFolder {
            lastFolder = folder
            lastFolderIsOwn = FileSystem.resolvedPath(folder).map { FileSystem.isWithin($0, directory: realExportRoot) } ?? false
        }
        return lastFolderIsOwn
    }
}
