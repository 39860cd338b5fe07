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
    public init() {}
}

/// Outcome of a whole run.
public struct RunSummary: Sendable {
    public var jobs: [(name: String, counts: JobCounts)] = []
    public var interrupted = false
    public var reportFailures = 0
    public var failed: Int { jobs.reduce(0) { $0 + $1.counts.failed } + reportFailures }
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
    /// Reports that could not be written (the run then exits 1).
    private var reportFailures = 0

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

    public func run() throws -> RunSummary {
        var summary = RunSummary()
        for job in pipeline.jobs where options.onlyJob == nil || options.onlyJob == job.name {
            let counts = try run(job)
            summary.jobs.append((job.name, counts))
            summary.reportFailures = reportFailures
            if scheduler.isStopping {
                summary.interrupted = true
                break
            }
        }
        return summary
    }

    // MARK: one job

    /// State of one job while it runs.
    private final class JobState {
        let job: Job
        let stage: ImageStage?
        let audio: AudioStage?
        let output: AtomicOutput?
        let manifest: ManifestWriter?
        /// The run state of the export root, and what it said about each input when the job began.
        var runState: RunState?
        var previous: [String: StateRow] = [:]
        var settingsHash = (image: "", audio: "")
        var counts = JobCounts()
        var failures: [(String, String)] = []
        var claimed: [String: String] = [:]  // output path → input path
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
        let output = job.export.map { AtomicOutput(exportRoot: $0.to) }
        if !options.dryRun { try output?.prepare() }
        let manifest = options.dryRun ? nil
            : try job.export.map { try ManifestWriter(exportRoot: $0.to, job: job.name, shard: options.shard) }
        let audio = job.transcode.map { AudioStage(settings: $0, metering: job.metering) }
        let state = JobState(job: job, stage: stage, audio: audio, output: output, manifest: manifest)
        if let export = job.export { try openRunState(export, state) }
        emit(.jobStarted(job: job.name))
        if console.interactive && !options.quiet { countInBackground(job, state) }

        let files = FileEnumerator(job.ingest.source).lazy.filter { [options, job] result in
            guard case .success(let file) = result else { return true }
            if let root = job.export?.to, file.path.hasPrefix(root + "/") { return false }  // our own outputs
            guard let (k, n) = options.shard else { return true }
            return Int(Self.stableHash(file.relativePath) % UInt64(n)) == k - 1
        }
        scheduler.run(files) { [self] result in
            switch result {
            case .success(let file): self.process(file, state)
            case .failure(let error):
                self.record(state, failed: ManifestRecord(job: job.name, item: "", input: "", status: .failed),
                            reason: error.description)
            }
        }
        try manifest?.finish()
        state.runState?.checkpoint()
        if let playlist = job.playlist, let manifest, !options.dryRun {
            try writePlaylist(playlist, manifest: manifest.path)
        }
        if !options.dryRun { output?.finish() }
        console.endProgress()
        let seconds = Date().timeIntervalSince(state.started)
        if let export = job.export, let manifest, !options.dryRun {
            let summary = writeSummary(state, export: export, seconds: seconds)
            if let report = job.report { writeReport(report, export: export, manifest: manifest.path, summary: summary, state) }
        }
        emit(.jobFinished(job: job.name, counts: state.counts, seconds: seconds))
        printSummary(state, seconds: seconds)
        return state.counts
    }

    /// `<to>/.medley/summary-<job>.json`: the counts and wall time the report shows.
    private func writeSummary(_ state: JobState, export: ExportStage, seconds: Double) -> JobSummaryFile {
        let c = state.counts
        let summary = JobSummaryFile(job: state.job.name, started: state.started.formatted(.iso8601), seconds: seconds,
                                     succeeded: c.succeeded, failed: c.failed, skipped: c.skipped, excluded: c.excluded,
                                     ignored: c.ignored, bytesWritten: c.bytesWritten,
                                     shard: options.shard.map { "\($0.index)/\($0.count)" })
        let path = JobSummaryFile.path(exportRoot: export.to, job: state.job.name, shard: options.shard)
        if let data = try? JSONEncoder().encode(summary) { try? data.write(to: URL(fileURLWithPath: path), options: .atomic) }
        return summary
    }

    /// The job's HTML report; a report that cannot be written is an error of the run (exit 1),
    /// never of its items.
    private func writeReport(_ report: ReportStage, export: ExportStage, manifest: String, summary: JobSummaryFile,
                             _ state: JobState) {
        guard options.shard == nil else {
            if !options.quiet { console.say("report: written by 'medley report' once every shard has run and 'medley merge' has merged them") }
            return
        }
        do {
            let page = try RunReport.write(job: state.job.name, exportRoot: export.to, manifestPath: manifest,
                                           stage: report, summary: summary)
            if !options.quiet { console.say("report \(page)") }
        } catch {
            console.say(console.paint("report: cannot write the report of \(state.job.name): \(error)", code: "31"))
            lock.lock()
            reportFailures += 1
            lock.unlock()
        }
    }

    /// The job's playlist from its finished manifest. A shard knows only its share, so sharded
    /// runs leave the playlist to `medley merge`.
    private func writePlaylist(_ playlist: PlaylistStage, manifest: String) throws {
        guard options.shard == nil else {
            if !options.quiet { console.say("playlist \(playlist.to): written by 'medley merge' once every shard has run") }
            return
        }
        let lines = try String(contentsOfFile: manifest, encoding: .utf8).components(separatedBy: "\n")
        let count = try Playlist.write(playlist, manifestLines: lines)
        if !options.quiet { console.say("playlist \(playlist.to): \(count) item\(count == 1 ? "" : "s")") }
    }

    /// One item's journey: what is it, does the job want it (media type, `where`), `tag`, then
    /// its image or audio path.
    private func process(_ file: IngestedFile, _ state: JobState) {
        let job = state.job
        let started = Date()
        var announced = false
        var entry = ManifestRecord(job: job.name, item: file.relativePath, input: file.path, status: .failed)
        if let row = state.previous[file.path], let reason = unchanged(row, file, state), stillSelected(row, state) {
            return record(state, unchanged: row, file: file, reason: reason)
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
            guard let sniffed = try Self.identify(file, reading: opened) else { return record(state, ignored: file) }
            guard job.ingest.media.contains(where: { $0.selects(sniffed.kind) }) else { return record(state, ignored: file) }
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
            if entry.status == .skipped {
                record(state, skipped: entry)
            } else {
                entry.status = .succeeded
                try remember(entry, file, state)
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

    /// `where` (on the properties as read), then `tag` (from_path, set) on what passes.
    private func select(_ properties: inout [(name: String, value: TemplateValue)], _ item: Item, mediaType: String,
                        _ state: JobState) throws {
        let job = state.job
        guard job.ingest.media.contains(where: { $0.selects(mediaType: mediaType) }) else {
            throw NotSelected(reason: "\(mediaType) is not among the job's media types")
        }
        let values = properties
        if let clause = job.where, !clause.matches({ name in values.first { $0.name == name }?.value }) {
            throw NotSelected(reason: "not selected by where")
        }
        try job.tag?.apply(to: &properties, relativePath: item.file.relativePath)
    }

    // MARK: incremental runs

    /// Opens `<to>/.medley/state.sqlite` (one file per shard, so shards on shared storage never
    /// write the same database) and loads what it knows of this job. A dry run only reads it.
    private func openRunState(_ export: ExportStage, _ state: JobState) throws {
        let name = "state" + (options.shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".sqlite"
        let path = export.to + "/.medley/" + name
        if options.dryRun && !FileManager.default.fileExists(atPath: path) { return }
        do {
            let store = try RunState(path: path)
            state.previous = try store.rows(job: state.job.name)
            state.runState = options.dryRun ? nil : store
        } catch let error as StateError {
            throw RunError.cannotWrite(path: path, reason: error.description)
        }
        state.settingsHash = (ContentHash.hex(ContentHash.of(text: state.job.settings.image)),
                              ContentHash.hex(ContentHash.of(text: state.job.settings.audio)))
    }

    /// Why an item needs no work (its input, the settings for its kind and its output are as the
    /// last run left them), or nil. Size and modification time decide first; when only the time
    /// changed, the content hash does.
    private func unchanged(_ row: StateRow, _ file: IngestedFile, _ state: JobState) -> String? {
        guard !options.force, row.status == "succeeded", let output = row.output else { return nil }
        let settings = Self.settingsHash(kind: row.kind, state)
        guard row.settingsHash == settings, row.size == file.size else { return nil }
        var info = stat()
        guard stat(output, &info) == 0, Int64(info.st_size) == row.outputSize else { return nil }
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
    private func remember(_ entry: ManifestRecord, _ file: IngestedFile, _ state: JobState) throws {
        guard let store = state.runState, let output = entry.output else { return }
        let row = StateRow(input: file.path, size: file.size, modifiedNanoseconds: Self.nanoseconds(file.modified),
                           contentHash: entry.persistentID ?? "", kind: Self.stateKind(entry.mediaType),
                           settingsHash: Self.settingsHash(kind: Self.stateKind(entry.mediaType), state),
                           status: "succeeded", output: output, outputSize: entry.bytes, record: entry.json.rendered())
        do {
            try store.save(job: state.job.name, row)
        } catch {
            throw ItemFailure("\(error)")
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
        let header = try stage.openHeader(item.source)
        var properties = ImageProperties(file: file, persistentID: item.persistentID, image: header,
                                         format: item.sniffed.format)
        try select(&properties.values, item, mediaType: "image", state)
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
        try withMemory(stage.workingMemory(header, threads: vipsThreads)) {
            entry.bytes = try output.write(to: destination, fileExtension: format.fileExtension) { temporary in
                try stage.render(item.source, header: header, format: format, to: temporary)
            }
        }
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
        let tags = AudioStage.readTags(item.source)
        var properties = AudioProperties(file: file, persistentID: item.persistentID, info: reader.info,
                                         format: item.sniffed.format, tags: tags)
        let mediaType = properties["mediaType"]?.text ?? "music"
        entry.mediaType = mediaType
        try select(&properties.values, item, mediaType: mediaType, state)
        announce()
        guard let stage = state.audio else {
            throw ItemFailure("\(item.sniffed.format) audio needs a 'transcode' stage in this job")
        }
        try stage.check(reader)
        entry.properties = properties.values
        let destination = try self.destination(export, state, file, ext: stage.defaultExtension) { properties[$0] }
        entry.output = destination
        let plan = try stage.plan(for: reader.info, destination: destination)
        if let skip = try skipReason(destination, export, file, state) {
            entry.status = .skipped
            entry.error = skip
            return
        }
        // Tags: the input's, as the tag stage left them, carried into the output's own fields.
        var artwork = tags.artwork
        if case .embed(let path)? = state.job.tag?.artwork { artwork = try Self.artwork(fromFileAt: path) }
        let outputTags = AudioProperties.tags(from: properties.values, artwork: artwork)
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
        if !dropped.isEmpty {
            entry.warnings.append(".\(ext) cannot hold \(dropped.joined(separator: ", ")); not written")
        }
        entry.duration = outcome?.duration
        entry.meter = stage.metering ? outcome?.meter : nil
        if case .export(let template)? = state.job.tag?.artwork, let artwork = tags.artwork {
            try exportArtwork(artwork, template: template, export: export, output: output, state, file) { properties[$0] }
        }
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
        let destination = export.to + "/" + relative
        lock.lock()
        let owner = state.claimed[destination]
        if owner == nil { state.claimed[destination] = file.path }
        lock.unlock()
        // Tracks of one album share a cover: the first item writes it, the others find it claimed.
        guard owner == nil else { return }
        _ = try output.write(to: destination, fileExtension: artwork.fileExtension) { temporary in
            guard FileManager.default.createFile(atPath: temporary, contents: Data(artwork.data)) else {
                throw ItemFailure("cannot write the cover art: \(String(cString: strerror(errno)))")
            }
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
        try select(&properties.values, item, mediaType: "movie", state)
        announce()
        entry.properties = properties.values
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
            let frame = output.scratchPath(fileExtension: "png")
            defer { unlink(frame) }
            try withMemory(Self.movieWorkingMemory(info, transcode: false)) {
                do {
                    try Movie.poster(path: item.source, at: poster.at).save(to: frame, format: .png, quality: nil, strip: true)
                } catch let error as MediaError {
                    throw ItemFailure("cannot take the poster frame: \(error.reason)")
                }
                let header = try stage.openHeader(frame)
                entry.bytes = try output.write(to: destination, fileExtension: format.fileExtension) { temporary in
                    try stage.render(frame, header: header, format: format, to: temporary)
                }
            }
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
    }

    /// The output path the job's name template gives this item (claimed, so no two items share it).
    private func destination(_ export: ExportStage, _ state: JobState, _ file: IngestedFile, ext: String,
                             _ property: (String) -> TemplateValue?) throws -> String {
        let relative = try export.name.render { name in
            switch name {
            case "ext": return .text(ext)
            case "job": return .text(state.job.name)
            default: return property(name)
            }
        }
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
        return options.dryRun ? "dry run" : nil
    }

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
            if let sniffed { return sniffed }
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

    static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "jxl", "bmp",
        "wav", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "m4a", "m4b", "aac",
        "mp4", "m4v", "mov", "3gp", "mkv", "webm", "avi",
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
        lock.lock()
        defer { lock.unlock() }
        if let other = state.claimed[destination] {
            throw ItemFailure("its output \(destination) is also the output of \(other); make export.name unique, e.g. with {relpath} or {ext}")
        }
        state.claimed[destination] = input
    }

    // MARK: outcomes

    private func record(_ state: JobState, ignored file: IngestedFile) {
        lock.lock()
        state.counts.ignored += 1
        lock.unlock()
    }

    private func record(_ state: JobState, excluded entry: ManifestRecord) {
        lock.lock()
        state.counts.excluded += 1
        lock.unlock()
        state.manifest?.append(entry)
    }

    private func record(_ state: JobState, finished entry: ManifestRecord, milliseconds: Double) {
        let bytes = entry.bytes ?? 0, output = entry.output ?? ""
        update(state) { $0.succeeded += 1; $0.bytesWritten += bytes }
        state.manifest?.append(entry)
        var details: [(String, JSONValue)] = []
        if let duration = entry.duration { details.append(("duration", .number((duration * 1000).rounded() / 1000))) }
        if let meter = entry.meter { details += AudioProperties.metering(meter).map { ($0.name, $0.value.json) } }
        emit(.itemFinished(job: state.job.name, input: entry.input, output: output, bytes: bytes,
                           milliseconds: milliseconds, details: details))
        console.itemLine(String(format: "ok    %@ → %@ (%.0f ms)", entry.input, output, milliseconds), failure: false)
        for warning in entry.warnings { console.say("warn  \(entry.input): \(warning)") }
    }

    private func record(_ state: JobState, unchanged row: StateRow, file: IngestedFile, reason: String) {
        let output = row.output ?? "", input = file.path
        emit(.itemStarted(job: state.job.name, input: input))
        do {
            try claim(output, for: input, state)
        } catch {
            var entry = ManifestRecord(job: state.job.name, item: file.relativePath, input: input, status: .failed)
            entry.persistentID = row.contentHash
            return record(state, failed: entry, reason: "\(error)")
        }
        update(state) { $0.skipped += 1 }
        state.manifest?.append(line: row.record)
        emit(.itemSkipped(job: state.job.name, input: input, output: output, reason: reason))
        console.itemLine("skip  \(input) → \(output) (\(reason))", failure: false)
    }

    private func record(_ state: JobState, skipped entry: ManifestRecord) {
        let output = entry.output ?? "", reason = entry.error ?? ""
        update(state) { $0.skipped += 1 }
        state.manifest?.append(entry)
        emit(.itemSkipped(job: state.job.name, input: entry.input, output: output, reason: reason))
        console.itemLine("skip  \(entry.input) → \(output) (\(reason))", failure: false)
    }

    private func record(_ state: JobState, failed entry: ManifestRecord, reason: String, milliseconds: Double? = nil) {
        var entry = entry
        entry.error = reason
        entry.output = nil
        entry.bytes = nil
        let input = entry.input
        update(state) { $0.failed += 1 }
        lock.lock()
        state.failures.append((input, reason))
        lock.unlock()
        state.manifest?.append(entry)
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
        console.say(console.paint("\(state.job.name): \(c.failed) failed:", code: "31"))
        for (input, reason) in state.failures.sorted(by: { $0.0 < $1.0 }) {
            console.say("  ✗ \(input.isEmpty ? "(ingest)" : input): \(reason)")
        }
    }
}
