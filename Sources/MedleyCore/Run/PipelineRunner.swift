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

/// Runs the jobs of a pipeline: the export roots opened and locked, then each job's items through
/// the scheduler, each on the journey of `ItemJourney.swift`, and the job's manifest, playlist,
/// summary and report at its end.
public final class PipelineRunner: @unchecked Sendable {
    // @unchecked: per-run mutable state (counts, claimed outputs) is guarded by `lock`.
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
    /// Reports and manifests that could not be written (the run then exits 1).
    private var reportFailures = 0
    /// The export roots of the run's jobs, held open and locked while it runs (by `export.to`).
    var roots: [String: ExportRoot] = [:]
    /// The first full disk met: the run stops there.
    var diskFull: (exportRoot: String, reason: String)?
    private var waitingForLock = false

    public init(pipeline: Pipeline, options: RunOptions) throws {
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

    /// Stops taking new items (SIGINT/SIGTERM); in-flight items finish.
    public func stop() { scheduler.requestStop() }

    /// Whether the run is still blocked on another run's lock (`--wait`): nothing started yet.
    public var isWaitingForLock: Bool {
        lock.lock()
        defer { lock.unlock() }
        return waitingForLock
    }

    public func run() throws -> RunSummary {
        var summary = RunSummary()
        let jobs = pipeline.jobs.filter { options.onlyJob == nil || options.onlyJob == $0.name }
        defer {
            roots.values.forEach { $0.finish() }
            roots = [:]
        }
        if !options.dryRun { try openExportRoots(of: jobs) }
        for job in jobs {
            let counts = try run(job)
            summary.jobs.append((job.name, counts))
            summary.reportFailures = reportFailures
            if scheduler.isStopping {
                summary.diskFull = diskFull
                summary.interrupted = diskFull == nil
                break
            }
        }
        return summary
    }

    /// Opens every export root the run writes, before any job starts: each is locked against
    /// other runs (in one order, so two waiting runs cannot deadlock), its temporary area made
    /// and cleaned. A root that cannot be used stops the run here, with nothing written.
    func openExportRoots(of jobs: [Job]) throws {
        var byRealPath: [String: ExportRoot] = [:]
        for to in Set(jobs.compactMap { $0.export?.to }).sorted() {
            let root = try ExportRoot.open(to)
            if let same = byRealPath[root.root.realPath] {
                roots[to] = same
            } else {
                byRealPath[root.root.realPath] = root
                roots[to] = root
            }
        }
        let command = "run" + (options.shard.map { " --shard \($0.index)/\($0.count)" } ?? "")
        let ordered = byRealPath.sorted { $0.key < $1.key }.map(\.value)
        for root in ordered { try root.checkOwnFiles(runState: Sharding.runStateName(options.shard), shard: options.shard) }
        for root in ordered {
            try root.claim(shard: options.shard, wait: options.wait, command: command) { [self] message in
                lock.lock()
                waitingForLock = true
                lock.unlock()
                console.say(message)
            }
        }
        lock.lock()
        waitingForLock = false
        lock.unlock()
        for root in ordered { try root.prepareTemporaryArea(command: command) }
    }

    // MARK: one job

    /// How many failures the summary lists by name; a run over a million broken files must not
    /// hold a million reasons in memory (the manifest has them all).
    static let failuresListed = 1000

    private func run(_ job: Job) throws -> JobCounts {
        let context = try makeContext(job)
        emit(.jobStarted(job: job.name))
        if console.interactive && !options.quiet { countInBackground(job, context) }
        runItems(of: job, context)
        try writeOutputs(of: job, context)
        finishJob(context)
        return context.counts
    }

    /// A job's stages, export, manifest and run state, ready for its items.
    func makeContext(_ job: Job) throws -> JobContext {
        let image = try job.export.map { try ImageStage(job: job, export: $0) }
        let root = job.export.flatMap { roots[$0.to] }
        let manifest = try root.map { try ManifestWriter(root: $0, job: job.name, shard: options.shard) }
        let claims = OutputClaims()
        let exporter = job.export.map {
            Exporter(export: $0, job: job.name, output: AtomicOutput(root: root), claims: claims, memory: memory,
                     force: options.force, dryRun: options.dryRun)
        }
        let context = JobContext(job: job, image: image,
                                 audio: job.transcode.map { settings in
                                     var stage = AudioStage(settings: settings, metering: job.metering)
                                     stage.measuresLoudness = job.analyzesLoudness
                                     return stage
                                 },
                                 exporter: exporter, claims: claims, manifest: manifest)
        context.mover = job.ingest.afterwards.map(SourceMover.init)
        if let export = job.export {
            context.incremental = try IncrementalState.open(job, export: export, root: root, options: options)
        }
        return context
    }

    /// Takes every ingested file of the job through the scheduler, numbered from `first` in ingest
    /// order; returns the number after the last it gave.
    @discardableResult
    func runItems(of job: Job, _ context: JobContext, numberedFrom first: Int = 0) -> Int {
        let own = job.export.map { OwnOutputs(exportRoot: $0.to, ingestRoots: job.ingest.roots) }
        // Album mode: every album measured before any of its tracks is written (`AlbumPass.swift`).
        if let grouping = job.albumGrouping, context.audio != nil || job.tag != nil {
            let albums = measureAlbums(context, grouping: grouping, files: FileEnumerator(job.ingest.source).lazy.filter { result in
                guard case .success(let file) = result, let own else { return true }
                return !own.contains(file.path)
            })
            context.albums = albums
            context.incremental?.albums = albums
        }
        let files = FileEnumerator(job.ingest.source).lazy.filter { [options, albums = context.albums] result in
            let file: IngestedFile
            switch result {
            case .success(let found): file = found
            case .failure(let error):
                // What the walk could not list (a name that is not UTF-8, a folder it cannot read) is
                // reported by the one shard its path falls to, so every shard agrees and a merge finds it once.
                return Sharding.takes(error.subject, shard: options.shard)
            }
            if let own, own.contains(file.path) { return false }  // our own outputs
            // Sharded album mode: a track goes to the shard of its album.
            if let albums { return albums.takes(file) }
            return Sharding.takes(file.relativePath, shard: options.shard)
        }
        // Pulled on this thread only (the scheduler's loop), so the count needs no lock.
        var numbered = first
        // Numbered in ingest order: a contested output name goes to the earlier item (OutputClaims).
        scheduler.run(files.enumerated().lazy.map { element -> (Int, FileEnumerator.Element) in
            numbered = first + element.offset + 1
            return (first + element.offset, element.element)
        }) { [self] index, result in
            switch result {
            case .success(let file): self.process(file, context, index: index)
            case .failure(let error):
                context.claims.finish(input: "", index: index, keep: false)
                self.record(context, failed: ManifestRecord(job: job.name, item: "", input: "", status: .failed),
                            reason: error.description, cause: error)
            }
        }
        listMovedItems(context)
        return numbered
    }

    /// The job's manifest put in place, then its playlist, summary and report written from it.
    func writeOutputs(of job: Job, _ context: JobContext) throws {
        let manifest = context.manifest
        var manifestWritten = manifest != nil
        do {
            try manifest?.finish()
        } catch {
            // The run state keeps every finished item: the next run lists them all again.
            manifestWritten = false
            console.say("medley: \(error); the run state keeps every finished item, and the next run writes the manifest again", color: "31")
            countReportFailure()
        }
        context.incremental?.store?.checkpoint()
        let root = job.export.flatMap { roots[$0.to] }
        if let playlist = job.playlist, let manifest, let root, manifestWritten {
            try writePlaylist(playlist, manifest: manifest.realPath, root: root)
        }
        console.endProgress()
        let seconds = Date().timeIntervalSince(context.started)
        if job.export != nil, let manifest, let root {
            let summary = JobSummaryFile(job: job.name, counts: context.counts, started: context.started, seconds: seconds,
                                         shard: options.shard)
            summary.write(into: root, shard: options.shard)
            if let report = job.report, manifestWritten {
                writeReport(report, root: root, manifest: manifest.realPath, summary: summary, job: job)
            }
        }
    }

    /// The job's end: its jobFinished event and summary lines.
    func finishJob(_ context: JobContext) {
        let seconds = Date().timeIntervalSince(context.started)
        emit(.jobFinished(job: context.job.name, counts: context.counts, seconds: seconds))
        printSummary(context, seconds: seconds)
    }

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

    /// The job's HTML report. A shard knows only its share, so sharded runs leave it to `medley report`.
    private func writeReport(_ report: ReportStage, root: ExportRoot, manifest: String, summary: JobSummaryFile, job: Job) {
        guard options.shard == nil else {
            if !options.quiet { console.say("report: written by 'medley report' once every shard has run and 'medley merge' has merged them") }
            return
        }
        do {
            let page = try RunReport.write(job: job.name, root: root, manifestPath: manifest, stage: report, summary: summary)
            if !options.quiet { console.say("report \(page)") }
        } catch {
            console.say("report: cannot write the report of \(job.name): \(error)", color: "31")
            countReportFailure()
        }
    }

    /// The job's playlist from its finished manifest. A shard knows only its share, so sharded
    /// runs leave the playlist to `medley merge`.
    private func writePlaylist(_ playlist: PlaylistStage, manifest: String, root: ExportRoot) throws {
        guard options.shard == nil else {
            if !options.quiet { console.say("playlist \(playlist.to): written by 'medley merge' once every shard has run") }
            return
        }
        let count = try Playlist.write(playlist, manifestAt: manifest, root: root)
        if !options.quiet { console.say("playlist \(playlist.to): \(count) item\(count == 1 ? "" : "s")") }
    }

    /// Sends an event to `--events` (nothing without it).
    func emit(_ event: RunEvent) { events?.write(event) }

    /// On a terminal, counts the job's files on a background thread so progress can show an ETA
    /// (the real enumeration streams and only knows the total at the very end).
    func countInBackground(_ job: Job, _ context: JobContext) {
        Thread.detachNewThread { [lock] in
            var total = 0
            for result in FileEnumerator(job.ingest.source) {
                if case .success = result { total += 1 }
            }
            lock.lock()
            context.expected = total
            lock.unlock()
        }
    }
}
