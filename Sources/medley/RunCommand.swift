import Foundation
import MedleyCore

enum RunCommand {
    static let command = Command(
        "run", operands: "PIPELINE.yaml | -i PATH… -o FOLDER",
        summary: """
            Validates the pipeline, then runs its jobs over their ingested items. Without a file, the one-line
            flags (-i, -o, --filter, --resize, --format, --transcode, …) make a one-job pipeline that is validated
            and run the same way; --print-pipeline prints it as a file to keep (docs/one-line-jobs.md).
            """,
        options: [
            SharedOptions.jobs,
            Option("--only", value: "JOB", "run only the job of that name"),
            Option("--dry-run", "n", "list what would be written; write nothing"),
            Option("--force", "f", "redo outputs that exist even with 'overwrite: skip'"),
            Option("--shard", value: "K/N", """
                process only share K of N (K from 1), split by a hash of each relative path;
                also taken from JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID with
                SLURM_ARRAY_TASK_COUNT (Slurm), whose indexes count from 0; with MEDLEY_SHARD_COUNT
                (required for a resubmitted Slurm task) N is that, and K counts from MEDLEY_FIRST_TASK
                """),
            Option("--events", value: "FILE", """
                write JSON lines: jobStarted, itemStarted, itemFinished, itemSkipped, itemFailed,
                jobFinished (FILE '-' is standard output; each line is written as its event happens)
                """),
            Option("--quiet", "q", "hide progress and the success summary (errors and failures still show)"),
            Option("--failed-items-ok", """
                exit 0 when the run went through every item even if some failed (each is still named in the
                summary, the manifest and the report); a run stopped early still exits 1 — for batch systems
                that retry a task whose exit status is not 0 (a Kubernetes Indexed Job)
                """),
            Option("--wait", """
                when another medley run is writing to an export root of this run (the same
                shard of it, or a whole-root run), wait for it to finish instead of stopping
                """),
            SharedOptions.set,
        ] + OneLineJob.options,
        notes: """
            One run at a time writes an export root (or one shard of it): a second stops at once, naming the
            first (exit 2), unless --wait. On a terminal a progress line shows a bar, counts, rate and ETA. Exit
            codes: 0 all items succeeded; 1 some items failed (0 with --failed-items-ok), or the run stopped
            early (SIGTERM, a full disk); 2 invalid pipeline or options, or an export root that cannot be used
            (another run is writing to it, it cannot be written, a symbolic link where Medley keeps its files):
            nothing was run; 3 internal error; 130 interrupted (SIGINT, Ctrl-C) — items in flight are finished
            first.
            """,
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        let oneLine = !OneLineJob.given(parsed).isEmpty
        guard oneLine || parsed.positional.count == 1 else {
            throw UsageError(parsed.positional.isEmpty ? "name the pipeline file, or give a one-line job (-i PATH -o FOLDER …)"
                                 : "expected one pipeline file, not \(parsed.positional.count)",
                             showsUsage: true)
        }
        let options = try RunOptions(parsed)
        let pipeline: Pipeline
        if oneLine {
            // The flags' pipeline (OneLineJob.swift), validated as a file is.
            guard let made = try OneLineJob.load(parsed) else { return 2 }
            if parsed.flag("--print-pipeline") {
                print(made.job.text, terminator: "")
                return 0
            }
            pipeline = made.pipeline
        } else {
            guard let loaded = try loadPipeline(parsed, nothingRun: true) else { return 2 }
            pipeline = loaded
        }

        let runner: PipelineRunner
        do {
            runner = try PipelineRunner(pipeline: pipeline, options: options)
        } catch let error as RunError {
            // --events FILE that cannot be written: nothing was run.
            printError("medley: \(error)")
            return 2
        }
        let received = FirstSignal()
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.note(number)
                // Still waiting for another run's lock: nothing has started, so there is nothing to finish.
                if runner.isWaitingForLock {
                    printError("medley: stopped while waiting for the export root (signal \(number)); nothing was run")
                    exit(exitStatus(afterStopping: received.number))
                }
                printError("medley: stopping after the items in flight (signal \(number))")
                runner.stop()
            }
            source.resume()
            return source
        }
        let summary = try runner.run()
        signals.forEach { $0.cancel() }
        if let full = summary.diskFull {
            let done = summary.done
            printError("medley: the disk holding \(full.exportRoot) is full (\(full.reason)); stopped after \(done) item\(done == 1 ? "" : "s")"
                       + " — free space and run again")
            return 1
        }
        if summary.interrupted {
            let done = summary.jobs.reduce(0) { $0 + $1.counts.done }
            printError("medley: interrupted after \(done) item\(done == 1 ? "" : "s") (their outputs, manifest and run state are complete); "
                       + "items not reached were not started — run the same command again to finish: finished items are skipped")
            return exitStatus(afterStopping: received.number)
        }
        return summary.failed > 0 && !parsed.flag("--failed-items-ok") ? 1 : 0
    }

    /// 130 after SIGINT (Ctrl-C), as shells report a command the interrupt ended; 1 after
    /// SIGTERM and any other stop.
    static func exitStatus(afterStopping signal: Int32?) -> Int32 {
        signal == SIGINT ? 128 + SIGINT : 1
    }

    /// The first stop signal a run received (the one that decides its exit status).
    final class FirstSignal: @unchecked Sendable {
        // @unchecked: `first` is guarded by `lock`.
        private let lock = NSLock()
        private var first: Int32?

        func note(_ signal: Int32) {
            lock.lock()
            if first == nil { first = signal }
            lock.unlock()
        }

        var number: Int32? {
            lock.lock()
            defer { lock.unlock() }
            return first
        }
    }
}

enum ValidateCommand {
    static let command = Command(
        "validate", operands: "PIPELINE.yaml",
        summary: """
            Parses and checks the whole pipeline — keys, filter names and parameters, paths, templates —
            and prints every problem as FILE:LINE:COL. Runs nothing, writes nothing.
            """,
        options: [SharedOptions.set],
        notes: "Exit codes: 0 valid, 2 not.",
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard let pipeline = try loadPipeline(parsed) else { return 2 }
        let jobs = pipeline.jobs.map(\.name)
        printError("\(parsed.positional[0]): valid (\(jobs.count) job\(jobs.count == 1 ? "" : "s"): \(jobs.joined(separator: ", ")))")
        return 0
    }
}
