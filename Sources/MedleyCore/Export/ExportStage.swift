import MedleyMedia
import MedleyTags

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
    public var name: NameTemplate
    public let strip: Bool
    public let overwrite: OverwritePolicy
    public let autoOrient: Bool
    /// `quality: same`: a JPEG input written as JPEG keeps its quality and chroma subsampling
    /// (`Export/SameQuality.swift`); `quality` is then nil.
    public var sameQuality = false
    /// The ICC profile the pixels are written in (`export.profile`, default keep).
    public var profile: ExportProfile = .keep
    /// The rendering intent of every profile conversion (`export.intent`); nil: perceptual for CMYK
    /// inputs, relative colorimetric otherwise (`RenderingIntent.default(for:)`).
    public var intent: RenderingIntent?
    /// With `strip`: the ICC profile stays (sharp's `keepIccProfile`).
    public var keepProfile = false
    /// The colour transparent parts are flattened onto (sRGB, 0…1): always when the user names
    /// one (`export.background`), else white for formats without alpha (JPEG).
    public var background: (red: Double, green: Double, blue: Double)?
    /// The saver's format-specific options (lossless, effort, subsampling, bit depth).
    public var encoder = EncoderOptions()
    /// The ID3 version of transcoded MP3s' tags and WAV/AIFF ID3 chunks (`export.id3`, default v2.4).
    public var id3 = ID3Version.v2_4
    /// What is written into an image output's metadata after it is saved (`strip: [...]`, `keep:`;
    /// the tag stage's image fields are added by the image stage).
    public var metadata = MetadataWrite()
}

/// `export.profile`.
public enum ExportProfile: Sendable, Equatable {
    /// The input's own RGB profile (a grey one for grey output); sRGB for CMYK inputs.
    case keep
    /// Convert into this profile and embed it (`srgb`, `p3`, `adobe-rgb` or an `.icc` file).
    case convert(name: String, bytes: [UInt8])
}

/// `export.lossless`, `effort`, `subsampling`, `bitdepth`: nil leaves libvips' default.
public struct EncoderOptions: Sendable, Equatable {
    public var lossless: Bool?
    public var effort: Int?
    public var subsampling: SaveOptions.Subsampling?
    public var bitDepth: Int?
    public init() {}
}
