import Foundation
import MedleySystem

/// Whether a job's ingest takes a file that arrived in a watched folder, decided by the rules the
/// folder walk (`FileEnumerator`) applies: the first root that holds it, hidden names, `recursive`,
/// a glob root's pattern, `include` and `exclude`, a link only when it leads inside the root, the
/// job's own outputs left out, and the share of a `--shard`. What it takes is the `IngestedFile`
/// the walk would have listed.
struct ArrivalFilter {
    let source: IngestSource
    let plans: [FileEnumerator.RootPlan]
    /// Per plan: the root with links resolved (nil when it cannot be resolved now).
    let canonical: [String?]
    let own: OwnOutputs?
    let shard: (index: Int, count: Int)?

    init(job: Job, shard: (index: Int, count: Int)?) {
        source = job.ingest.source
        plans = source.roots.compactMap { root in
            guard case .success(let plan) = FileEnumerator.RootPlan.make(root) else { return nil }
            return plan
        }
        canonical = plans.map { FileSystem.resolvedPath($0.location) }
        own = job.export.map { OwnOutputs(exportRoot: $0.to, ingestRoots: job.ingest.roots) }
        self.shard = shard
    }

    /// Whether `path` is (or lies below) a folder the walk leaves out (`IngestSource.excludedFolders`),
    /// by the path as reached or with its links resolved, as `FileEnumerator` judges it.
    func isExcludedFolder(_ path: String) -> Bool {
        guard !source.excludedFolders.isEmpty else { return false }
        if source.excludedFolders.contains(where: { FileSystem.isWithin(path, directory: $0) }) { return true }
        guard let real = FileSystem.resolvedPath(path) else { return false }
        return source.excludedFolders.contains { FileSystem.isWithin(real, directory: $0) }
    }

    /// The folders to watch: each folder root (a glob root's folder), or a file root's folder.
    var folders: [(path: String, recursive: Bool)] {
        plans.map { plan in
            if case .success(let info) = FileSystem.status(of: plan.location), info.kind == .directory {
                return (plan.location, plan.pattern != nil || source.recursive)
            }
            return (FileSystem.parent(of: plan.location), false)
        }
    }

    /// Whether a folder met below a root (or the root itself) is walked by this ingest.
    func descends(into path: String) -> Bool {
        if let own, own.contains(path) { return false }
        if isExcludedFolder(path) { return false }
        for plan in plans where FileSystem.isWithin(path, directory: plan.location) {
            if path == plan.location { return true }
            let components = relativeComponents(path, below: plan.location)
            if components.contains(where: { $0.first == "." }) { continue }
            let subject = Glob.Subject(components: components.map { Array($0.lowercased()) })
            if let pattern = plan.pattern {
                if pattern.mayMatchBelow(subject) { return true }
                continue
            }
            guard source.recursive else { continue }
            if source.exclude.contains(where: { $0.matchesEverythingBelow(subject) }) { continue }
            return true
        }
        return false
    }

    /// The file the job takes at `path`, or nil when its ingest does not list it (or it is gone).
    func file(at path: String) -> IngestedFile? {
        if let own, own.contains(path) { return nil }
        // `ingest.afterwards.move`'s folder: what arrives there is our own moves.
        if isExcludedFolder(path) { return nil }
        for (index, plan) in plans.enumerated() {
            let rootFolder: String, relative: [String]
            if path == plan.location {
                // A file given directly as a root.
                rootFolder = FileSystem.parent(of: path)
                relative = [FileSystem.lastComponent(of: path)]
            } else if FileSystem.isWithin(path, directory: plan.location) {
                rootFolder = plan.location
                relative = relativeComponents(path, below: plan.location)
                if relative.contains(where: { $0.first == "." }) { continue }
                if plan.pattern == nil, !source.recursive, relative.count > 1 { continue }
            } else {
                continue
            }
            let subject = Glob.Subject(components: relative.map { Array($0.lowercased()) })
            if let pattern = plan.pattern, !pattern.matchesWholePath(subject) { continue }
            if !source.include.isEmpty, !source.include.contains(where: { $0.matches(subject) }) { continue }
            if source.exclude.contains(where: { $0.matches(subject) }) { continue }
            let canonicalRoot = canonical[index] ?? plan.location
            guard case .success(var status) = FileSystem.linkStatus(of: path) else { return nil }
            var throughLink = false
            if status.isLink {
                // Followed only when it leads inside the root, as the walk does.
                guard let target = FileSystem.resolvedPath(path), FileSystem.isWithin(target, directory: canonicalRoot),
                      case .success(let followed) = FileSystem.status(of: path) else { return nil }
                status = followed
                throughLink = true
            }
            guard status.kind == .file else { return nil }
            let relativePath = relative.joined(separator: "/")
            guard Sharding.takes(relativePath, shard: shard) else { return nil }
            return IngestedFile(path: path, root: rootFolder, relativePath: relativePath, size: status.size,
                                modified: status.modified, canonicalRoot: canonicalRoot, throughLink: throughLink)
        }
        return nil
    }

    private func relativeComponents(_ path: String, below root: String) -> [String] {
        let rest = path.utf8.dropFirst(root.utf8.count)
        return String(decoding: rest, as: UTF8.self).split(separator: "/").map(String.init)
    }
}
