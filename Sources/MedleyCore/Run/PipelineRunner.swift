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

/// Runs the jobs of a pipeline. `process(_:)` is the one place where an item's journey —
/// ingest → filters → export — reads top to bottom.
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
    private let lock = NSLock()
    /// Reports and manifests that could not be written (the run then exits 1).
    private var reportFailures = 0
    /// The export roots of the run's jobs, held open and locked while it runs (by `export.to`).
    private var roots: [String: ExportRoot] = [:]
    /// The first full disk met: the run stops there.
    private var diskFull: (exportRoot: String, reason: String)?
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
        // Items already run in parallel: give each image fewer libvips threads so the cores
        // are not oversubscribed (libvips still overlaps decode, kernels and encode).
        let perImage = max(1, ProcessInfo.processInfo.activeProcessorCount / concurrency)
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
    private func openExportRoots(of jobs: [Job]) throws {
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
        for root in ordered { try root.checkOwnFiles(runState: Self.runStateName(options.shard), shard: options.shard) }
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

    /// `state.sqlite`, or `state-shard-K-of-N.sqlite` for one shard (so shards on shared storage
    /// never write the same database).
    static func runStateName(_ shard: (index: Int, count: Int)?) -> String {
        "state" + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".sqlite"
    }

    // MARK: one job

    /// State of one job while it runs.
    private final class JobState {
        let job: Job
        let stage: ImageStage?
        let audio: AudioStage?
        let output: AtomicOutput?
        let manifest: ManifestWriter?
        /// The run state of the export root: `runState` records (nil in a dry run), `lookup` answers
        /// what the last run did with an input, one indexed query per item.
        var runState: RunState?
        var lookup: RunState?
        var settingsHash = (image: "", audio: "")
        var counts = JobCounts()
        /// The first `failuresListed` failures, for the summary (the manifest has every one).
        var failures: [(String, String)] = []
        let claims = OutputClaims()
        let started = Date()
        var expected: Int?
        init(job: Job, stage: ImageStage?, audio: AudioStage?, output: AtomicOutput?, manifest: ManifestWriter?) {
            self.job = job
            self.stage = stage
            self.audio = audio
            self.output = output
            self.manifest = manifest
        }
    }

    private func run(_ job: Job) throws -> JobCounts {
        let stage = try job.export.map { try ImageStage(job: job, export: $0) }
        let root = job.export.flatMap { roots[$0.to] }
        let output = job.export.map { _ in AtomicOutput(root: root) }
        let manifest = try root.map { try ManifestWriter(root: $0, job: job.name, shard: options.shard) }
        let audio = job.transcode.map { AudioStage(settings: $0, metering: job.metering) }
        let state = JobState(job: job, stage: stage, audio: audio, output: output, manifest: manifest)
        if let export = job.export { try openRunState(export, root: root, state) }
        emit(.jobStarted(job: job.name))
        if console.interactive && !options.quiet { countInBackground(job, state) }

        let own = job.export.map { OwnOutputs(exportRoot: $0.to, ingestRoots: job.ingest.roots) }
        let files = FileEnumerator(job.ingest.source).lazy.filter { [options] result in
            guard case .success(let file) = result else { return true }
            if let own, own.contains(file.path) { return false }  // our own outputs
            guard let (k, n) = options.shard else { return true }
            return Int(Self.stableHash(file.relativePath) % UInt64(n)) == k - 1
        }
        // Numbered in ingest order: a contested output name goes to the earlier item (OutputClaims).
        scheduler.run(files.enumerated()) { [self] index, result in
            switch result {
            case .success(let file): self.process(file, state, index: index)
            case .failure(let error):
                state.claims.finish(input: "", index: index, keep: false)
                self.record(state, failed: ManifestRecord(job: job.name, item: "", input: "", status: .failed),
                            reason: error.description)
            }
        }
        var manifestWritten = manifest != nil
        do {
            try manifest?.finish()
        } catch {
            // The run state keeps every finished item: the next run lists them all again.
            manifestWritten = false
            console.say("medley: \(error); the run state keeps every finished item, and the next run writes the manifest again", color: "31")
            lock.lock()
            reportFailures += 1
            lock.unlock()
        }
        state.runState?.checkpoint()
        if let playlist = job.playlist, let manifest, let root, manifestWritten {
            try writePlaylist(playlist, manifest: manifest.realPath, root: root)
        }
        console.endProgress()
        let seconds = Date().timeIntervalSince(state.started)
        if let export = job.export, let manifest, let root {
            let summary = writeSummary(state, export: export, root: root, seconds: seconds)
            if let report = job.report, manifestWritten {
                writeReport(report, export: export, root: root, manifest: manifest.realPath, summary: summary, state)
            }
        }
        emit(.jobFinished(job: job.name, counts: state.counts, seconds: seconds))
        printSummary(state, seconds: seconds)
        return state.counts
    }

    /// `<to>/.medley/summary-<job>.json`: the counts and wall time the report shows.
    private func writeSummary(_ state: JobState, export: ExportStage, root: ExportRoot, seconds: Double) -> JobSummaryFile {
        let c = state.counts
        let summary = JobSummaryFile(job: state.job.name, started: state.started.formatted(.iso8601), seconds: seconds,
                                     succeeded: c.succeeded, failed: c.failed, skipped: c.skipped, excluded: c.excluded,
                                     ignored: c.ignored, bytesWritten: c.bytesWritten,
                                     shard: options.shard.map { "\($0.index)/\($0.count)" })
        let name = JobSummaryFile.fileName(job: state.job.name, shard: options.shard)
        if let data = try? JSONEncoder().encode(summary) { try? root.writeOwnFile(name, [UInt8](data)) }
        return summary
    }

    /// The job's HTML report; a report that cannot be written is an error of the run (exit 1),
    /// never of its items.
    private func writeReport(_ report: ReportStage, export: ExportStage, root: ExportRoot, manifest: String,
                             summary: JobSummaryFile, _ state: JobState) {
        guard options.shard == nil else {
            if !options.quiet { console.say("report: written by 'medley report' once every shard has run and 'medley merge' has merged them") }
            return
        }
        do {
            let page = try RunReport.write(job: state.job.name, root: root, manifestPath: manifest,
                                           stage: report, summary: summary)
            if !options.quiet { console.say("report \(page)") }
        } catch {
            console.say("report: cannot write the report of \(state.job.name): \(error)", color: "31")
            lock.lock()
            reportFailures += 1
            lock.unlock()
        }
    }

    /// The job's playlist from its finished manifest. A shard knows only its share, so sharded
    /// runs leave the playlist to `medley merge`.
    private func writePlaylist(_ playlist: PlaylistStage, manifest: String, root: ExportRoot) throws {
        guard options.shard == nil else {
            if !options.quiet { console.say("playlist \(playlist.to): written by 'medley merge' once every shard has run") }
            return
        }
        let lines = try String(contentsOfFile: manifest, encoding: .utf8).components(separatedBy: "\n")
        let count = try Playlist.write(playlist, manifestLines: lines, root: root)
        if !options.quiet { console.say("playlist \(playlist.to): \(count) item\(count == 1 ? "" : "s")") }
    }

    /// One item's journey: what is it, does the job want it (media type, `where`), `tag`, then
    /// its image or audio path.
    private func process(_ file: IngestedFile, _ state: JobState, index: Int) {
        let job = state.job
        let started = Date()
        var announced = false
        var entry = ManifestRecord(job: job.name, item: file.relativePath, input: file.path, status: .failed)
        // A failed item releases its output name to the next item that wants it.
        var keepsClaim = false
        state.claims.begin(input: file.path, index: index)
        defer { state.claims.finish(input: file.path, index: index, keep: keepsClaim) }
        if let row = previousRow(file, state), let reason = unchanged(row, file, state), stillSelected(row, state) {
            keepsClaim = record(state, unchanged: row, file: file, reason: reason)
            return
        }
        // Every reader of the item reads this one open file, checked to lie under the ingest root; it is closed
        // when the item ends.
        var input: InputFile?
        defer { input?.close() }
        do {
            try ResourceLimits.checkDescriptors()
            let opened = try InputFile.open(file)
            input = opened
            let file = opened.file
            // ingest: what is it, and could this job want it?
            guard let sniffed = try Self.identify(file, reading: opened) else {
                return record(state, ignored: entry, reason: "not an image, audio or movie file")
            }
            guard job.ingest.media.contains(where: { $0.selects(sniffed.kind) }) else {
                let wanted = job.ingest.media.map(\.rawValue).joined(separator: ", ")
                return record(state, ignored: entry, reason: "\(sniffed.format) \(sniffed.kind), not of the job's media types (\(wanted))")
            }
            let announce = { [self] in
                emit(.itemStarted(job: job.name, input: file.path))
                announced = true
            }
            guard let export = job.export, let output = state.output else {
                throw ItemFailure("the job has no export stage")
            }
            let item = Item(file: file, source: opened.readPath, sniffed: sniffed,
                            persistentID: try Self.persistentID(of: opened))
            entry.persistentID = ContentHash.hex(item.persistentID)
            switch sniffed.kind {
            case .image: try processImage(item, export: export, output: output, state, &entry, announce: announce)
            case .audio: try processAudio(item, export: export, output: output, state, &entry, announce: announce)
            case .movie: try processMovie(item, export: export, output: output, state, &entry, announce: announce)
            }
            keepsClaim = true
            if entry.status == .skipped {
                record(state, skipped: entry)
            } else {
                entry.status = .succeeded
                remember(&entry, file, state)
                record(state, finished: entry, milliseconds: Date().timeIntervalSince(started) * 1000)
            }
        } catch let reason as NotSelected {
            entry.status = .excluded
            entry.error = reason.reason
            entry.output = nil
            record(state, excluded: entry)
        } catch {
            // A file that failed before it was identified still gets its itemStarted, so every
            // itemFailed in the event stream has one.
            if !announced { emit(.itemStarted(job: job.name, input: file.path)) }
            entry.status = .failed
            let reason = input?.describing("\(error)") ?? "\(error)"
            record(state, failed: entry, reason: reason, milliseconds: Date().timeIntervalSince(started) * 1000)
        }
    }

    /// An item the job's media types or `where` leave out (not an error).
    private struct NotSelected: Error {
        let reason: String
    }

    /// `where` (on the properties as read), then `tag` (from_path, set) on what passes; returns
    /// the item's warnings (a path that does not fit `from_path`).
    private func select(_ properties: inout [(name: String, value: TemplateValue)], _ item: Item, mediaType: String,
                        _ state: JobState) throws -> [String] {
        let job = state.job
        guard job.ingest.media.contains(where: { $0.selects(mediaType: mediaType) }) else {
            throw NotSelected(reason: "\(mediaType) is not among the job's media types")
        }
        let values = properties
        if let clause = job.where, !clause.matches({ name in values.first { $0.name == name }?.value }) {
            throw NotSelected(reason: "not selected by where")
        }
        return try job.tag?.apply(to: &properties, relativePath: item.file.relativePath) ?? []
    }

    // MARK: incremental runs

    /// Opens the run state in `<to>/.medley/` (`runStateName`) and loads what it knows of this
    /// job. A dry run only reads it, and only if it is there. Its files must be regular files in
    /// the real `.medley` folder (`ExportRoot.checkRunState`), and SQLite opens it by a path
    /// without links.
    private func openRunState(_ export: ExportStage, root: ExportRoot?, _ state: JobState) throws {
        let name = Self.runStateName(options.shard)
        guard let folder = try root?.medley ?? ExportRoot.inspect(export.to) else { return }
        if options.dryRun && folder.kind(of: name) == nil { return }
        try ExportRoot.checkRunState(named: name, in: folder, root: export.to)
        let path = folder.child(name)
        do {
            do {
                let store = try RunState(path: folder.realPath + "/" + name, readOnly: options.dryRun)
                // Read once now: SQLite opens lazily, and a WAL database it cannot read (no -shm on a
                // read-only file system) must be found here, not item by item.
                _ = try store.row(job: state.job.name, input: "")
                state.lookup = store
                state.runState = options.dryRun ? nil : store
            } catch let error as StateError where options.dryRun {
                // A dry run on a read-only file system: no one can change the database there, and
                // SQLite cannot create the -shm file it otherwise reads a WAL database through.
                var info = statvfs()
                guard fstatvfs(folder.descriptor, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 else { throw error }
                state.lookup = try RunState(path: folder.realPath + "/" + name, immutable: true)
            }
        } catch let error as StateError {
            throw RunError.cannotStart("cannot use the run state \(path): \(error.description)")
        }
        state.settingsHash = (ContentHash.hex(ContentHash.of(text: state.job.settings.image)),
                              ContentHash.hex(ContentHash.of(text: state.job.settings.audio)))
    }

    /// How many failures the summary lists by name; a run over a million broken files must not
    /// hold a million reasons in memory (the manifest has them all).
    static let failuresListed = 1000

    /// What the last run recorded for this input, or nil (none, or the run state cannot be read:
    /// then the item is simply done again).
    private func previousRow(_ file: IngestedFile, _ state: JobState) -> StateRow? {
        guard let lookup = state.lookup else { return nil }
        return try? lookup.row(job: state.job.name, input: file.path)
    }

    /// Why an item needs no work (its input, the settings for its kind and its output are as the
    /// last run left them), or nil. Size and modification time decide first; when only the time
    /// changed, the content hash does.
    private func unchanged(_ row: StateRow, _ file: IngestedFile, _ state: JobState) -> String? {
        guard !options.force, row.status == "succeeded", let output = row.output else { return nil }
        let settings = Self.settingsHash(kind: row.kind, state)
        guard row.settingsHash == settings, row.size == file.size else { return nil }
        // The output itself, not a link put in its place.
        var info = stat()
        guard lstat(output, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == row.outputSize else { return nil }
        if row.modifiedNanoseconds != Self.nanoseconds(file.modified) {
            guard let opened = try? InputFile.open(file), let hash = try? ContentHash.of(descriptor: opened.descriptor),
                  ContentHash.hex(hash) == row.contentHash else { return nil }
            // Same bytes, newer time (a touch, a copy): remember the time so the next run need not hash.
            var touched = row
            touched.modifiedNanoseconds = Self.nanoseconds(file.modified)
            try? state.runState?.save(job: state.job.name, touched)
        }
        return "unchanged since the last run"
    }

    /// Whether the job's media types and `where` still select an unchanged item, judged on the
    /// properties its last run recorded (the input is the same, so they are too). A changed
    /// `where` thus leaves out what it now excludes without redoing what it still selects.
    private func stillSelected(_ row: StateRow, _ state: JobState) -> Bool {
        let job = state.job
        // The common case needs no look at the record: no where, and media types that take every
        // item of the row's kind.
        if job.where == nil {
            let kinds = row.kind == "audio" ? ["music", "podcast", "audioBook"] : [row.kind]
            if kinds.allSatisfy({ kind in job.ingest.media.contains { $0.selects(mediaType: kind) } }) { return true }
        }
        guard let record = try? JSONSerialization.jsonObject(with: Data(row.record.utf8)) as? [String: Any] else { return false }
        let mediaType = record["mediaType"] as? String ?? ""
        guard job.ingest.media.contains(where: { $0.selects(mediaType: mediaType) }) else { return false }
        guard let clause = job.where else { return true }
        // The record holds properties after the tag stage; where reads them before it. When the
        // two touch the same property, only a fresh look decides.
        let tagged = Set((job.tag?.assignments.map(\.property) ?? []) + (job.tag?.fromPath?.properties ?? []))
        guard tagged.isDisjoint(with: clause.propertyNames) else { return false }
        let properties = record["properties"] as? [String: Any] ?? [:]
        return clause.matches { name in
            switch properties[name] {
            case let text as String: return .text(text)
            case let number as NSNumber:
                let value = number.doubleValue
                return value == value.rounded() && abs(value) < 1e15 ? .integer(Int(value)) : .number(value)
            default: return nil
            }
        }
    }

    /// Records a finished item in the run state (after its output is in place: a crash between
    /// the two only means the item is done again).
    private func remember(_ entry: inout ManifestRecord, _ file: IngestedFile, _ state: JobState) {
        guard let store = state.runState, let output = entry.output else { return }
        let row = StateRow(input: file.path, size: file.size, modifiedNanoseconds: Self.nanoseconds(file.modified),
                           contentHash: entry.persistentID ?? "", kind: Self.stateKind(entry.mediaType),
                           settingsHash: Self.settingsHash(kind: Self.stateKind(entry.mediaType), state),
                           status: "succeeded", output: output, outputSize: entry.bytes, record: entry.json.rendered())
        do {
            try store.save(job: state.job.name, row)
        } catch {
            // The output is in place and right; only the memory of it is missing, so the next run
            // does the item again.
            entry.warnings.append("not recorded in the run state (\(error)); the next run does it again")
            noteFailure("\(error)", state)
        }
    }

    /// Which settings shape an item's output: image, audio, or for a movie both (its poster goes
    /// through the image settings, its re-encode through the transcode settings).
    static func stateKind(_ mediaType: String?) -> String {
        switch mediaType {
        case "image": return "image"
        case "movie": return "movie"
        default: return "audio"
        }
    }

    private static func settingsHash(kind: String, _ state: JobState) -> String {
        switch kind {
        case "image": return state.settingsHash.image
        case "movie": return state.settingsHash.image + state.settingsHash.audio
        default: return state.settingsHash.audio
        }
    }

    /// A modification time in nanoseconds since 1970, held inside Int64 (±292 years): a file dated after 2262
    /// (`touch -d 2300-01-01`) is any file's right, not a reason to stop.
    static func nanoseconds(_ date: Date) -> Int64 {
        Int64(Int(saturating: date.timeIntervalSince1970 * 1e9, in: Int(Int64.min)...Int(Int64.max)))
    }

    /// An ingested file once it is known to be media the job wants.
    private struct Item {
        let file: IngestedFile
        /// What decoders open: the item's checked open file (`InputFile.readPath`), never `file.path`.
        let source: String
        let sniffed: SniffedFormat
        let persistentID: UInt64
    }

    /// The XXH3 hash of the file's bytes (SPEC §4: stable across runs and machines), read from the open file
    /// the decoders read.
    static func persistentID(of input: InputFile) throws -> UInt64 {
        do {
            return try ContentHash.of(descriptor: input.descriptor)
        } catch let error as MediaError {
            throw ItemFailure(error.reason)
        }
    }

    /// Image: header → properties → where, tag → destination → filters and encoding, written atomically.
    private func processImage(_ item: Item, export: ExportStage, output: AtomicOutput, _ state: JobState,
                              _ entry: inout ManifestRecord, announce: () -> Void) throws {
        let file = item.file
        entry.mediaType = "image"
        guard let stage = state.stage else { throw ItemFailure("the job has no image stage") }
        var messages = LibraryMessages()
        let header = try stage.openHeader(item.source, messages: &messages)
        var properties = ImageProperties(file: file, persistentID: item.persistentID, image: header,
                                         format: item.sniffed.format)
        entry.warnings += try select(&properties.values, item, mediaType: "image", state)
        announce()
        entry.properties = properties.values
        let format = stage.outputFormat(for: header)
        let destination = try self.destination(export, state, file, ext: format.fileExtension) { properties[$0] }
        entry.output = destination
        if let skip = try skipReason(destination, export, file, state) {
            entry.status = .skipped
            entry.error = skip
            return
        }
        var warnings: [String] = []
        try withMemory(stage.workingMemory(header, threads: vipsThreads)) {
            entry.bytes = try output.write(to: destination, fileExtension: format.fileExtension) { temporary in
                warnings = try stage.render(item.source, header: header, format: format, to: temporary, messages: &messages)
            }
        }
        entry.warnings += warnings + messages.lines
    }

    /// Runs `body` once `bytes` of the memory budget are this item's (at once when memory is unlimited).
    private func withMemory(_ bytes: Int, _ body: () throws -> Void) throws {
        guard let memory else { return try body() }
        try memory.acquire(bytes)
        defer { memory.release(bytes) }
        try body()
    }

    /// Audio streams in 4096-frame blocks: its buffers, the resampler's banks and the encoder's state.
    static let audioWorkingMemory = 48 << 20

    /// A movie item's decoder, frames and (for a re-encode) x264's lookahead, by its picture size.
    static func movieWorkingMemory(_ info: MovieInfo, transcode: Bool) -> Int {
        let pixels = Double(max(0, info.width)) * Double(max(0, info.height))
        let bytes = transcode ? pixels * 120 + Double(96 << 20) : pixels * 40 + Double(48 << 20)
        return bytes < Double(Int.max / 2) ? Int(bytes) : Int.max / 2
    }

    /// Audio: header and tags → properties → where, tag → destination → transcode (mix, resample,
    /// level, meter), atomically.
    private func processAudio(_ item: Item, export: ExportStage, output: AtomicOutput, _ state: JobState,
                              _ entry: inout ManifestRecord, announce: () -> Void) throws {
        let file = item.file
        let reader = try AudioStage.open(item.source, format: item.sniffed.format)
        let (tags, tagWarnings, tagFailure) = AudioStage.readTags(item.source)
        if let tagFailure, let use = Self.tagUse(state.job) {
            throw ItemFailure("\(tagFailure); the job's \(use) needs them")
        }
        entry.warnings += tagWarnings
        var properties = AudioProperties(file: file, persistentID: item.persistentID, info: reader.info,
                                         format: item.sniffed.format, tags: tags)
        let mediaType = properties["mediaType"]?.text ?? "music"
        entry.mediaType = mediaType
        entry.warnings += try select(&properties.values, item, mediaType: mediaType, state)
        announce()
        guard let stage = state.audio else {
            throw ItemFailure("\(item.sniffed.format) audio needs a 'transcode' stage in this job")
        }
        try stage.check(reader)
        entry.properties = properties.values
        let destination = try self.destination(export, state, file, ext: stage.defaultExtension) { properties[$0] }
        entry.output = destination
        var planWarnings: [String] = []
        let plan = try stage.plan(for: reader.info, destination: destination, warnings: &planWarnings)
        if let skip = try skipReason(destination, export, file, state) {
            entry.status = .skipped
            entry.error = skip
            return
        }
        // Tags: the input's, as the tag stage left them, carried into the output's own fields.
        var artwork = tags.artwork
        if case .embed(let path)? = state.job.tag?.artwork { artwork = try Self.artwork(fromFileAt: path) }
        let outputTags = AudioProperties.tags(from: properties.values, artwork: artwork, read: tags)
        let ext = (destination as NSString).pathExtension.lowercased()
        var outcome: AudioStage.Outcome?
        var dropped: [String] = []
        try withMemory(Self.audioWorkingMemory) {
            entry.bytes = try output.write(to: destination, fileExtension: ext) { temporary in
                outcome = try stage.render(reader, plan: plan, to: temporary)
                do {
                    dropped = try TagIO.write(outputTags, toFileAt: temporary, container: ext)
                } catch let error as MediaError {
                    throw ItemFailure("cannot write tags: \(error.reason)")
                }
            }
        }
        entry.warnings += planWarnings
        if let damaged = outcome?.damagedFrames, damaged > 0 {
            entry.warnings.append("skipped \(damaged) damaged frame\(damaged == 1 ? "" : "s"); decoding resumed after each")
        }
        if let clipped = outcome?.clipped, clipped > 0 { entry.warnings.append(AudioStage.clippingWarning(clipped)) }
        // Properties of SPEC §4 in one sentence; other tags (by their Vorbis field name) one each.
        let specKeys = dropped.filter { MediaTags.names.contains($0) || $0 == "artwork" || $0 == "podcastTitle" }
        if !specKeys.isEmpty {
            entry.warnings.append(".\(ext) cannot hold \(specKeys.joined(separator: ", ")); not written")
        }
        for other in dropped where !specKeys.contains(other) {
            entry.warnings.append(other.contains(" (") ? "\(other): .\(ext) holds one value per field"
                                                       : "\(other): .\(ext) has no field for it; not written")
        }
        entry.duration = outcome?.duration
        entry.meter = stage.metering ? outcome?.meter : nil
        if case .export(let template)? = state.job.tag?.artwork, let artwork = tags.artwork {
            try exportArtwork(artwork, template: template, export: export, output: output, state, file) { properties[$0] }
        }
    }

    /// What in `job` uses an item's tags (its `tag` stage, a tag property in the export name), so
    /// that tags which cannot be read fail the item rather than give a wrong result; nil when nothing does.
    static func tagUse(_ job: Job) -> String? {
        if job.tag != nil { return "tag stage" }
        if let name = job.export?.name, let used = name.properties.first(where: AudioStage.tagProperties.contains) {
            return "export name ({\(used)})"
        }
        return nil
    }

    /// A JPEG or PNG file as cover art (the tag stage checked its kind at validation).
    static func artwork(fromFileAt path: String) throws -> Artwork {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ItemFailure("tag.artwork.embed: cannot read \(path)")
        }
        let png = data.starts(with: [0x89, 0x50, 0x4E, 0x47])
        return Artwork(data: [UInt8](data), mimeType: png ? "image/png" : "image/jpeg")
    }

    /// `tag.artwork.export`: the item's embedded cover as its own file, named by the template
    /// (`{ext}` is the cover's own: jpg or png), under the export root, written atomically.
    private func exportArtwork(_ artwork: Artwork, template: NameTemplate, export: ExportStage, output: AtomicOutput,
                               _ state: JobState, _ file: IngestedFile,
                               _ property: @escaping (String) -> TemplateValue?) throws {
        let relative = try template.render { name in
            switch name {
            case "ext": return .text(artwork.fileExtension)
            case "job": return .text(state.job.name)
            default: return property(name)
            }
        }
        try ExportRoot.checkOutputName(relative, root: export.to)
        let destination = export.to + "/" + relative
        let taken = !state.claims.claimNow(destination, for: file.path)
        // Tracks of one album share a cover: the first item writes it, the others find it claimed.
        guard !taken else { return }
        _ = try output.write(to: destination, fileExtension: artwork.fileExtension) { temporary in
            // Into the temporary file itself (FileManager.createFile would write a file of its own
            // beside it and rename that over it).
            let descriptor = open(temporary, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw ItemFailure("cannot write the cover art: \(String(cString: strerror(errno)))") }
            let failed = Descriptor.write(descriptor, artwork.data)
            close(descriptor)
            if let failed { throw ItemFailure("cannot write the cover art: \(String(cString: strerror(failed)))") }
        }
    }

    /// Movie: header and tags → properties → where, tag → its poster frame through the image path,
    /// or a re-encode at the job's videoQuality, written atomically.
    private func processMovie(_ item: Item, export: ExportStage, output: AtomicOutput, _ state: JobState,
                              _ entry: inout ManifestRecord, announce: () -> Void) throws {
        let file = item.file
        let info: MovieInfo
        do {
            info = try Movie.probe(path: item.source)
        } catch let error as MediaError {
            throw ItemFailure(error.reason)
        }
        var properties = MovieProperties(file: file, persistentID: item.persistentID, info: info, format: item.sniffed.format)
        entry.mediaType = "movie"
        entry.warnings += try select(&properties.values, item, mediaType: "movie", state)
        announce()
        entry.properties = properties.values
        // The pixel limit holds before a frame is decoded, as for images: the coded size is in the header.
        if info.width > 0 || info.height > 0 {
            try ImageStage.checkPixels(width: info.width, height: info.height,
                                       limit: state.job.maxPixels ?? ImageStage.defaultMaxPixels, of: "the video stream")
        }
        if let poster = state.job.poster {
            guard let stage = state.stage else { throw ItemFailure("the job has no image stage") }
            // A poster is a PNG frame until the export says otherwise (`format: same`).
            let format: ImageFormat
            if case .image(let chosen) = export.format { format = chosen } else { format = .png }
            let destination = try self.destination(export, state, file, ext: format.fileExtension) { properties[$0] }
            entry.output = destination
            if let skip = try skipReason(destination, export, file, state) {
                entry.status = .skipped
                entry.error = skip
                return
            }
            // The frame goes through the image path as a lossless temporary PNG.
            let frame = try output.scratchPath(fileExtension: "png")
            defer { output.removeScratch(frame) }
            var messages = LibraryMessages()
            var warnings: [String] = []
            try withMemory(Self.movieWorkingMemory(info, transcode: false)) {
                do {
                    try Movie.poster(path: item.source, at: poster.at).save(to: frame.path, format: .png, quality: nil, strip: true)
                } catch let error as MediaError {
                    throw ItemFailure("cannot take the poster frame: \(error.reason)")
                }
                let header = try stage.openHeader(frame.path, messages: &messages)
                entry.bytes = try output.write(to: destination, fileExtension: format.fileExtension) { temporary in
                    warnings = try stage.render(frame.path, header: header, format: format, to: temporary, messages: &messages)
                }
            }
            entry.warnings += warnings + messages.lines
            return
        }
        guard let preset = state.job.transcode?.videoQuality else {
            throw ItemFailure("a movie needs 'poster:' (its frame as an image) or 'transcode: {videoQuality: …}' in this job")
        }
        let destination = try self.destination(export, state, file, ext: "mp4") { properties[$0] }
        entry.output = destination
        let ext = (destination as NSString).pathExtension.lowercased()
        guard ["mp4", "m4v", "mov"].contains(ext) else {
            throw ItemFailure("a videoQuality re-encode is H.264 + AAC in MP4; name the output .mp4, not .\(ext)")
        }
        if let skip = try skipReason(destination, export, file, state) {
            entry.status = .skipped
            entry.error = skip
            return
        }
        var result: MovieTranscodeResult?
        try withMemory(Self.movieWorkingMemory(info, transcode: true)) {
            entry.bytes = try output.write(to: destination, fileExtension: ext) { temporary in
                do {
                    result = try Movie.transcode(path: item.source, to: temporary, preset: preset,
                                                 mode: state.job.transcode?.scalingMode ?? .aspectFit)
                } catch let error as MediaError {
                    throw ItemFailure("cannot re-encode: \(error.reason)")
                }
            }
        }
        entry.duration = result?.duration
        if let result {
            if result.damagedFrames > 0 {
                entry.warnings.append("\(result.damagedFrames) damaged frame(s) in the source, re-encoded as the decoder concealed them")
            }
            for tag in result.tagsNotKept { entry.warnings.append("container tag \(tag); not kept") }
        }
    }

    /// The output path the job's name template gives this item (claimed, so no two items share it).
    private func destination(_ export: ExportStage, _ state: JobState, _ file: IngestedFile, ext: String,
                             _ property: (String) -> TemplateValue?) throws -> String {
        let relative = try export.name.render { name in
            switch name {
            case "ext": return .text(ext)
            case "inputExt": return property("ext")
            case "job": return .text(state.job.name)
            default: return property(name)
            }
        }
        try ExportRoot.checkOutputName(relative, root: export.to)
        let destination = export.to + "/" + relative
        try claim(destination, for: file.path, state)
        return destination
    }

    /// Why this item writes nothing (an existing output under `overwrite: skip`, a dry run), or nil.
    private func skipReason(_ destination: String, _ export: ExportStage, _ file: IngestedFile,
                            _ state: JobState) throws -> String? {
        if FileManager.default.fileExists(atPath: destination) {
            switch export.overwrite {
            case .skip where !options.force: return "output exists (overwrite: skip)"
            case .fail: throw ItemFailure("output exists: \(destination) (overwrite: fail)")
            default: break
            }
        }
        return options.dryRun ? Self.dryRunReason : nil
    }

    /// The skip reason of an item a dry run would write (events and manifest say it; the console
    /// says "would write").
    static let dryRunReason = "dry run"

    /// Content type from the bytes; libvips' own sniffing for images the table does not know.
    /// Files that are not media are ignored, unless their name says they should be (a `.jpg`
    /// that is text is a broken photo, not a stray file).
    /// `reading`: the item's open file, which is what is read (the name still decides what the file claims to be).
    static func identify(_ file: IngestedFile, reading input: InputFile? = nil) throws -> SniffedFormat? {
        let ext = ItemProperties.split(fileName: (file.relativePath as NSString).lastPathComponent).ext.lowercased()
        let claimsMedia = mediaExtensions.contains(ext)
        let source = input?.readPath ?? file.path
        do {
            let sniffed = try input.map { try ContentSniffer.sniff(descriptor: $0.descriptor, path: file.path) }
                ?? ContentSniffer.sniff(fileAt: file.path)
            if let sniffed {
                if let refined = byStreams(sniffed, path: source) { return refined }
            } else if let header = try? ContentSniffer.readHeader(of: source), ContentSniffer.Header(header).has("ftyp", at: 4),
                      let streams = StreamProbe.streams(ofFileAt: source), streams.video || streams.audio {
                // An ISO media file whose brands the table does not know (vendors invent them):
                // libavformat's streams decide before libvips is asked.
                return SniffedFormat(kind: streams.video ? .movie : .audio, format: "mp4")
            }
        } catch IngestError.empty {
            if claimsMedia { throw ItemFailure("empty file (0 bytes)") }
            return nil
        } catch {
            throw ItemFailure("\(error)")
        }
        if let loader = Vips.loader(forFileAt: source), !loader.hasPrefix("csv"), !loader.hasPrefix("matrix") {
            return SniffedFormat(kind: .image, format: loader.replacingOccurrences(of: "load", with: ""))
        }
        if claimsMedia {
            throw ItemFailure("not a recognised image, audio or movie file (its content does not match the .\(ext) name)")
        }
        return nil
    }

    /// Containers that hold audio, video or both: the streams decide. An MP4, MOV, 3GP or
    /// Matroska file without a video stream (cover art aside) is audio; an Ogg file with one
    /// (Theora) is a movie. A file libavformat cannot read keeps what its bytes said, except a
    /// QuickTime file known only by its first atom, which needs libavformat's word.
    static func byStreams(_ sniffed: SniffedFormat, path: String) -> SniffedFormat? {
        let movieContainers: Set<String> = ["mp4", "mov", "3gp", "mkv", "webm"]
        guard movieContainers.contains(sniffed.format) || ["m4a", "m4b", "ogg", "ogv"].contains(sniffed.format) else {
            return sniffed
        }
        let header = try? ContentSniffer.readHeader(of: path)
        let ftypless = sniffed.format == "mov" && header.map { !ContentSniffer.Header($0).has("ftyp", at: 4) } == true
        guard let streams = StreamProbe.streams(ofFileAt: path) else { return ftypless ? nil : sniffed }
        if streams.video {
            return SniffedFormat(kind: .movie, format: sniffed.format == "ogg" ? "ogv" : sniffed.format)
        }
        if streams.audio {
            return SniffedFormat(kind: .audio, format: sniffed.format == "ogv" ? "ogg" : sniffed.format)
        }
        return ftypless ? nil : sniffed
    }

    static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "jxl", "bmp",
        "wav", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "m4a", "m4b", "aac",
        "mp4", "m4v", "mov", "3gp", "3g2", "mkv", "mka", "webm", "avi", "ogv",
    ]

    /// FNV-1a over the relative path: the same share on every machine and every run.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private func claim(_ destination: String, for input: String, _ state: JobState) throws {
        if let other = state.claims.claim(destination, for: input) {
            throw ItemFailure("its output \(destination) is also the output of \(other); make export.name unique, "
                              + Self.clashHint(input, other))
        }
    }

    /// How to tell two inputs' outputs apart: by the input's extension when only that differs
    /// (a.mkv, a.mov), else by folder or extension.
    static func clashHint(_ input: String, _ other: String) -> String {
        let stem = { (path: String) in (path as NSString).deletingPathExtension }
        if stem(input) == stem(other) && input != other {
            return "e.g. with {inputExt} (the input's extension; {ext} is the output's)"
        }
        return "e.g. with {relpath} or {inputExt} (the input's extension; {ext} is the output's)"
    }

    // MARK: outcomes

    /// A file the job does not take, named in the manifest with the reason (nothing vanishes).
    private func record(_ state: JobState, ignored entry: ManifestRecord, reason: String) {
        var entry = entry
        entry.status = .ignored
        entry.error = reason
        lock.lock()
        state.counts.ignored += 1
        lock.unlock()
        append(entry.json.rendered(), state)
    }

    private func record(_ state: JobState, excluded entry: ManifestRecord) {
        lock.lock()
        state.counts.excluded += 1
        lock.unlock()
        append(entry.json.rendered(), state)
        // Tags that could not be read may be why `where` left the item out.
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    private func record(_ state: JobState, finished entry: ManifestRecord, milliseconds: Double) {
        let bytes = entry.bytes ?? 0, output = entry.output ?? ""
        update(state) { $0.succeeded += 1; $0.bytesWritten += bytes }
        append(entry.json.rendered(), state)
        var details: [(String, JSONValue)] = []
        if let duration = entry.duration { details.append(("duration", .number((duration * 1000).rounded() / 1000))) }
        if let meter = entry.meter { details += AudioProperties.metering(meter).map { ($0.name, $0.value.json) } }
        emit(.itemFinished(job: state.job.name, input: entry.input, output: output, bytes: bytes,
                           milliseconds: milliseconds, details: details))
        console.itemLine(String(format: "ok    %@ → %@ (%.0f ms)", entry.input, output, milliseconds), failure: false)
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    /// Returns whether the item keeps its output (false: another item's claim came first).
    private func record(_ state: JobState, unchanged row: StateRow, file: IngestedFile, reason: String) -> Bool {
        let output = row.output ?? "", input = file.path
        emit(.itemStarted(job: state.job.name, input: input))
        do {
            try claim(output, for: input, state)
        } catch {
            var entry = ManifestRecord(job: state.job.name, item: file.relativePath, input: input, status: .failed)
            entry.persistentID = row.contentHash
            record(state, failed: entry, reason: "\(error)")
            return false
        }
        update(state) { $0.skipped += 1; $0.unchanged += 1 }
        append(row.record, state)
        emit(.itemSkipped(job: state.job.name, input: input, output: output, reason: reason))
        console.itemLine("skip  \(input) → \(output) (\(reason))", failure: false)
        return true
    }

    private func record(_ state: JobState, skipped entry: ManifestRecord) {
        let output = entry.output ?? "", reason = entry.error ?? ""
        let wouldWrite = reason == Self.dryRunReason
        update(state) { $0.skipped += 1; if wouldWrite { $0.wouldWrite += 1 } }
        append(entry.json.rendered(), state)
        emit(.itemSkipped(job: state.job.name, input: entry.input, output: output, reason: reason))
        if wouldWrite {
            console.itemLine("would write  \(entry.input) → \(output)", failure: false)
        } else {
            console.itemLine("skip  \(entry.input) → \(output) (\(reason))", failure: false)
        }
    }

    private func record(_ state: JobState, failed entry: ManifestRecord, reason: String, milliseconds: Double? = nil) {
        var entry = entry
        entry.error = reason
        entry.output = nil
        entry.bytes = nil
        let input = entry.input
        update(state) { $0.failed += 1 }
        lock.lock()
        if state.failures.count < Self.failuresListed { state.failures.append((input, reason)) }
        lock.unlock()
        append(entry.json.rendered(), state)
        noteFailure(reason, state)
        emit(.itemFailed(job: state.job.name, input: input, error: reason, milliseconds: milliseconds))
        console.itemLine("FAIL  \(input.isEmpty ? "" : input + ": ")\(reason)", failure: true)
    }

    private func update(_ state: JobState, _ change: (inout JobCounts) -> Void) {
        lock.lock()
        change(&state.counts)
        let counts = state.counts
        let expected = state.expected
        lock.unlock()
        console.progress(job: state.job.name, counts: counts, started: state.started, expected: expected)
    }

    private func emit(_ event: RunEvent) { events?.write(event) }

    /// One line of the job's manifest; a line that cannot be written is said once, and a full
    /// disk stops the run.
    private func append(_ line: String, _ state: JobState) {
        guard let manifest = state.manifest, let failure = manifest.append(line: line) else { return }
        console.say("medley: cannot write the manifest \(manifest.path): \(failure)", color: "31")
        noteFailure(failure, state)
    }

    /// A failure whose words say the disk is full stops the run after the items in flight: every
    /// item after it would fail the same way (and leave the disk fuller of temporary files).
    private func noteFailure(_ reason: String, _ state: JobState) {
        guard let full = DiskFull.reason(in: reason) else { return }
        lock.lock()
        if diskFull == nil { diskFull = (state.job.export?.to ?? "", full) }
        lock.unlock()
        scheduler.requestStop()
    }

    /// On a terminal, counts the job's files on a background thread so progress can show an ETA
    /// (the real enumeration streams and only knows the total at the very end).
    private func countInBackground(_ job: Job, _ state: JobState) {
        Thread.detachNewThread { [lock] in
            var total = 0
            for result in FileEnumerator(job.ingest.source) {
                if case .success = result { total += 1 }
            }
            lock.lock()
            state.expected = total
            lock.unlock()
        }
    }

    private func printSummary(_ state: JobState, seconds: Double) {
        let c = state.counts
        let rate = seconds > 0 ? Double(c.done) / seconds : 0
        var line = "\(state.job.name): \(c.succeeded) succeeded, \(c.failed) failed, \(c.skipped) skipped"
        if options.dryRun {
            // Nothing succeeds in a dry run: say what a real run would do.
            let other = c.skipped - c.wouldWrite - c.unchanged
            line = "\(state.job.name): would write \(c.wouldWrite), unchanged \(c.unchanged)"
                + (other > 0 ? ", \(other) skipped" : "") + ", \(c.failed) failed"
        }
        if c.ignored > 0 { line += " (\(c.ignored) file\(c.ignored == 1 ? "" : "s") ignored: not media of the job's types)" }
        if c.excluded > 0 { line += " (\(c.excluded) left out by the job's media types or where)" }
        line += String(format: " in %.2f s, %.1f items/s", seconds, rate)
        if c.bytesWritten > 0, let to = state.job.export?.to { line += ", \(Console.bytes(c.bytesWritten)) written to \(to)" }
        if options.dryRun { line += " (dry run: nothing written)" }
        if c.failed == 0 {
            if !options.quiet { console.say(line) }
            return
        }
        console.say(line)
        console.say("\(state.job.name): \(c.failed) failed:", color: "31")
        for (input, reason) in state.failures.sorted(by: { $0.0 < $1.0 }) {
            console.say("  ✗ \(input.isEmpty ? "(ingest)" : input): \(reason)")
        }
        if c.failed > state.failures.count, let to = state.job.export?.to {
            console.say("  … and \(c.failed - state.failures.count) more: every failure is in \(to)/.medley/ (the job's manifest)")
        }
    }
}
