import Foundation

/// `medley report PIPELINE.yaml`: the report of each job's last run, from its manifest (the
/// merged one after a sharded run).
public enum ReportCommandRunner {
    /// Writes each job's report; returns (job, page path or the reason there is none).
    public static func writeReports(_ pipeline: Pipeline, onlyJob: String?) -> [(job: String, result: Result<String, Error>)] {
        var roots: [String: ExportRoot] = [:]
        defer { roots.values.forEach { $0.finish() } }
        return pipeline.jobs.filter { onlyJob == nil || $0.name == onlyJob }.compactMap { job in
            guard let export = job.export else { return nil }
            let manifest = export.to + "/.medley/manifest-" + ManifestWriter.fileSafe(job.name) + ".jsonl"
            guard FileManager.default.fileExists(atPath: manifest) else {
                return (job.name, .failure(ItemFailure(.input, "no manifest at \(manifest): run the job first (after a sharded run, 'medley merge')")))
            }
            let summaryPath = JobSummaryFile.path(exportRoot: export.to, job: job.name, shard: nil)
            let summary = FileManager.default.contents(atPath: summaryPath).flatMap { try? JSONDecoder().decode(JobSummaryFile.self, from: $0) }
            return (job.name, Result {
                let root = try roots[export.to] ?? {
                    let opened = try ExportRoot.open(export.to)
                    try opened.prepareTemporaryArea(command: "report")
                    roots[export.to] = opened
                    return opened
                }()
                return try RunReport.write(job: job.name, root: root, manifestPath: root.medley.realPath + "/manifest-"
                                                + ManifestWriter.fileSafe(job.name) + ".jsonl",
                                           stage: job.report ?? ReportStage(), summary: summary)
            })
        }
    }
}
