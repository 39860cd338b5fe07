import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyStore

/// How a run was asked for on the command line.
public struct RunOptions: Sendable {
    /// Items in flight at once.
    public var concurrency = ProcessInfo.processInfo.activeProcessorCount
    public var onlyJob: String?
    /// List what would be written; write nothing.
    public var dryRun = false
    /// Redo outputs that exist even under `overwrite: skip`.
    public var force = false
    /// This process's share: (k, n) with k counted from 1.
    public var shard: (index: Int, count: Int)?
    public var eventsPath: String?
    public var quiet = false
    /// Wait for another run holding an export root to finish, instead of stopping at once.
    public var wait = false
    public init() {}
}

/// Outcome of a whole run.
public struct RunSummary: Sendable {
    public var jobs: [(name: String, counts: JobCounts)] = []
    public var interrupted = false
    /// Reports and manifests that could not be written.
    public var reportFailures = 0
    /// Set when the run stopped because the disk holding an export root is full: that root and
    /// the system's words ("No space left on device", "Disk quota exceeded").
    public var diskFull: (exportRoot: String, reason: String)?
    public var failed: Int { jobs.reduce(0) { $0 + $1.counts.failed } + reportFailures }
    /// Items done (succeeded, failed or skipped) in every job.
    public var done: Int { jobs.reduce(0) { $0 + $1.counts.done } }
}

/// Runs the jobs of a pipeline: the export roots opened and locked (`RunSession`), then each job
/// through the `JobRunner` — its items through the scheduler, each on the journey of
/// `ItemJourney.swift`, and the job's manifest, playlist, summary and report at its end.
public final class PipelineRunner: Sendable {
    let session: RunSession
    let jobs: JobRunner

    public init(pipeline: Pipeline, options: RunOptions) throws {
        session = try RunSession(pipeline: pipeline, options: options)
        jobs = JobRunner(session: session)
    }

    /// Stops taking new items (SIGINT/SIGTERM); in-flight items finish.
    public func stop() { session.scheduler.requestStop() }

    /// Whether the run is still blocked on another run's lock (`--wait`): nothing started yet.
    public var isWaitingForLock: Bool { session.isWaitingForLock }

    /// Runs every job the options take, in order; stops after a stop request or a full disk.
    public func run() throws -> RunSummary {
        var summary = RunSummary()
        let jobs = session.jobs
        defer { session.closeExportRoots() }
        if !session.options.dryRun { try session.openExportRoots(of: jobs) }
        for job in jobs {
            let counts = try self.jobs.run(job)
            summary.jobs.append((job.name, counts))
            summary.reportFailures = session.currentReportFailures
            if session.scheduler.isStopping {
                summary.diskFull = session.diskFull
                summary.interrupted = summary.diskFull == nil
                break
            }
        }
        return summary
    }
}


/// What one `medley run` or `medley watch` holds for as long as it lasts, whatever job is running:
/// the pipeline and options, the export roots (opened and locked), the console, the event log, the
/// scheduler, libvips' workers per image, the memory budget, and the run's own failures (a full
/// disk, reports that could not be written).
final class RunSession: @unchecked Sendable {
    // @unchecked: the mutable state below is guarded by `lock`.
    let pipeline: Pipeline
    let options: RunOptions
    let console: Console
    let events: EventLog?
    let scheduler: Scheduler
    /// libvips' workers per image.
    let vipsThreads: Int
    /// What items may take under `ulimit -v` / `ulimit -d`; nil when memory is unlimited.
    let memory: MemoryBudget?
    let lock = NSLock()
    /// The export roots of the run's jobs, held open and locked while it runs (by `export.to`).
    private(set) var roots: [String: ExportRoot] = [:]
    /// Reports and manifests that could not be written (the run then exits 1).
    private var reportFailures = 0
    /// The first full disk met: the run stops there.
    private var fullDisk: (exportRoot: String, reason: String)?
    private var waitingForLock = false

    init(pipeline: Pipeline, options: RunOptions) throws {
        self.pipeline = pipeline
        self.options = options
        console = Console(quiet: options.quiet)
        events = try options.eventsPath.map { try EventLog(path: $0) }
        // No more items at once than the open-file limit allows (said once, on stderr).
        let (concurrency, note) = ResourceLimits.concurrency(requested: options.concurrency)
        if let note { console.say(note) }
        scheduler = Scheduler(concurrency: concurrency)
        // `--jobs` bounds the items in flight, not the cores: an image gets a libvips worker per core,
        // so that when fewer items than cores run (a lone big image, the tail of a batch) their workers
        // take the idle cores. A full batch oversubscribes the cores and the kernel shares them
        // (benchmarks/bench-cores.sh: two items of two workers on two cores cost no more CPU time).
        let perImage = Self.threadsPerImage(cores: ProcessInfo.processInfo.activeProcessorCount, jobs: concurrency)
        try Vips.setThreadsPerImage(perImage)
        vipsThreads = perImage
        // Under a memory limit, items are admitted against what it leaves (the scheduler's own threads'
        // stacks kept back); measured now that libvips is loaded.
        memory = ResourceLimits.memoryBudget(threads: concurrency + 4)
        if let memory, !options.quiet {
            console.say("medley: memory limit (\(memory.limit.flag)) of \(ResourceLimits.megabytes(memory.limit.bytes)): "
                        + "\(ResourceLimits.megabytes(memory.total)) of it for items, which wait their turn when they would not fit together")
        }
    }

    /// libvips' workers per image: one per core, but at most about four workers per core in all when
    /// `jobs` items run at once (many items of many workers each only add threads, stacks and regions).
    static func threadsPerImage(cores: Int, jobs: Int) -> Int {
        let cores = max(1, cores)
        return max(1, min(cores, 4 * cores / max(1, jobs)))
    }

    /// The pipeline's jobs this run takes (`--job`).
    var jobs: [Job] { pipeline.jobs.filter { options.onlyJob == nil || options.onlyJob == $0.name } }

    /// Whether the run is still blocked on another run's lock (`--wait`): nothing started yet.
    var isWaitingForLock: Bool {
        lock.lock()
        defer { lock.unlock() }
        return waitingForLock
    }

    /// The first full disk met, if any.
    var diskFull: (exportRoot: String, reason: String)? {
        lock.lock()
        defer { lock.unlock() }
        return fullDisk
    }

    /// Opens every export root the run writes, before any job starts: each is locked against
    /// other runs (in one order, so two waiting runs cannot deadlock), its temporary area made
    /// and cleaned. A root that cannot be used stops the run here, with nothing written.
    func openExportRoots(of jobs: [Job]) throws {
        let command = "run" + (options.shard.map { " --shard \($0.index)/\($0.count)" } ?? "")
        roots = try ExportRoot.openForRun(jobs.compactMap { $0.export?.to }, shard: options.shard, wait: options.wait,
                                          command: command) { [self] message in
            lock.lock()
            waitingForLock = message != nil
            lock.unlock()
            if let message { console.say(message) }
        }
    }

    /// Lets go of the export roots (their locks and this process's temporary files).
    func closeExportRoots() {
        roots.values.forEach { $0.finish() }
        roots = [:]
    }

    /// Sends an event to `--events` (nothing without it).
    func emit(_ event: RunEvent) { events?.write(event) }

    /// Reports and manifests that could not be written so far.
    var currentReportFailures: Int {
        lock.lock()
        defer { lock.unlock() }
        return reportFailures
    }

    /// A report or manifest that could not be written: an error of the run (exit 1), never of its items.
    func countReportFailure() {
        lock.lock()
        reportFailures += 1
        lock.unlock()
    }

    /// A failure caused by a full disk (by its errno or SQLite's code, never its words) stops the run
    /// after the items in flight: every item after it would fail the same way (and leave the disk
    /// fuller of temporary files).
    /// `job`: the job whose item or manifest failed (its export root is the one named as full).
    func noteFailure(_ error: Error, of job: Job) {
        guard let full = DiskFull.words(for: error) else { return }
        lock.lock()
        if fullDisk == nil { fullDisk = (job.export?.to ?? "", full) }
        lock.unlock()
        scheduler.requestStop()
    }
}
