import Foundation

/// What a job did, written beside its manifest when the job ends (read back by the report).
struct JobSummaryFile: Codable {
    var job: String
    var started: String
    var seconds: Double
    var succeeded: Int
    var failed: Int
    var skipped: Int
    var excluded: Int
    var ignored: Int
    var bytesWritten: Int64
    var shard: String?

    static func path(exportRoot: String, job: String, shard: (index: Int, count: Int)?) -> String {
        exportRoot + "/.medley/" + fileName(job: job, shard: shard)
    }

    /// Its name in `.medley/`.
    static func fileName(job: String, shard: (index: Int, count: Int)?) -> String {
        "summary-" + ManifestWriter.fileSafe(job) + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".json"
    }
}

extension JobSummaryFile {
    /// The summary of a job that has just run.
    init(job: String, counts c: JobCounts, started: Date, seconds: Double, shard: (index: Int, count: Int)?) {
        self.init(job: job, started: started.formatted(.iso8601), seconds: seconds, succeeded: c.succeeded, failed: c.failed,
                  skipped: c.skipped, excluded: c.excluded, ignored: c.ignored, bytesWritten: c.bytesWritten,
                  shard: shard.map { "\($0.index)/\($0.count)" })
    }

    /// Writes `<to>/.medley/summary-<job>.json` (the counts and wall time the report shows); a
    /// summary that cannot be written only leaves the report without them.
    func write(into root: ExportRoot, shard: (index: Int, count: Int)?) {
        if let data = try? JSONEncoder().encode(self) { try? root.writeOwnFile(Self.fileName(job: job, shard: shard), [UInt8](data)) }
    }
}
