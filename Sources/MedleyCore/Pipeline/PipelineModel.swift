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
    public internal(set) var transcode: TranscodeSettings?
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
    /// `poster:`: movies become their frame at this time, then go through filters and image export.
    public internal(set) var poster: PosterStage?
    /// `animation:`: movies become an animated GIF or WebP of a stretch of them (nil: none).
    public internal(set) var animation: AnimationSettings?
    /// `sprites:`: movies become a grid of frames every T seconds, with a WebVTT file (nil: none).
    public internal(set) var sprites: SpriteSettings?
    /// `spectrogram:`: audio items become a picture of their spectrum over time (nil: none).
    public internal(set) var spectrogram: SpectrogramSettings?
    /// `waveform:`: audio items become a picture of their waveform (nil: none).
    public internal(set) var waveform: WaveformSettings?
    /// `watermark:`: a logo or text composited onto every image after its filters (nil: none).
    public internal(set) var watermark: Watermark?
    /// `contactSheet:`: the exported images as thumbnails on sheets (nil: none).
    public internal(set) var contactSheet: ContactSheetStage?
    /// `report:`: an HTML page about each run of the job (nil: none).
    public internal(set) var report: ReportStage?
    /// `analyze:`'s image analyses, recorded in each image's manifest line (`Analyze/`).
    public internal(set) var imageAnalyses: Set<ImageAnalysisKind> = []
    /// `analyze: [loudness]`: measure every audio output's EBU R128 loudness as written.
    public internal(set) var analyzesLoudness = false
    /// `autoAdjust:`: per-image tuned filters before the job's own (nil: none).
    public internal(set) var autoAdjust: AutoAdjustSettings?
    /// The settings that shape each kind of output, for noticing what a changed pipeline affects.
    public internal(set) var settings = JobSettings()
}

/// The job's settings as canonical text, per kind of item: changing a filter redoes the images
/// only, changing the transcode settings the audio only, changing the export both.
public struct JobSettings: Sendable {
    public var image = ""
    public var audio = ""
}
