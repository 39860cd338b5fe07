import MedleyKernels
import MedleyMedia

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

    /// The written output, or nil for a skip.
    var written: WrittenOutput? {
        if case .written(let output) = self { return output }
        return nil
    }

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

    init(output: String, bytes: Int64) {
        self.output = output
        self.bytes = bytes
    }
}
