import Foundation
import MedleySystem

/// `medley watch` as the command line starts it (the runner's public face; the watch itself is `WatchSession`).
extension PipelineRunner {
    /// Why a pipeline cannot be watched (said before anything runs).
    public static func watchRefusal(_ pipeline: Pipeline, options: RunOptions) -> String? {
        WatchSession.refusal(pipeline, options: options)
    }

    /// The catch-up pass, then batches of arrivals until `stop()`; returns the jobs' counts since the watch began.
    public func watch(_ settings: WatchSettings) throws -> RunSummary {
        try WatchSession(jobs: jobs).run(settings)
    }
}

/// `medley watch`: the pipeline's jobs run over what is there, as `run` does (incrementally), then
/// over each file that arrives in their ingest roots once it is complete — in batches of what is
/// complete at once, each item on the same journey as in `run` (atomic output, run state
/// committed per item, its own failure). After batches, once nothing has been due for `quiet`
/// seconds (or every `refreshEvery` seconds during a long burst), each job's manifest, playlist, summary and report
/// are written again. The export roots stay locked for the whole watch. `stop()` (SIGINT,
/// SIGTERM) ends it after the items in flight, with the outputs written. It drives the run's
/// `JobRunner` (plan, schedule, finish) per batch.
struct WatchSession {
    let jobs: JobRunner

    private var session: RunSession { jobs.session }
    private var options: RunOptions { session.options }
    private var console: Console { session.console }
    private var scheduler: Scheduler { session.scheduler }

    /// What a job keeps between batches.
    private final class WatchedJob {
        let context: JobContext
        let filter: ArrivalFilter
        /// The next item's number in ingest order (claims are settled in that order).
        var next: Int
        /// Inputs done since the manifest was last put in place: their old lines are left out of the next one.
        var redone: Set<String> = []
        /// Whether a walk of every root replaced the whole manifest since then.
        var rewalked = false
        /// Whether anything was done since the outputs were last written.
        var changed = false

        init(context: JobContext, filter: ArrivalFilter, next: Int) {
            self.context = context
            self.filter = filter
            self.next = next
        }
    }

    /// Why a pipeline cannot be watched (said before anything runs).
    static func refusal(_ pipeline: Pipeline, options: RunOptions) -> String? {
        let jobs = pipeline.jobs.filter { options.onlyJob == nil || options.onlyJob == $0.name }
        if let job = jobs.first(where: { $0.albumGrouping != nil && ($0.transcode != nil || $0.tag != nil) }) {
            return "job \(job.name) measures album loudness, which needs every track of an album at once; "
                + "run it with 'medley run' when an album is complete"
        }
        if let job = jobs.first(where: { $0.export == nil }) {
            return "job \(job.name) has no export stage: a watch keeps its run state and outputs in an export root"
        }
        return nil
    }

    /// Runs the catch-up pass, then watches until `stop()`; returns the jobs' counts since the watch began.
    func run(_ settings: WatchSettings) throws -> RunSummary {
        var summary = RunSummary()
        let jobs = session.jobs
        defer { session.closeExportRoots() }
        try session.openExportRoots(of: jobs)
        // Watches first, then the catch-up pass: a file that arrives meanwhile is seen by one or both
        // (twice is harmless: the second finds it unchanged).
        let filters = jobs.map { ArrivalFilter(job: $0, shard: options.shard) }
        let watcher: FolderWatcher
        do {
            watcher = try FolderWatcher(filters: filters, settle: settings.settle)
        } catch {
            // No inotify instance (fs.inotify.max_user_instances reached, or not Linux): nothing was run.
            throw RunError.cannotStart("cannot watch folders: \(error)")
        }
        watcher.start()
        defer { watcher.stop() }
        sayWatchWarnings(watcher)

        var watched: [WatchedJob] = []
        for (job, filter) in zip(jobs, filters) {
            let context = try self.jobs.makeContext(job)
            session.emit(.jobStarted(job: job.name))
            let next = self.jobs.runItems(of: job, context)
            let state = WatchedJob(context: context, filter: filter, next: next)
            state.rewalked = true
            watched.append(state)
            if scheduler.isStopping { break }
        }
        for state in watched { refresh(state) }

        if !scheduler.isStopping {
            session.emit(.watchStarted(jobs: jobs.map(\.name), folders: watcher.folderCount, settleSeconds: settings.settle))
            if !options.quiet {
                console.say("watching \(watcher.folderCount) folder\(watcher.folderCount == 1 ? "" : "s") of "
                            + "\(jobs.map(\.name).joined(separator: ", ")) (settle \(settings.settle) s); stop with Ctrl-C or SIGTERM")
            }
            loop(watched, watcher, settings)
        }
        for state in watched {
            if state.changed { refresh(state) }
            self.jobs.finishJob(state.context)
            summary.jobs.append((state.context.job.name, state.context.counts))
        }
        summary.reportFailures = session.currentReportFailures
        summary.diskFull = session.diskFull
        return summary
    }

    /// Batches until stopped: what is complete goes through each job that takes it; outputs are
    /// written again once nothing more has been due for `quiet` seconds (a trickle of files is one
    /// batch), or every `refreshEvery` seconds during a burst.
    private func loop(_ watched: [WatchedJob], _ watcher: FolderWatcher, _ settings: WatchSettings) {
        var lastRefresh = FolderWatcher.now(), lastBatch = FolderWatcher.now()
        while !scheduler.isStopping {
            sayWatchWarnings(watcher)
            let busy = watched.contains(where: \.changed)
            let quietLeft = settings.quiet - (FolderWatcher.now() - lastBatch)
            switch watcher.next(waiting: busy ? min(0.25, max(0, quietLeft)) : 0.25) {
            case .nothing:
                if busy && FolderWatcher.now() - lastBatch >= settings.quiet {
                    // The queue drained: the batches' outputs are written now.
                    for state in watched where state.changed { refresh(state) }
                    lastRefresh = FolderWatcher.now()
                }
            case .rescan(let reason):
                session.emit(.watchRescan(reason: reason))
                console.say("medley: \(reason); walking the ingest roots again (unchanged files are skipped)")
                // What the batches did is put in place first: the walk then writes a whole manifest of its own.
                for state in watched where state.changed { refresh(state) }
                for state in watched where !scheduler.isStopping {
                    let before = state.next
                    state.next = jobs.runItems(of: state.context.job, state.context, numberedFrom: state.next)
                    state.rewalked = true
                    state.changed = true
                    lastBatch = FolderWatcher.now()
                    session.emit(.batchFinished(job: state.context.job.name, items: state.next - before, counts: counts(state)))
                }
            case .files(let paths):
                for state in watched where !scheduler.isStopping {
                    let files = paths.compactMap(state.filter.file(at:))
                    guard !files.isEmpty else { continue }
                    run(batch: files, state)
                    session.emit(.batchFinished(job: state.context.job.name, items: files.count, counts: counts(state)))
                }
                lastBatch = FolderWatcher.now()
                if FolderWatcher.now() - lastRefresh >= settings.refreshEvery {
                    for state in watched where state.changed { refresh(state) }
                    lastRefresh = FolderWatcher.now()
                }
            }
        }
    }

    /// One batch of a job's arrivals through the scheduler, numbered on in ingest order.
    private func run(batch arrivals: [IngestedFile], _ state: WatchedJob) {
        // Each page of an arriving PDF (`ingest.page: all`), each part of a recording (`transcode.segment`)
        // is an item, as in the catch-up pass.
        let files = ItemParts.items(of: arrivals, job: state.context.job)
        let first = state.next
        state.next += files.count
        state.changed = true
        state.redone.formUnion(files.map(\.path))
        let context = state.context
        scheduler.run(files.enumerated()) { [session] offset, file in
            ItemJourney(session: session, context: context).run(file, index: first + offset)
        }
    }

    /// Puts the job's manifest in place — this batch's lines, then the last manifest's lines of inputs
    /// not done again and still there — writes its playlist, summary and report from it, and starts
    /// the next batch's manifest.
    private func refresh(_ state: WatchedJob) {
        let context = state.context, job = context.job
        if let manifest = context.manifest, !state.rewalked {
            carryLines(from: manifest.realPath, into: manifest, leaving: state.redone)
        }
        do {
            try jobs.writeOutputs(of: job, context)
        } catch {
            console.say("medley: \(error)", color: "31")
            session.countReportFailure()
        }
        state.redone = []
        state.rewalked = false
        state.changed = false
        session.emit(.outputsRefreshed(job: job.name, counts: counts(state)))
        if let to = job.export?.to, let root = session.roots[to] {
            do {
                context.manifest = try ManifestWriter(root: root, job: job.name, shard: options.shard)
            } catch {
                context.manifest = nil
                console.say("medley: \(error); the run state keeps every item, and the next run writes the manifest again", color: "31")
                session.countReportFailure()
            }
        }
    }

    /// The last manifest's lines whose input was not done again in this batch and is still there.
    private func carryLines(from path: String, into manifest: ManifestWriter, leaving redone: Set<String>) {
        guard let data = FileManager.default.contents(atPath: path) else { return }
        // Lines found by their bytes in an array (a manifest is UTF-8, a record a line: walking it by
        // Characters, or splitting `Data`, cost most of a refresh), and only each line's input read,
        // where Medley writes it — the record is decoded only when it is not there.
        let text = [UInt8](data)
        let decoder = JSONDecoder()
        var start = 0
        while start < text.count {
            let end = text[start...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
            let bytes = text[start..<end]
            start = end + 1
            guard !bytes.isEmpty, let input = ManifestRecord.input(ofLine: bytes)
                    ?? (try? decoder.decode(ManifestInput.self, from: Data(bytes)))?.input else { continue }
            if !input.isEmpty {
                if redone.contains(input) { continue }
                if !FileSystem.exists(input) { continue }  // deleted or moved away since: as a new run would
            }
            manifest.append(line: String(decoding: bytes, as: UTF8.self))
        }
    }

    private func counts(_ state: WatchedJob) -> JobCounts {
        session.lock.lock()
        defer { session.lock.unlock() }
        return state.context.counts
    }

    private func sayWatchWarnings(_ watcher: FolderWatcher) {
        for warning in watcher.takeWarnings() { console.say("warn  \(warning)") }
    }
}

/// The one field of a manifest line a refresh reads (the rest is carried as it was written).
private struct ManifestInput: Decodable {
    let input: String?
}
