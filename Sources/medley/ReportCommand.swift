import Foundation
import MedleyCore

/// `medley report PIPELINE.yaml`: an HTML page per job from its manifest.
enum ReportCommand {
    static let help = """
        usage: medley report PIPELINE.yaml [--only JOB] [--set JOB.KEY=VALUE]

        Writes each job's HTML report from its last run's manifest (after a sharded run, from the
        manifest 'medley merge' wrote): the summary, before/after thumbnails of images, a waveform
        and meters of audio, every item's properties, the failures with their reasons, links to the
        outputs. The page is <to>/.medley/report-JOB/index.html (or the job's report.to) and works
        offline. Jobs with 'report:' write it at the end of every run already.
        Exit codes: 0 written, 1 a job had no manifest or its report failed, 2 invalid pipeline.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: [], valued: ["--only", "--set"], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard let pipeline = try loadPipeline(parsed, help: help) else { return 2 }
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
