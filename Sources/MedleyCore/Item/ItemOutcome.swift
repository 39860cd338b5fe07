import MedleyKernels
import MedleyMedia
import MedleyTags

/// What became of one item: the value every step of the journey returns, and the one thing the
/// outcome recorder (`Run/OutcomeRecorder.swift`) turns into the manifest line, the event and the
/// console line.
enum ItemOutcome {
    /// Its output was written.
    case written(WrittenOutput)
    /// It writes nothing, its output being `output` (absolute path), for `reason`.
    case skipped(output: String, SkipReason)
    /// The job's media types or `where` leave it out (not a failure).
    case excluded(NotSelected)
    /// Not a file the job takes: not media, or media of a kind it does not take.
    case ignored(String)
    /// It failed: the error as thrown (kept for whoever handles failures by kind), and its words
    /// with the input's own path in place of the descriptor path decoders read.
    case failed(any Error, reason: String)
}

/// Why an item the job would write writes nothing.
enum SkipReason: Equatable, CustomStringConvertible {
    /// Its output exists and `overwrite: skip` keeps it.
    case exists
    /// A dry run: a real run would write it.
    case dryRun
    /// The same input and settings as the last run, its output still in place (the run state's words).
    case unchanged(String)

    /// The reason as the manifest and the events say it.
    var description: String {
        switch self {
        case .exists: return "output exists (overwrite: skip)"
        case .dryRun: return "dry run"
        case .unchanged(let why): return why
        }
    }
}

/// Why the job leaves an item out (not a failure: the item is listed as excluded).
enum NotSelected: Error, CustomStringConvertible {
    /// Its media type is not among the job's.
    case mediaType(MediaType)
    /// `where` does not select it.
    case `where`

    var description: String {
        switch self {
        case .mediaType(let type): return "\(type.rawValue) is not among the job's media types"
        case .where: return "not selected by where"
        }
    }
}

/// What an output step made of an item: its output written, or why nothing was.
enum StepOutcome {
    /// The output is in place.
    case written(WrittenOutput)
    /// Nothing written: `output` (absolute path) is what the item keeps or would write.
    case skipped(output: String, SkipReason)

    /// The step's outcome as the item's.
    var item: ItemOutcome {
        switch self {
        case .written(let output): return .written(output)
        case .skipped(let output, let reason): return .skipped(output: output, reason)
        }
    }
}

/// One output as written, and what making it measured or could not keep: the fields of the
/// manifest line that only an output step knows.
struct WrittenOutput {
    /// The output's absolute path.
    var output: String
    /// Its size.
    var bytes: Int64
    /// What the output could not keep, in the order the step found it.
    var warnings: [String] = []
    /// Seconds of audio or movie written.
    var duration: Double?
    /// Per-channel levels, when the job meters its audio.
    var meter: Meter?
    /// `analyze: [loudness]`: the output's loudness as written.
    var loudness: LoudnessRecord?
    /// What a loudness normalization measured and did.
    var normalization: NormalizationRecord?
    /// What `analyze:` measured of an image as exported.
    var analysis: ImageAnalysis?
    /// The filters `autoAdjust:` chose.
    var autoAdjust: AutoAdjustment?
    /// A movie re-encode's decisions and tracks.
    var movie: MovieRecord?

    init(output: String, bytes: Int64) {
        self.output = output
        self.bytes = bytes
    }
}


/// Per-job tallies.
public struct JobCounts: Sendable, Equatable {
    public var succeeded = 0
    public var failed = 0
    /// Outputs already present and kept (`overwrite: skip`).
    public var skipped = 0
    /// Files that were not selected: not media, or not of the job's kinds of media.
    public var ignored = 0
    /// Media the job's media types (podcast, audioBook …) or `where` left out.
    public var excluded = 0
    public var bytesWritten: Int64 = 0
    /// Of `skipped`, in a dry run: the items that a real run would write.
    public var wouldWrite = 0
    /// Of `skipped`: items unchanged since the last run (incremental).
    public var unchanged = 0
    public var done: Int { succeeded + failed + skipped }
    public init() {}
}


/// Why one item failed: what kind of failure, the words for the summary, — when the words
/// are a library's — what Medley was doing (the path is added by the caller), and the error
/// underneath (`cause`), kept whole so a full disk or a refused permission is known by its case.
public struct ItemFailure: ClassifiedError, CustomStringConvertible {
    /// Where in the item's journey it failed, for whoever handles failures by kind.
    public enum Kind: String, Sendable {
        /// The input as listed cannot be read: it vanished, was replaced, is empty or is not media.
        case input
        /// A media library cannot read the content: undecodable, damaged, truncated.
        case decode
        /// The job cannot make this item's output: a stage it lacks, a format, rate or
        /// extension the output cannot take.
        case unsupported
        /// A resource limit: pixels, memory, open files, a system sound's length.
        case limit
        /// The output cannot be named, claimed or written.
        case output
        /// The job's stages cannot be applied to the item (a tag it needs is unreadable).
        case stage
    }

    public let kind: Kind
    public let reason: String
    /// What was being done when a library said `reason` ("cannot re-encode"), or nil.
    public let context: String?
    /// The error this failure reports (an adapter's `MediaError`, a file-system failure, the run
    /// state's), with its errno or library code; nil when Medley itself refused the item.
    public let cause: Error?

    public init(_ kind: Kind, _ reason: String, context: String? = nil, cause: Error? = nil) {
        self.kind = kind
        self.reason = reason
        self.context = context
        self.cause = cause
    }

    /// A media library's error as an item's failure: the one place its words become Medley's.
    public init(_ error: MediaError, _ kind: Kind = .decode, context: String? = nil) {
        self.init(kind, error.reason, context: context, cause: error)
    }

    /// The tag module's error as an item's failure, in its own words; its errno, when a system
    /// call failed, is kept as the cause's (so a full disk while tagging is known by its case).
    public init(_ error: TagIOError, _ kind: Kind = .decode, context: String? = nil) {
        let cause = MediaError(.medley, "read or write tags", error.reason,
                               cause: error.errno.map { .system(errno: $0) } ?? .unspecified)
        self.init(kind, error.reason, context: context, cause: cause)
    }

    /// The class of the cause (a full disk, a refused permission …), nil without one.
    public var failureClass: FailureClass? { (cause as? ClassifiedError)?.failureClass }

    /// The cause's errno, when it has one.
    public var systemErrno: Int32? { (cause as? ClassifiedError)?.systemErrno }

    public var description: String { context.map { "\($0): \(reason)" } ?? reason }

    /// Runs `body`, a media library's (or the tag module's) error becoming the item's failure (`init(_:_:context:)`).
    static func converting<T>(_ kind: Kind = .decode, context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MediaError {
            throw ItemFailure(error, kind, context: context)
        } catch let error as TagIOError {
            throw ItemFailure(error, kind, context: context)
        }
    }
}
