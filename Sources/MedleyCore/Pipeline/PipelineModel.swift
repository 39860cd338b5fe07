import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// A validated pipeline file: every path resolved, every filter and parameter checked.
public struct Pipeline: Sendable {
    /// The file as the user named it (used in messages).
    public let file: String
    /// The folder relative paths in the file are resolved against.
    public let directory: String
    public let jobs: [Job]
}

/// One job: items flow ingest → where → tag → (filters | transcode) → export.
public struct Job: Sendable {
    public let name: String
    public let mark: SourceMark
    public let ingest: IngestStage
    public let imageGraph: ImageGraph?
    /// The space filters work in: linear light (default, as Core Image) or the stored values.
    public let workingSpace: Transfer
    public let export: ExportStage?
    /// Audio items: the AVAudioRecorder settings to write them with.
    public let transcode: TranscodeSettings?
    /// `analyze: [metering]`: measure peak and average power per channel of every audio item.
    public let metering: Bool
    /// `limits.maxPixels`: images whose header claims more pixels fail before decoding (nil: the default).
    public let maxPixels: Int?
    /// `where:`: items that fail it are left out (nil: every item).
    public let `where`: WhereClause?
    /// `tag:`: properties derived from the path and assigned from templates.
    public let tag: TagStage?
    /// `playlist:`: an M3U8 of the exported items.
    public let playlist: PlaylistStage?
    /// Stages the schema defines that this version parses but cannot run yet. A job that has
    /// any is refused at validation, never run with the stage skipped.
    public let plannedStages: PlannedStages
    /// `poster:`: movies become their frame at this time, then go through filters and image export.
    public internal(set) var poster: PosterStage?
    /// `report:`: an HTML page about each run of the job (nil: none).
    public internal(set) var report: ReportStage?
    /// The settings that shape each kind of output, for noticing what a changed pipeline affects.
    public internal(set) var settings = JobSettings()
}

/// `poster: {at: 1.5}` or `{at: "10%"}` (MPMoviePlayerController's initialPlaybackTime).
public struct PosterStage: Sendable, Equatable {
    public let at: PosterTime
}

/// The job's settings as canonical text, per kind of item: changing a filter redoes the images
/// only, changing the transcode settings the audio only, changing the export both.
public struct JobSettings: Sendable {
    public var image = ""
    public var audio = ""
}

/// Where a job's items come from.
public struct IngestStage: Sendable {
    /// Absolute folders, files or globs.
    public let roots: [String]
    public let recursive: Bool
    public let media: [MediaTypeName]
    public let include: [Glob]
    public let exclude: [Glob]

    /// The enumerator's view of this stage.
    public var source: IngestSource {
        IngestSource(roots: roots, recursive: recursive, include: include, exclude: exclude)
    }
}

/// `MPMediaType` names a job can select by.
public enum MediaTypeName: String, Sendable, CaseIterable {
    case music, podcast, audioBook, anyAudio, movie, musicVideo, tvShow, anyVideo, image, any

    /// Whether an item of this content kind could be selected (audio: before its tags say
    /// music, podcast or audiobook).
    public func selects(_ kind: MediaKind) -> Bool {
        switch kind {
        case .image: return selects(mediaType: "image")
        case .audio: return ["music", "podcast", "audioBook"].contains { selects(mediaType: $0) }
        case .movie: return selects(mediaType: "movie")
        }
    }

    /// Whether an item of this `mediaType` (image, music, podcast, audioBook, movie) is selected.
    public func selects(mediaType: String) -> Bool {
        switch self {
        case .any: return true
        case .image: return mediaType == "image"
        case .music: return mediaType == "music"
        case .podcast: return mediaType == "podcast"
        case .audioBook: return mediaType == "audioBook"
        case .anyAudio: return ["music", "podcast", "audioBook"].contains(mediaType)
        case .movie, .anyVideo: return mediaType == "movie"
        case .musicVideo, .tvShow: return false
        }
    }
}

/// Filters wired into a graph: named nodes whose image inputs name other nodes or `input`
/// (the ingested image). A chain of filters is a graph whose nodes each feed the next.
public struct ImageGraph: Sendable {
    public struct Node: Sendable {
        public let name: String
        public let filter: String
        /// Non-image parameters, already checked against the filter's attributes.
        public let parameters: [(key: String, value: FilterValue)]
        /// Image parameter → the node (or "input") that feeds it.
        public let imageInputs: [(key: String, source: String)]
        public let mark: SourceMark
    }

    /// The name of the ingested image inside a graph.
    public static let inputName = "input"
    /// The most filter steps a chain or graph may run, a node counted once per node it feeds
    /// (the recipe is a tree: a node used twice is rendered twice). The optimiser and renderer walk
    /// the recipe recursively, so this bounds their depth as well as the work per image.
    public static let maximumSteps = 1000

    public let nodes: [Node]
    /// The node whose output is exported.
    public let output: String

    /// Builds the Core Image recipe, as `CIFilter` would be used: create by name,
    /// `setDefaults()`, set each keyed value, wire the image inputs, read `outputImage`.
    public func recipe(workingSpace: Transfer = .sRGB) throws -> FilterImage {
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var built: [String: FilterImage] = [Self.inputName: .source(Self.inputName)]
        func image(of name: String) throws -> FilterImage {
            if let done = built[name] { return done }
            guard let node = byName[name], let filter = Filter(name: node.filter) else {
                throw FilterError.unknownFilter(name, suggestion: nil)
            }
            filter.workingSpace = workingSpace
            filter.setDefaults()
            for (key, value) in node.parameters { try filter.setValue(value, forKey: key) }
            for (key, source) in node.imageInputs { try filter.setValue(.image(image(of: source)), forKey: key) }
            guard let output = filter.outputImage else {
                throw FilterError.wrongType(filter: node.filter, key: "inputImage", expected: .image, got: "nothing")
            }
            built[name] = output
            return output
        }
        return try image(of: output)
    }
}

/// Output formats a job can ask for.
public enum OutputFormat: Sendable, Equatable {
    /// The input's own format (when libvips can write it; otherwise PNG).
    case same
    case image(ImageFormat)
}

/// What to do when an output file already exists.
public enum OverwritePolicy: String, Sendable, CaseIterable {
    case replace, skip, fail
}

/// Where and how results are written.
public struct ExportStage: Sendable {
    /// Absolute output root; nothing is written outside it (but its `.medley/` working folder).
    public let to: String
    public let format: OutputFormat
    public let quality: Int?
    public let name: NameTemplate
    public let strip: Bool
    public let overwrite: OverwritePolicy
    public let autoOrient: Bool
}

/// Stages of the schema (SPEC §2) that later versions run; parsed and checked for typos now.
public struct PlannedStages: Sendable {
    /// (stage key, where it was written)
    public var present: [(String, SourceMark)] = []
}
