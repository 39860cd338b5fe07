import Foundation
import MedleyCore

/// `medley merge PIPELINE.yaml`: unions the shards' manifests of each job and checks them.
enum MergeCommand {
    static let command = Command(
        "merge", operands: "PIPELINE.yaml",
        summary: """
            After a sharded run (--shard K/N, a Kubernetes Indexed Job or a Slurm job array), unions each
            job's per-shard manifests (<to>/.medley/manifest-JOB-shard-K-of-N.jsonl) into
            <to>/.medley/manifest-JOB.jsonl, sorted by item, and checks them against the job's ingest:
            every item listed exactly once, every shard present. Reports missing shards, items no shard
            listed (with the shard that owns each), duplicates, and outputs that two items of different
            shards both wrote (shards cannot see each other's names while they run: the file written last
            replaced the other); then it writes nothing, so an earlier complete merge (manifest and
            playlist) stays in place.
            """,
        options: [Option("--only", value: "JOB", "merge only the job of that name"), SharedOptions.set],
        notes: "Exit codes: 0 complete, 1 something missing, duplicated or written twice, 2 invalid pipeline or options.",
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard let pipeline = try loadPipeline(parsed) else { return 2 }
        var complete = true
        for report in try ManifestMerge.merge(pipeline, onlyJob: parsed.value("--only")) {
            guard !report.shards.isEmpty else {
                printError("\(report.job): no shard manifests to merge")
                complete = false
                continue
            }
            let shards = report.shards.map(String.init).joined(separator: ", ")
            if let manifest = report.manifest {
                printError("\(report.job): \(report.items) items from shards \(shards) of \(report.shardCount) → \(manifest)")
            } else {
                printError("\(report.job): incomplete (\(report.items) items from shards \(shards) of \(report.shardCount)); nothing written, the merged manifest and playlist are left as they were")
            }
            if let entries = report.playlistItems { printError("  playlist: \(entries) item\(entries == 1 ? "" : "s")") }
            for shard in report.missingShards { printError("  ✗ shard \(shard)/\(report.shardCount): no manifest (not run, or still running)") }
            for (input, shard) in report.missing { printError("  ✗ missing: \(input) (shard \(shard)/\(report.shardCount))") }
            for duplicate in report.duplicates { printError("  ✗ listed twice: \(duplicate)") }
            for clash in report.outputClashes {
                printError("  ✗ one output from two items: \(clash.output) ← \(clash.first) and \(clash.second); the one written last"
                           + " replaced the other — make export.name unique (e.g. with {relpath} or {inputExt}) and run the shards again")
            }
            complete = complete && report.isComplete
        }
        return complete ? 0 : 1
    }
}
