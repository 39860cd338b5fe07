import Foundation
import MedleyCore

/// `medley watch`: hot folders (`Watch/WatchSession.swift`).
enum WatchCommand {
    static let command = Command(
        "watch", operands: "PIPELINE.yaml",
        summary: """
            Runs the pipeline as 'run' does (finished items are skipped), then keeps watching its ingest
            roots and processes each file that arrives or changes once it is complete.
            """,
        options: [
            SharedOptions.jobs,
            Option("--only", value: "JOB", "watch only the job of that name"),
            Option("--settle", value: "DURATION", """
                a file no one closes after writing is taken once its size and modification time have
                not changed for this long: 500ms, 2s, 1m (default 2s); a file closed after writing or
                moved in is taken at once
                """),
            Option("--shard", value: "K/N", """
                take only share K of N of what is there and of what arrives, split by the hash of each
                relative path as 'run --shard' does (playlists and reports are left to 'medley merge')
                """),
            Option("--events", value: "FILE", """
                write JSON lines: those of 'run', and watchStarted (after the catch-up pass, when the
                folders are watched), batchFinished (after each batch), outputsRefreshed (the manifest,
                playlist, summary and report written again), watchRescan ('-' is standard output)
                """),
            Option("--quiet", "q", "hide progress and the success summary (errors and failures still show)"),
            Option("--wait", "when another medley run is writing to an export root of this watch, wait for it to finish"),
            SharedOptions.set,
        ],
        notes: """
            Folders are watched recursively with inotify: a folder made or moved in gets its watch and is then
            listed, so the files already in it are taken. When the kernel's event queue overflows, every ingest
            root is walked again (unchanged files are skipped). The manifest, playlist, summary and report are
            written again after a batch of arrivals, once nothing has been due for half a second, or every 10 s
            during a long burst.
            The export roots stay locked for the whole watch. Jobs that measure album loudness are refused.
            Exit codes: 0 stopped by SIGTERM or SIGINT (items in flight are finished first, then the outputs
            written); 1 stopped by a full disk, or a manifest, playlist or report that could not be written;
            2 invalid pipeline or options, or an export root that cannot be used; 3 internal error.
            """,
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positional.count == 1 else {
            throw UsageError(parsed.positional.isEmpty ? "name the pipeline file" : "expected one pipeline file, not \(parsed.positional.count)",
                             showsUsage: true)
        }
        let options = try RunOptions(parsed)
        var settings = WatchSettings()
        if let text = parsed.value("--settle") {
            guard let seconds = WatchSettings.duration(text) else {
                throw UsageError("--settle takes a duration above zero and at most a day, as 500ms, 2s or 1m, not '\(text)'")
            }
            settings.settle = seconds
        }
        guard let pipeline = try loadPipeline(parsed, nothingRun: true) else { return 2 }
        if let refusal = PipelineRunner.watchRefusal(pipeline, options: options) {
            printError("medley watch: \(refusal)")
            return 2
        }

        let runner: PipelineRunner
        do {
            runner = try PipelineRunner(pipeline: pipeline, options: options)
        } catch let error as RunError {
            printError("medley: \(error)")
            return 2
        }
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if runner.isWaitingForLock {
                    printError("medley: stopped while waiting for the export root (signal \(number)); nothing was run")
                    exit(0)
                }
                printError("medley: stopping the watch after the items in flight (signal \(number))")
                runner.stop()
            }
            source.resume()
            return source
        }
        let summary = try runner.watch(settings)
        signals.forEach { $0.cancel() }
        if let full = summary.diskFull {
            printError("medley: the disk holding \(full.exportRoot) is full (\(full.reason)); the watch stopped — free space and start it again")
            return 1
        }
        return summary.reportFailures > 0 ? 1 : 0
    }
}
