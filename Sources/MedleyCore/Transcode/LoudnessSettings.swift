import MedleyMedia

/// `normalize: {loudness: -16LUFS, truePeak: -1dBTP}` (or a preset): one linear gain per item — or
/// per album — that brings its integrated loudness (EBU R128) to the target, measured in a first
/// pass. Never a compressor: a true peak the gain would push past the ceiling lowers the target
/// (said per item), unless `limit: true` asks for the true-peak limiter.
public struct LoudnessNormalization: Sendable, Equatable {
    /// Targets with published specifications.
    public enum Preset: String, Sendable, CaseIterable {
        /// −16 LUFS, −1 dBTP: Apple Podcasts' and most hosts' specification.
        case podcast
        /// −14 LUFS, −1 dBTP: Spotify, YouTube, Tidal.
        case streaming
        /// EBU R128: −23 LUFS, −1 dBTP.
        case broadcast
        /// ACX (Audible): RMS −23…−18 dB, peak ≤ −3 dBFS, noise floor ≤ −60 dB, each item checked.
        case audiobook
    }

    /// Integrated loudness to reach, LUFS.
    public var target = -16.0
    /// The true-peak ceiling, dBTP.
    public var truePeak = -1.0
    /// `limit: true`: reach the target and hold the ceiling with a true-peak limiter.
    public var limit = false
    /// `lowerOnly: true`: never raise the level.
    public var lowerOnly = false
    /// `threshold: 0.5LU`: items already this close to the target are left as they are.
    public var threshold = 0.0
    public var preset: Preset?
    /// `album: true` / `group: TEMPLATE`: one gain per album, from the album's loudness.
    public var album: AlbumGrouping?

    public init() {}
}

/// Which audio items form an album — for one gain per album (`normalize: {album: true}`) or one
/// ReplayGain album value: items whose `template` renders the same text. An item whose template
/// has no value (no album tag) is an album of its own.
public struct AlbumGrouping: Sendable, Equatable {
    /// The grouping template as written, e.g. "{albumArtist|artist}/{albumTitle}".
    public var text: String
    public var template: NameTemplate

    /// What `album: true` groups by: the album artist (else the artist) and the album title.
    public static let defaultText = "{albumArtist|artist}/{albumTitle}"

    public init(text: String, template: NameTemplate) {
        self.text = text
        self.template = template
    }
}

/// `trim: {silence: -50dB, start: true, end: true, keep: 0.25s}`: leading and trailing silence
/// removed, `keep` seconds of it left, sample-exact.
public struct SilenceTrim: Sendable, Equatable {
    /// Below this level (dBFS, every channel) a sample is silence.
    public var silence = -50.0
    public var start = true
    public var end = true
    /// Seconds of silence kept before the first and after the last sound.
    public var keep = 0.25

    public init() {}
}

/// `fade: {in: 0.5s, out: 2s, curve: linear | log | sCurve}`: fades at the start and end, sample-exact.
public struct Fade: Sendable, Equatable {
    public enum Curve: String, Sendable, CaseIterable { case linear, log, sCurve }
    /// Seconds of fade-in (0: none).
    public var fadeIn = 0.0
    /// Seconds of fade-out (0: none).
    public var fadeOut = 0.0
    public var curve = Curve.linear

    public init() {}
}

/// `tag: {replayGain: track | album}`: ReplayGain 2.0 values written into each audio output's tags.
public struct ReplayGainTags: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable { case track, album }
    public var mode: Mode
    /// For `album`: which items form an album (default `AlbumGrouping.defaultText`).
    public var album: AlbumGrouping?

    public init(mode: Mode, album: AlbumGrouping? = nil) {
        self.mode = mode
        self.album = album
    }
}

extension Job {
    /// How the job groups audio items into albums, when any of its stages needs album loudness
    /// (album normalization, ReplayGain album values); nil when none does.
    public var albumGrouping: AlbumGrouping? {
        transcode?.loudness?.album ?? (tag?.replayGain?.mode == .album ? tag?.replayGain?.album : nil)
    }
}

/// An album's loudness, measured over all its tracks as one stream (their gating blocks pooled),
/// before any of them is written: what album normalization and ReplayGain album values use.
public struct AlbumLoudness: Sendable, Equatable {
    /// The album's group text (what `AlbumGrouping.template` rendered).
    public var group: String
    /// Integrated loudness of the album, LUFS (nil: silent).
    public var integrated: Double?
    /// The highest sample and true peak of any track, linear.
    public var samplePeak: Double
    public var truePeak: Double
    /// Tracks measured.
    public var tracks: Int

    public init(group: String, integrated: Double?, samplePeak: Double, truePeak: Double, tracks: Int) {
        self.group = group
        self.integrated = integrated
        self.samplePeak = samplePeak
        self.truePeak = truePeak
        self.tracks = tracks
    }
}

extension AlbumRecord {
    /// An album's loudness as the manifest records it: LUFS, dBFS and dBTP to 0.01.
    init(_ album: AlbumLoudness) {
        func rounded(_ value: Double?) -> Double? { value.map { ($0 * 100).rounded() / 100 } }
        group = album.group
        integrated = rounded(album.integrated)
        samplePeak = rounded(LoudnessMeasurement.decibels(album.samplePeak))
        truePeak = rounded(LoudnessMeasurement.decibels(album.truePeak))
        tracks = album.tracks
    }
}
