import Foundation
import MedleyFilters
import MedleyMedia
import MedleyTags

/// One job's lifecycle — plan (`makeContext`), schedule (`runItems`: every item on its journey),
/// finish (`writeOutputs`, `finishJob`) — which `run` calls once per job and `medley watch` once per batch.
final class JobRunner: Sendable {
    let session: RunSession

    init(session: RunSession) {
        self.session = session
    }

    var options: RunOptions { session.options }
    var console: Console { session.console }

    /// Runs one job from its context to its summary; returns its counts.
    func run(_ job: Job) throws -> JobCounts {
        let context = try makeContext(job)
        session.emit(.jobStarted(job: job.name))
        if console.interactive && !options.quiet { countInBackground(job, context) }
        runItems(of: job, context)
        try writeOutputs(of: job, context)
        finishJob(context)
        return context.counts
    }

    /// A job's stages, export, manifest and run state, ready for its items.
    func makeContext(_ job: Job) throws -> JobContext {
        let image = try job.export.map {
            try ImageStage(job: job, export: $0, sources: { try RenderSources(graph: $0.imageGraph) },
                           overlay: { try $0.watermark.map(PreparedWatermark.init) })
        }
        let root = job.export.flatMap { session.roots[$0.to] }
        let manifest = try root.map { try ManifestWriter(root: $0, job: job.name, shard: options.shard) }
        let claims = OutputClaims()
        let exporter = job.export.map {
            Exporter(export: $0, job: job.name, output: AtomicOutput(root: root), claims: claims, memory: session.memory,
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
            let session = session, console = console
            let pass = AlbumPass(job: job, audio: context.audio, grouping: grouping, shard: options.shard, force: options.force,
                                 dryRun: options.dryRun, quiet: options.quiet, lookup: context.incremental?.lookup,
                                 store: context.incremental?.store,
                                 inParallel: { work in session.scheduler.run(work) { $0() } },
                                 say: { text, color in console.say(text, color: color) },
                                 measured: { album, reused in session.emit(.albumMeasured(job: job.name, album: album, reused: reused)) })
            let journey = ItemJourney(session: session, context: context)
            let albums = pass.run(files: FileEnumerator(job.ingest.source).lazy.filter { result in
                guard case .success(let file) = result, let own else { return true }
                return !own.contains(file.path)
            }, member: { file, index in journey.albumMember(file, index: index, grouping: grouping) })
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
        // `ingest.page: all`: each page of a PDF is an item; `transcode.segment`: each part of a recording
        // (all on the shard its file falls to).
        let items: AnySequence<FileEnumerator.Element> = job.ingest.everyPage || job.transcode?.segment != nil
            ? AnySequence(files.flatMap { ItemParts.items(of: $0, job: job) }) : AnySequence(files)
        // Pulled on this thread only (the scheduler's loop), so the count needs no lock.
        var numbered = first
        // Numbered in ingest order: a contested output name goes to the earlier item (OutputClaims).
        session.scheduler.run(items.enumerated().lazy.map { element -> (Int, FileEnumerator.Element) in
            numbered = first + element.offset + 1
            return (first + element.offset, element.element)
        }) { [session] index, result in
            switch result {
            case .success(let file): ItemJourney(session: session, context: context).run(file, index: index)
            case .failure(let error):
                context.claims.finish(input: "", index: index, keep: false)
                var entry = ManifestRecord(job: job.name, item: "", input: "", status: .failed)
                let outcome = ItemOutcome.failed(error, reason: error.description)
                entry.settle(outcome, finished: Date())
                OutcomeRecorder(session: session, context: context).record(outcome, entry)
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
            session.countReportFailure()
        }
        context.incremental?.store?.checkpoint()
        let root = job.export.flatMap { session.roots[$0.to] }
        if let playlist = job.playlist, let manifest, let root, manifestWritten {
            try writePlaylist(playlist, manifest: manifest.realPath, root: root)
        }
        if let sheet = job.contactSheet, let manifest, let root, manifestWritten, !options.dryRun {
            writeContactSheets(sheet, job: job.name, manifest: manifest.realPath, root: root)
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
        session.emit(.jobFinished(job: context.job.name, counts: context.counts, seconds: seconds))
        printSummary(context, seconds: seconds)
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
            session.countReportFailure()
        }
    }

    /// The job's contact sheets from its finished manifest (`ContactSheet/`). A shard knows only its
    /// share, so sharded runs leave the sheets to `medley merge`.
    private func writeContactSheets(_ stage: ContactSheetStage, job: String, manifest: String, root: ExportRoot) {
        guard options.shard == nil else {
            if !options.quiet { console.say("contact sheets: written by 'medley merge' once every shard has run") }
            return
        }
        let lines = ((try? String(contentsOfFile: manifest, encoding: .utf8)) ?? "").components(separatedBy: "\n")
        let summary = ContactSheet.write(stage, job: job, manifestLines: lines, root: root) { console.say($0) }
        if summary.failedSheets > 0 { session.countReportFailure() }
        if !options.quiet {
            console.say("contact sheets: \(summary.written) written, \(summary.unchanged) unchanged, \(summary.failedItems) item\(summary.failedItems == 1 ? "" : "s") left empty")
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

    /// On a terminal, counts the job's files on a background thread so progress can show an ETA
    /// (the real enumeration streams and only knows the total at the very end).
    func countInBackground(_ job: Job, _ context: JobContext) {
        Thread.detachNewThread { [lock = session.lock] in
            var total = 0
            for result in FileEnumerator(job.ingest.source) {
                if case .success = result { total += 1 }
            }
            lock.lock()
            context.expected = total
            lock.unlock()
        }
    }

    /// Before the job's manifest is finished: the items earlier runs moved aside (`ingest.afterwards.move`),
    /// listed from their rows (their outputs still in place), so the manifest, playlist and report cover them too.
    func listMovedItems(_ context: JobContext) {
        guard let mover = context.mover, let incremental = context.incremental, !options.dryRun else { return }
        let recorder = OutcomeRecorder(session: session, context: context)
        incremental.movedItems(except: mover.hasMoved) { line in recorder.append(line) }
    }

    /// The job's last lines: its counts, rate and bytes written, and its failures by name (the first `failuresListed`).
    func printSummary(_ context: JobContext, seconds: Double) {
        let c = context.counts
        let rate = seconds > 0 ? Double(c.done) / seconds : 0
        var line = "\(context.job.name): \(c.succeeded) succeeded, \(c.failed) failed, \(c.skipped) skipped"
        if options.dryRun {
            // Nothing succeeds in a dry run: say what a real run would do.
            let other = c.skipped - c.wouldWrite - c.unchanged
            line = "\(context.job.name): would write \(c.wouldWrite), unchanged \(c.unchanged)"
                + (other > 0 ? ", \(other) skipped" : "") + ", \(c.failed) failed"
        }
        if c.ignored > 0 { line += " (\(c.ignored) file\(c.ignored == 1 ? "" : "s") ignored: not media of the job's types)" }
        if c.excluded > 0 { line += " (\(c.excluded) left out by the job's media types or where)" }
        line += String(format: " in %.2f s, %.1f items/s", seconds, rate)
        if c.bytesWritten > 0, let to = context.job.export?.to { line += ", \(Console.bytes(c.bytesWritten)) written to \(to)" }
        if options.dryRun { line += " (dry run: nothing written)" }
        if c.failed == 0 {
            if !options.quiet { console.say(line) }
            return
        }
        console.say(line)
        console.say("\(context.job.name): \(c.failed) failed:", color: "31")
        for (input, reason) in context.failures.sorted(by: { $0.0 < $1.0 }) {
            console.say("  ✗ \(input.isEmpty ? "(ingest)" : input): \(reason)")
        }
        if c.failed > context.failures.count, let to = context.job.export?.to {
            console.say("  … and \(c.failed - context.failures.count) more: every failure is in \(to)/.medley/ (the job's manifest)")
        }
    }
}


/// One job while it runs: its stages, its export, its manifest and incremental state, and the
/// counts the console, events and summary show. Counts and failures are guarded by the runner's lock.
final class JobContext {
    /// The job as validated.
    let job: Job
    /// The filters and image encoder (nil without an export).
    let image: ImageStage?
    /// The transcode stage (nil without `transcode`).
    let audio: AudioStage?
    /// Naming, claims, skip policy and atomic output (nil without an export).
    let exporter: Exporter?
    /// The job's manifest being written (nil without an export, or in a dry run); `medley watch`
    /// starts a new one after each batch it puts in place.
    var manifest: ManifestWriter?
    /// What the last run did with each input (nil: no run state, or none yet).
    var incremental: IncrementalState?
    var counts = JobCounts()
    /// The first `OutcomeRecorder.failuresListed` failures, for the summary (the manifest has every one).
    var failures: [(String, String)] = []
    /// Which item has which output name.
    let claims: OutputClaims
    /// When the job started (its rate, ETA and summary).
    let started = Date()
    /// How many files the ingest holds, once a background count knows (for the progress ETA).
    var expected: Int?
    /// Album mode: each audio item's album and the album's loudness, from the album pass (nil
    /// when the job needs no album loudness).
    var albums: AlbumIndex?
    /// `ingest.afterwards.move`: moves each item's source aside once its output is in place (nil: none).
    var mover: SourceMover?

    init(job: Job, image: ImageStage?, audio: AudioStage?, exporter: Exporter?, claims: OutputClaims,
         manifest: ManifestWriter?) {
        self.job = job
        self.image = image
        self.audio = audio
        self.exporter = exporter
        self.claims = claims
        self.manifest = manifest
    }
}
