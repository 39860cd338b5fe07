import Foundation
import MedleyCore

/// `medley report PIPELINE.yaml`: an HTML page per job from its manifest.
enum ReportCommand {
    static let command = Command(
        "report", operands: "PIPELINE.yaml",
        summary: """
            Writes each job's HTML report from its last run's manifest (after a sharded run, from the
            manifest 'medley merge' wrote): the summary, before/after thumbnails of images, a waveform
            and meters of audio, every item's properties, the failures with their reasons, links to the
            outputs. The page is <to>/.medley/report-JOB/index.html (or the job's report.to) and works
            offline. Jobs with 'report:' write it at the end of every run already.
            """,
        options: [Option("--only", value: "JOB", "report only the job of that name"), SharedOptions.set],
        notes: "Exit codes: 0 written, 1 a job had no manifest or its report failed, 2 invalid pipeline.",
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard let pipeline = try loadPipeline(parsed) else { return 2 }
        var ok = true
        for (job, result) in ReportCommandRunner.writeReports(pipeline, onlyJob: parsed.value("--only")) {
            switch result {
            case .success(let page): printError("\(job): \(page)")
            case .failure(let error):
                ok = false
                printError("\(job): \(error)")
            }
        }
        return ok ? 0 : 1
    }
}
