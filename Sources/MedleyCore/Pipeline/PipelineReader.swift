import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// Reads and validates pipeline files (docs/pipelines.md). Every problem is collected and reported at
/// once, each at its FILE:LINE:COL; nothing is run or written when there is any.
public enum PipelineReader {
    /// Loads a pipeline file. `overrides` are `--set job.key.path=value` assignments applied
    /// before validation.
    public static func load(path: String, overrides: [String] = []) throws -> Pipeline {
        let url = URL(fileURLWithPath: path)
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ValidationFailure(diagnostics: [Diagnostic(
                file: path, mark: SourceMark(line: 1, column: 1),
                message: "cannot read the pipeline file (\(Self.reason(error)))")])
        }
        return try parse(text, file: path, directory: url.deletingLastPathComponent().standardizedFileURL.path,
                         overrides: overrides)
    }

    /// Validates pipeline text. `directory` resolves relative paths.
    public static func parse(_ text: String, file: String, directory: String,
                             overrides: [String] = []) throws -> Pipeline {
        var root: YAMLNode
        do {
            root = try YAMLReader.parse(text)
        } catch let error as YAMLSyntaxError {
            throw ValidationFailure(diagnostics: [Diagnostic(file: file, mark: error.mark, message: error.message,
                                                             suggestion: error.suggestion)])
        }
        let sink = DiagnosticSink(file: file)
        for assignment in overrides {
            root = Overrides.apply(assignment, to: root, sink: sink)
        }
        let reader = SchemaReader(sink: sink, directory: directory)
        let jobs = reader.pipeline(root)
        guard sink.diagnostics.isEmpty, let jobs else { throw ValidationFailure(diagnostics: sink.sorted) }
        return Pipeline(file: file, directory: directory, jobs: jobs)
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// The schema walk. Each method reads one part of the file, reports what is wrong with it and
/// returns nil for parts it could not make sense of (so later checks do not pile on). This file
/// reads the pipeline's structure and each job; every stage's reader lives in its stage's folder
/// (`Ingest/IngestReader.swift`, `Filters/FiltersReader.swift`, `Transcode/TranscodeSettings.swift`, …),
/// and the scalar helpers they share in `ScalarReader.swift`.
struct SchemaReader {
    let sink: DiagnosticSink
    let directory: String
    /// The read roots and the assets read so far (`Pipeline/AssetFiles.swift`).
    let assets = AssetLedger()

    static let topKeys = ["version", "assets", "jobs"]
    /// The longest job name, in characters (each becomes one byte of `manifest-<job>.jsonl`).
    static let maximumJobName = 100
    static let jobKeys = ["name", "ingest", "where", "tag", "filters", "graph", "colorSpace", "transcode",
                          "analyze", "autoAdjust", "poster", "export", "playlist", "report", "limits", "watermark", "contactSheet",
                          "animation", "sprites", "spectrogram", "waveform"]

    // MARK: structure

    func pipeline(_ root: YAMLNode) -> [Job]? {
        guard let top = mapping(root, keys: Self.topKeys, what: "the pipeline") else { return nil }
        if let version = top["version"] {
            if let n = integer(version, what: "version"), n != 1 {
                sink.error(version, "unsupported pipeline version \(n)", suggestion: "this Medley reads version: 1")
            }
        } else {
            sink.error(root, "missing 'version'", suggestion: "add 'version: 1' at the top")
        }
        if let assetsNode = top["assets"] { readAssetRoots(assetsNode) }
        guard let jobsNode = top["jobs"] else {
            sink.error(root, "missing 'jobs'", suggestion: "add a 'jobs:' list with at least one job")
            return nil
        }
        guard case .sequence(let items, _) = jobsNode, !items.isEmpty else {
            sink.error(jobsNode, "'jobs' must be a list of jobs, found \(jobsNode.kindDescription)")
            return nil
        }
        var names: [String: SourceMark] = [:]
        // Medley's files for a job are named after it (manifest-<job>.jsonl, report-<job>), with
        // characters a file name should not have replaced: two names that read the same there would
        // share them, and the second job would overwrite the first one's manifest.
        var fileNames: [String: (name: String, mark: SourceMark)] = [:]
        var jobs: [Job] = []
        for item in items {
            guard let job = job(item) else { continue }
            let nameMark = Self.field("name", of: item)?.mark ?? job.mark
            if let first = names[job.name] {
                sink.error(at: job.mark, "a second job named '\(job.name)' (the first is at line \(first.line))",
                           suggestion: "job names must be unique")
            } else if let first = fileNames[ManifestWriter.fileSafe(job.name)] {
                sink.error(at: nameMark, "job names '\(first.name)' (line \(first.mark.line)) and '\(job.name)' are the same as file names "
                           + "(manifest-\(ManifestWriter.fileSafe(job.name)).jsonl): the second would overwrite the first one's files",
                           suggestion: "job names that differ in letters, digits, '.', '_' or '-'")
            }
            names[job.name] = job.mark
            fileNames[ManifestWriter.fileSafe(job.name)] = fileNames[ManifestWriter.fileSafe(job.name)] ?? (job.name, nameMark)
            jobs.append(job)
        }
        checkMovesAreAlone(jobs)
        return jobs.count == items.count ? jobs : nil
    }

    func job(_ node: YAMLNode) -> Job? {
        guard let fields = mapping(node, keys: Self.jobKeys, what: "a job") else { return nil }
        let nameNode = fields["name"]
        let name = nameNode.flatMap { string($0, what: "job name") }
        if nameNode == nil { sink.error(node, "a job without a 'name'", suggestion: "add 'name: my-job'") }
        if let name, let nameNode, name.isEmpty || name.contains("/") {
            sink.error(nameNode, "job name '\(name)' must be non-empty and contain no '/'")
        }
        if let name, let nameNode, name.count > Self.maximumJobName {
            // manifest-<job>-shard-K-of-N.jsonl and its temporary name must stay under NAME_MAX (255 bytes).
            sink.error(nameNode, "a job name of \(name.count) characters is longer than the \(Self.maximumJobName) allowed",
                       suggestion: "Medley names its files for a job after it; use a shorter name")
        }

        let ingest = fields["ingest"].flatMap(ingest)
        // Files the job's stages name may also come from its own ingest roots (glob roots do not count).
        assets.jobRoots = (ingest?.roots ?? []).filter { !Glob.isPattern($0) }.compactMap(FileSystem.resolvedPath)
        assets.jobFingerprints = []
        if fields["ingest"] == nil { sink.error(node, "job '\(name ?? "?")' has no 'ingest'", suggestion: "add 'ingest: { from: [photos] }'") }

        if let filters = fields["filters"], let graph = fields["graph"] {
            sink.error(graph, "a job has either 'filters' (a chain) or 'graph', not both",
                       suggestion: "move the chain into the graph, or drop one (filters is at line \(filters.mark.line))")
        }
        let graph = fields["filters"].flatMap(chain) ?? fields["graph"].flatMap(self.graph)

        var space = Transfer.sRGB
        if let node = fields["colorSpace"], let text = string(node, what: "colorSpace") {
            switch text {
            case "none": space = .none
            case "linear", "sRGB", "srgb": space = .sRGB
            default: sink.error(node, "colorSpace must be 'linear' (the default) or 'none', not '\(text)'")
            }
        }

        var export = fields["export"].flatMap(export)
        if let ingest, ingest.everyPage, let ingestNode = fields["ingest"] {
            checkEveryPage(ingest, ingestNode: ingestNode, export: &export, exportNode: fields["export"])
        }
        if let ingest, let export, let exportNode = fields["export"] { checkExportRoot(export, against: ingest, exportNode: exportNode) }
        if let move = ingest?.afterwards, let export { checkMoveFolder(move, export: export) }
        if fields["export"] == nil, graph != nil || fields["watermark"] != nil {
            sink.error(node, "job '\(name ?? "?")' filters images but has no 'export'",
                       suggestion: "add 'export: { to: out, format: jpeg }'")
        }

        var maxPixels: Int?
        if let limitsNode = fields["limits"], let limits = mapping(limitsNode, keys: ["maxPixels"], what: "limits"),
           let node = limits["maxPixels"], let n = integer(node, what: "limits.maxPixels") {
            if n >= 1 { maxPixels = n } else { sink.error(node, "limits.maxPixels must be at least 1, not \(n)") }
        }

        if let graph { checkOutputSizes(graph, maxPixels: maxPixels ?? ImageStage.defaultMaxPixels) }
        if let graph { checkResizeCrops(graph) }
        if let graph { checkAssetImages(graph, maxPixels: maxPixels ?? ImageStage.defaultMaxPixels) }
        let watermark = fields["watermark"].flatMap { self.watermark($0, maxPixels: maxPixels ?? ImageStage.defaultMaxPixels) }

        let transcode = fields["transcode"].flatMap { TranscodeSettings.read($0, sink: sink) }
        if let exportNode = fields["export"], fields["transcode"] == nil || transcode != nil {
            checkExportID3(exportNode: exportNode, transcode: transcode, retags: fields["tag"] != nil)
        }
        if let movie = transcode?.movie, let exportNode = fields["export"] { checkMovieContainer(movie, exportNode: exportNode) }
        let analyses = fields["analyze"].map(analyses) ?? AnalysisRequest()
        let metering = analyses.metering != nil
        let autoAdjust = fields["autoAdjust"].flatMap { node in self.autoAdjust(node).map { ($0, node) } }
        if fields["transcode"] != nil, fields["export"] == nil {
            sink.error(node, "job '\(name ?? "?")' transcodes audio but has no 'export'",
                       suggestion: "add 'export: { to: out }'")
        }

        let whereClause = fields["where"].flatMap(self.whereClause)
        let tag = fields["tag"].flatMap(self.tag)
        if tag?.replayGain != nil, fields["export"] == nil, let tagNode = fields["tag"] {
            sink.error(Self.field("replayGain", of: tagNode) ?? tagNode,
                       "tag.replayGain writes its values into exported copies, but job '\(name ?? "?")' has no 'export'",
                       suggestion: "add 'export: { to: out }'")
        }
        let playlist = fields["playlist"].flatMap { self.playlist($0, exportRoot: export?.to) }
        let report = fields["report"].flatMap { self.report($0, exportRoot: export?.to) } ?? nil
        let contactSheet = fields["contactSheet"].flatMap { self.contactSheet($0, hasExport: export != nil) }

        let poster = fields["poster"].flatMap(self.poster)
        if poster != nil, fields["export"] == nil, let node = fields["poster"] {
            sink.error(node, "a poster frame is exported as an image, but the job has no 'export'",
                       suggestion: "add 'export: { to: out, format: jpeg }'")
        }

        let animation = fields["animation"].flatMap(self.animation)
        let sprites = fields["sprites"].flatMap(self.sprites)
        let spectrogram = fields["spectrogram"].flatMap(self.spectrogram)
        let waveform = fields["waveform"].flatMap(self.waveform)
        checkPictureStages(fields, hasExport: export != nil)

        guard let name, let ingest else { return nil }
        // Without an explicit media list, a job takes what its stages can process.
        var selected = ingest
        if fields["ingest"].flatMap({ Self.field("media", of: $0) }) == nil {
            selected = ingest.selecting(IngestStage.defaultMedia(filters: graph != nil || watermark != nil || autoAdjust?.0.enhance == true,
                                                                 transcode: transcode.map { ($0.setsAudio, $0.videoQuality != nil || $0.movie != nil) },
                                                                 poster: poster != nil))
            // A picture of a movie or of sound: the job takes that kind.
            let movies = animation != nil || sprites != nil, sounds = spectrogram != nil || waveform != nil
            if movies || sounds {
                selected = ingest.selecting((movies ? [.anyVideo] : []) + (sounds ? [.anyAudio] : []))
            }
        }
        checkMeasures(analyses, autoAdjust: autoAdjust, media: selected.media, posters: poster != nil, hasExport: export != nil)
        if transcode?.segment != nil, let transcodeNode = fields["transcode"] {
            checkSegments(movesSources: selected.afterwards != nil, export: &export, exportNode: fields["export"],
                          segmentNode: Self.field("segment", of: transcodeNode) ?? transcodeNode)
        }
        var job = Job(name: name, mark: node.mark, ingest: selected, imageGraph: graph, workingSpace: space,
                      export: export, transcode: transcode, metering: metering, maxPixels: maxPixels,
                      where: whereClause, tag: tag, playlist: playlist)
        job.report = report
        job.contactSheet = contactSheet
        job.poster = poster
        job.animation = animation
        job.sprites = sprites
        job.spectrogram = spectrogram
        job.waveform = waveform
        job.imageAnalyses = Set(analyses.image.map(\.kind))
        job.analyzesLoudness = analyses.loudness != nil
        job.autoAdjust = autoAdjust?.0
        job.watermark = watermark
        func settings(_ keys: [String]) -> String {
            keys.map { key in key + "=" + (fields[key]?.canonicalText ?? "-") }.joined(separator: ";")
        }
        // An image's output and manifest line also depend on its auto-adjustment, watermark and image analyses
        // (not on `metering`); added only when used, so other jobs' settings hash as before.
        // Audio's `metering` and `loudness` are in its hash through the `analyze` key's own text.
        var imageSettings = settings(["filters", "graph", "colorSpace", "limits", "export", "poster"])
        for key in ["animation", "sprites"] where fields[key] != nil { imageSettings += ";" + settings([key]) }
        if fields["autoAdjust"] != nil { imageSettings += ";" + settings(["autoAdjust"]) }
        if fields["watermark"] != nil { imageSettings += ";" + settings(["watermark"]) }
        if selected.raw != .develop { imageSettings += ";raw=" + selected.raw.rawValue }
        // Which page of a PDF and at what density a vector is drawn (another page is another picture).
        if selected.page != 1 || selected.everyPage || selected.density != nil {
            imageSettings += ";page=" + (selected.everyPage ? "all" : String(selected.page))
                + ";density=" + (selected.density.map { String($0) } ?? "-")
        }
        // A tag stage writes an image's metadata (set, shiftDates, sidecar).
        if fields["tag"] != nil { imageSettings += ";" + settings(["tag"]) }
        if !job.imageAnalyses.isEmpty {
            imageSettings += ";analyze=" + job.imageAnalyses.sorted().map(\.rawValue).joined(separator: ",")
        }
        // The contents of the files the job names (LUTs, logos, profiles) shape its outputs as its keys do.
        let assetPrints = assets.jobFingerprints.isEmpty ? "" : ";assets=" + assets.jobFingerprints.joined(separator: ",")
        job.settings = JobSettings(image: imageSettings + assetPrints,
                                   audio: settings(["transcode", "analyze", "tag", "export"])
                                   + ["spectrogram", "waveform"].filter { fields[$0] != nil }.map { ";" + settings([$0]) }.joined()
                                   + assetPrints)
        return job
    }
}
