import Foundation
import MedleyCore

enum RunCommand {
    static let help = """
        usage: medley run PIPELINE.yaml [options]

        Validates the pipeline, then runs its jobs over their ingested items.
          --jobs N            items processed at once (default: \(ProcessInfo.processInfo.activeProcessorCount), the number of cores)
          --only JOB          run only the job of that name
          --dry-run           list what would be written; write nothing
          --force             redo outputs that exist even with 'overwrite: skip'
          --shard K/N         process only share K of N (K from 1), split by a hash of each relative path;
                              also taken from JOB_COMPLETION_INDEX (Kubernetes) or SLURM_ARRAY_TASK_ID with
                              SLURM_ARRAY_TASK_COUNT (Slurm), whose indexes count from 0
          --events FILE       write JSON lines: jobStarted, itemStarted, itemFinished, itemSkipped, itemFailed, jobFinished
                              (FILE '-' is standard output; each line is written as its event happens)
          --quiet             hide progress and the success summary (errors and failures still show)
          --wait              when another medley run is writing to an export root of this run (the same
                              shard of it, or a whole-root run), wait for it to finish instead of stopping
          --set JOB.KEY=VALUE change one value of a job, e.g. --set sepia-photos.export.quality=90
        One run at a time writes an export root (or one shard of it): a second stops at once, naming the
        first (exit 2), unless --wait.
        Exit codes: 0 all items succeeded; 1 some items failed, or the run stopped early (a signal, a full
        disk); 2 invalid pipeline or options, or an export root that cannot be used (another run is writing
        to it, it cannot be written, a symbolic link where Medley keeps its files): nothing was run;
        3 internal error.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: ["--dry-run", "--force", "--quiet", "--wait"],
                                         valued: ["--jobs", "--only", "--shard", "--events", "--set"], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard parsed.positional.count == 1 else { throw UsageError("expected one pipeline file\n\n" + help) }
        var options = RunOptions()
        options.dryRun = parsed.flags.contains("--dry-run")
        options.force = parsed.flags.contains("--force")
        options.quiet = parsed.flags.contains("--quiet")
        options.wait = parsed.flags.contains("--wait")
        options.eventsPath = parsed.value("--events")
        options.onlyJob = parsed.value("--only")
        if let jobs = parsed.value("--jobs") {
            guard let n = Int(jobs), n >= 1 else { throw UsageError("--jobs takes a whole number ≥ 1, not '\(jobs)'") }
            options.concurrency = n
        }
        options.shard = try shard(parsed.value("--shard"))

        let pipeline: Pipeline
        do {
            pipeline = try PipelineReader.load(path: parsed.positional[0], overrides: parsed.values["--set"] ?? [])
        } catch let failure as ValidationFailure {
            printError(failure.description)
            printError("medley: \(failure.diagnostics.count) problem\(failure.diagnostics.count == 1 ? "" : "s") in \(parsed.positional[0]); nothing was run")
            return 2
        }
        if let only = options.onlyJob, !pipeline.jobs.contains(where: { $0.name == only }) {
            throw UsageError("--only \(only): no such job (jobs: \(pipeline.jobs.map(\.name).joined(separator: ", ")))")
        }

        let runner: PipelineRunner
        do {
            runner = try PipelineRunner(pipeline: pipeline, options: options)
        } catch let error as RunError {
            // --events FILE that cannot be written: nothing was run.
            printError("medley: \(error)")
            return 2
        }
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                // Still waiting for another run's lock: nothing has started, so there is nothing to finish.
                if runner.isWaitingForLock {
                    printError("medley: stopped while waiting for the export root (signal \(number)); nothing was run")
                    exit(1)
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
            return 1
        }
        return summary.failed > 0 ? 1 : 0
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
        // Slurm numbers tasks as the --array range says (0-3 or 1-4): count from its minimum.
        if let id = environment["SLURM_ARRAY_TASK_ID"].flatMap(Int.init),
           let count = environment["SLURM_ARRAY_TASK_COUNT"].flatMap(Int.init), count >= 1 {
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
    static let help = """
        usage: medley validate PIPELINE.yaml [--set JOB.KEY=VALUE]

        Parses and checks the whole pipeline — keys, filter names and parameters, paths, templates —
        and prints every problem as FILE:LINE:COL. Runs nothing, writes nothing. Exit 0 if valid, 2 if not.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: [], valued: ["--set"], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard parsed.positional.count == 1 else { throw UsageError("expected one pipeline file\n\n" + help) }
        do {
            let pipeline = try PipelineReader.load(path: parsed.positional[0], overrides: parsed.values["--set"] ?? [])
            printError("\(parsed.positional[0]): valid (\(pipeline.jobs.count) job\(pipeline.jobs.count == 1 ? "" : "s"): \(pipeline.jobs.map(\.name).joined(separator: ", ")))")
            return 0
        } catch let failure as ValidationFailure {
            printError(failure.description)
            printError("medley: \(failure.diagnostics.count) problem\(failure.diagnostics.count == 1 ? "" : "s") in \(parsed.positional[0])")
            return 2
        }
    }
}
