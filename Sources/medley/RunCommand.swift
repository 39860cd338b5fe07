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
        var options = try sharedOptions(parsed)
        options.dryRun = parsed.flag("--dry-run")
        options.force = parsed.flag("--force")
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

    /// The options `run` and `watch` share: --quiet, --wait, --events, --only, --jobs, --shard.
    static func sharedOptions(_ parsed: ParsedArguments) throws -> RunOptions {
        var options = RunOptions()
        options.quiet = parsed.flag("--quiet")
        options.wait = parsed.flag("--wait")
        options.eventsPath = parsed.value("--events")
        options.onlyJob = parsed.value("--only")
        if let jobs = try parsed.count("--jobs") { options.concurrency = jobs }
        options.shard = try shard(parsed.value("--shard"))
        return options
    }

    /// `--shard K/N`, or the index a cluster scheduler gives an array task.
    static func shard(_ text: String?) throws -> (index: Int, count: Int)? {
        let environment = ProcessInfo.processInfo.environment
        if let text {
            let parts = text.split(separator: "/").map { Int($0) }
            guard parts.count == 2, let k = parts[0], let n = parts[1], n >= 1, (1...n).contains(k) else {
                throw UsageError("--shard takes K/N with 1 ≤ K ≤ N, e.g. --shard 1/4, not '\(text)'")
            }
            return (k, n)
        }
        if let id = environment["SLURM_ARRAY_TASK_ID"].flatMap(Int.init),
           let count = environment["SLURM_ARRAY_TASK_COUNT"].flatMap(Int.init), count >= 1 {
            // A resubmitted task (`--array=5` of 0-7) is an array of its own, whose size and
            // minimum say nothing of the shard count: MEDLEY_SHARD_COUNT names it, and the task
            // counts from MEDLEY_FIRST_TASK (default 0).
            if let named = environment["MEDLEY_SHARD_COUNT"] {
                let first = environment["MEDLEY_FIRST_TASK"] ?? "0"
                guard let n = Int(named), n >= 1, let base = Int(first), (1...n).contains(id - base + 1) else {
                    throw UsageError("""
                        SLURM_ARRAY_TASK_ID \(id) with MEDLEY_SHARD_COUNT '\(named)' and MEDLEY_FIRST_TASK '\(first)' \
                        is not one of the shards: the task must lie in MEDLEY_FIRST_TASK … MEDLEY_FIRST_TASK + N − 1
                        """)
                }
                return (id - base + 1, n)
            }
            // A one-task array cannot be told from a resubmitted task of a larger one, which would
            // take every item as shard 1/1 under a run state of its own.
            guard count > 1 else {
                throw UsageError("""
                    SLURM_ARRAY_TASK_ID is set in an array of one task, which cannot say which shard it is \
                    (a resubmitted task would take every item): set MEDLEY_SHARD_COUNT=N (and MEDLEY_FIRST_TASK \
                    if the original array did not start at 0), or pass --shard K/N
                    """)
            }
            // A whole array numbers its tasks as the --array range says (0-3 or 1-4): count from its minimum.
            let index = id - (environment["SLURM_ARRAY_TASK_MIN"].flatMap(Int.init) ?? 0)
            guard (0..<count).contains(index) else {
                throw UsageError("SLURM_ARRAY_TASK_ID \(id) is outside the array of \(count) tasks; use a contiguous --array range")
            }
            return (index + 1, count)
        }
        if let index = environment["JOB_COMPLETION_INDEX"].flatMap(Int.init) {
            guard let count = environment["MEDLEY_SHARD_COUNT"].flatMap(Int.init), (0..<count).contains(index) else {
                throw UsageError("JOB_COMPLETION_INDEX is set: set MEDLEY_SHARD_COUNT to the Indexed Job's completions too")
            }
            return (index + 1, count)
        }
        return nil
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
