import Foundation
import MedleySystem
import MedleyFilters

/// What `medley merge` found for one job.
public struct MergeReport: Sendable {
    public var job: String
    /// The merged manifest written, or nil: no shard manifests, or an incomplete merge (a shard,
    /// an item missing, an item listed twice, one output from two items), which writes nothing and
    /// leaves the manifest and playlist of an earlier merge as they were.
    public var manifest: String?
    public var shards: [Int] = []
    public var shardCount = 0
    /// Shards (1-based) whose manifest is absent.
    public var missingShards: [Int] = []
    public var items = 0
    /// Entries of the job's playlist, written from the merged manifest (nil: the job has none).
    public var playlistItems: Int?
    /// Inputs listed by more than one shard.
    public var duplicates: [String] = []
    /// Inputs the job selects that no shard manifest lists, with the shard that owns each.
    public var missing: [(input: String, shard: Int)] = []
    /// Outputs that two items of different shards (or one shard) both name: shards cannot see each
    /// other's claims while they run, so the one written last replaced the other's file.
    public var outputClashes: [(output: String, first: String, second: String)] = []
    public var isComplete: Bool {
        missingShards.isEmpty && duplicates.isEmpty && missing.isEmpty && outputClashes.isEmpty && manifest != nil
    }
}

/// Unions the per-shard manifests of each job into `<to>/.medley/manifest-<job>.jsonl` and checks
/// them against the job's ingest: every item the job selects must be listed exactly once.
public enum ManifestMerge {
    /// Each export root is locked as a run locks it (a merge while a shard still runs fails at
    /// once, naming it) and written through `ExportRoot`: the merged manifest and the playlist
    /// are temporary files of this process until renamed into place.
    public static func merge(_ pipeline: Pipeline, onlyJob: String? = nil) throws -> [MergeReport] {
        var roots: [String: ExportRoot] = [:]
        var byRealPath: [String: ExportRoot] = [:]
        defer { byRealPath.values.forEach { $0.finish() } }
        return try pipeline.jobs.filter { onlyJob == nil || $0.name == onlyJob }.compactMap { job in
            guard let export = job.export else { return nil }
            // No .medley folder: nothing to merge, and nothing is created.
            guard try ExportRoot.inspect(export.to) != nil else { return MergeReport(job: job.name) }
            if roots[export.to] == nil {
                let root = try ExportRoot.open(export.to)
                if let same = byRealPath[root.root.realPath] {
                    roots[export.to] = same
                } else {
                    try root.claim(shard: nil, wait: false, command: "merge") { _ in }
                    try root.prepareTemporaryArea(command: "merge")
                    byRealPath[root.root.realPath] = root
                    roots[export.to] = root
                }
            }
            guard let root = roots[export.to] else { return nil }
            return try merge(job, export: export, root: root)
        }
    }

    static func merge(_ job: Job, export: ExportStage, root: ExportRoot) throws -> MergeReport {
        var report = MergeReport(job: job.name)
        let folder = root.medley.realPath
        let prefix = "manifest-" + ManifestWriter.fileSafe(job.name) + "-shard-"
        let names = root.medley.names()
        var files: [(shard: Int, count: Int, path: String)] = []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".jsonl") {
            let middle = name.dropFirst(prefix.count).dropLast(".jsonl".count)
            let parts = middle.components(separatedBy: "-of-")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { continue }
            files.append((k, n, folder + "/" + name))
        }
        guard !files.isEmpty else { return report }
        let counts = Set(files.map(\.count))
        guard counts.count == 1, let n = counts.first else {
            throw RunError.internalError("shard manifests of job '\(job.name)' disagree on the shard count: \(counts.sorted())")
        }
        report.shardCount = n
        report.shards = files.map(\.shard).sorted()
        report.missingShards = (1...n).filter { !report.shards.contains($0) }

        // Union, keyed by input path; a second listing of an input is a duplicate.
        var lines: [(item: String, line: String)] = []
        var seen: [String: Int] = [:]
        var outputs: [String: String] = [:]  // output path → "item (shard K)" of the first item that names it
        for file in files.sorted(by: { $0.shard < $1.shard }) {
            let text = try String(contentsOfFile: file.path, encoding: .utf8)
            // Split on the byte: a manifest is UTF-8 JSON, one record a line, and walking it by
            // Characters cost as much as decoding the records.
            for bytes in text.utf8.split(separator: UInt8(ascii: "\n")) where !bytes.isEmpty {
                let line = Substring(bytes)
                guard let record = try? JSONDecoder().decode(MergeKey.self, from: Data(bytes)) else {
                    throw RunError.internalError("\(file.path): a line that is not a manifest record")
                }
                let input = record.input
                // A failure of the walk itself (no input: a name that is not UTF-8, a folder it cannot read)
                // is listed by the one shard its path falls to; it is not an item, so it has no key.
                if input.isEmpty {
                    lines.append((record.item, String(line)))
                    continue
                }
                if let first = seen[input] {
                    report.duplicates.append("\(input) (shards \(first) and \(file.shard))")
                    continue
                }
                seen[input] = file.shard
                let item = record.item.isEmpty ? input : record.item
                if let output = record.output, record.status == .succeeded || record.status == .skipped {
                    let owner = "\(item) (shard \(file.shard))"
                    if let first = outputs[output] {
                        report.outputClashes.append((output, first, owner))
                    } else {
                        outputs[output] = owner
                    }
                }
                lines.append((item, String(line)))
            }
        }
        report.items = lines.count

        // Every file the job selects must be in its owner shard's manifest.
        let own = OwnOutputs(exportRoot: export.to, ingestRoots: job.ingest.roots)
        for result in FileEnumerator(job.ingest.source) {
            guard case .success(let file) = result, !own.contains(file.path), seen[file.path] == nil else { continue }
            guard let sniffed = try? Identify.format(of: file),
                  job.takes(sniffed.kind) else { continue }
            report.missing.append((file.path, Sharding.shard(of: file.relativePath, count: n)))
        }

        // A partial union must not replace a whole one: report, write nothing.
        guard report.missingShards.isEmpty, report.missing.isEmpty, report.duplicates.isEmpty, report.outputClashes.isEmpty else {
            return report
        }
        // Sorted by the item's bytes (the order every machine agrees on), each key made once.
        let merged = lines.map { (key: Array($0.item.utf8), line: $0.line) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            .map(\.line).joined(separator: "\n") + "\n"
        let name = ManifestWriter.fileName(job: job.name, shard: nil)
        let destination = export.to + "/" + ExportRoot.folderName + "/" + name
        do {
            try root.writeOwnFile(name, Array(merged.utf8))
        } catch let failure as FileSystemFailure {
            throw RunError.cannotWrite(path: destination, reason: failure.reason)
        }
        report.manifest = destination
        if let playlist = job.playlist {
            report.playlistItems = try Playlist.write(playlist, manifestLines: lines.map(\.line), root: root)
        }
        if let sheet = job.contactSheet {
            _ = ContactSheet.write(sheet, job: job.name, manifestLines: lines.map(\.line), root: root) { print($0) }
        }
        return report
    }
}

/// The fields of a manifest line that a merge keys on. Decoding whole records (properties,
/// loudness, analysis) was half the CPU of merging 100,000 items; `status` is still decoded, so a
/// line that is not a manifest record is refused as before.
private struct MergeKey: Decodable {
    var item: String
    var input: String
    var status: ManifestRecord.Status
    var output: String?

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: ManifestRecord.CodingKeys.self)
        status = try c.decode(ManifestRecord.Status.self, forKey: .status)
        input = try c.decodeIfPresent(String.self, forKey: .input) ?? ""
        item = try c.decodeIfPresent(String.self, forKey: .item) ?? ""
        output = try c.decodeIfPresent(String.self, forKey: .output)
    }
}
