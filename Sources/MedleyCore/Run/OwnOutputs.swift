import Foundation

/// Tells a job's own outputs from its inputs when its export root lies inside an ingest root
/// (`from: [photos]`, `to: photos/sepia`). Paths are compared as written first and, where the
/// export root is inside an ingest root, by their real paths too, so no symbolic link — to the
/// ingest root or to the export root — makes Medley take its outputs for new inputs.
struct OwnOutputs {
    let exportRoot: String
    /// The export root with links resolved (as far as it exists).
    let realExportRoot: String
    /// Whether files can be inside the export root under a path that does not say so.
    let mustResolve: Bool

    init(exportRoot: String, ingestRoots: [String]) {
        self.exportRoot = exportRoot
        realExportRoot = Self.realPath(exportRoot)
        let real = realExportRoot
        mustResolve = ingestRoots.contains { root in
            guard case .success(let plan) = FileEnumerator.RootPlan.make(root),
                  let folder = IngestPOSIX.resolvedPath(plan.location) else { return false }
            return IngestPOSIX.isWithin(real, directory: folder)
        }
    }

    func contains(_ path: String) -> Bool {
        if path.hasPrefix(exportRoot + "/") { return true }
        guard mustResolve, let real = IngestPOSIX.resolvedPath(path) else { return false }
        return real != realExportRoot && IngestPOSIX.isWithin(real, directory: realExportRoot)
    }

    /// `path` with links resolved in the part that exists; the rest appended as written.
    static func realPath(_ path: String) -> String {
        var existing = IngestPOSIX.normalized(path)
        var missing: [String] = []
        while existing != "/" {
            if let resolved = IngestPOSIX.resolvedPath(existing) {
                return ([resolved == "/" ? "" : resolved] + missing.reversed()).joined(separator: "/")
            }
            missing.append(IngestPOSIX.lastComponent(of: existing))
            existing = IngestPOSIX.parent(of: existing)
        }
        return "/" + missing.reversed().joined(separator: "/")
    }
}
