/// What the content of a file is, found from its bytes (never from its extension).
public enum MediaKind: String, Sendable, CaseIterable {
    /// A still picture, or an image sequence stored in an image format (animated GIF/WebP, HEIF/AVIF sequences).
    case image
    /// Sound only.
    case audio
    /// Moving pictures, usually with sound.
    case movie
}

/// What an item is to a media library (`MPMediaType`): an image, a movie, or audio as its tags
/// file it (music unless they say podcast or audiobook). The manifest's `mediaType`.
public enum MediaType: String, Sendable, Codable, CaseIterable {
    case image, music, podcast, audioBook, movie

    /// The media types of audio items.
    public static let audio: [MediaType] = [.music, .podcast, .audioBook]

    /// The content kind items of this type have.
    public var kind: MediaKind {
        switch self {
        case .image: return .image
        case .movie: return .movie
        case .music, .podcast, .audioBook: return .audio
        }
    }
}

/// A recognised file format and the kind of media it holds.
public struct SniffedFormat: Equatable, Sendable {
    /// Whether the file is an image, audio or a movie.
    public let kind: MediaKind
    /// Short lowercase format name: "jpeg", "png", "gif", "webp", "tiff", "heif", "avif", "jxl", "bmp",
    /// "wav", "aiff", "caf", "flac", "ogg", "opus", "mp3", "m4a", "mp4", "mov", "3gp", "mkv", "webm" or "avi".
    public let format: String

    /// Creates a format description; `ContentSniffer` is the usual source of these.
    public init(kind: MediaKind, format: String) {
        self.kind = kind
        self.format = format
    }
}

extension SniffedFormat {
    // The full catalogue in one place, so the sniffer and the tests cannot disagree about a kind.
    static let jpeg = SniffedFormat(kind: .image, format: "jpeg")
    static let png = SniffedFormat(kind: .image, format: "png")
    static let gif = SniffedFormat(kind: .image, format: "gif")
    static let webp = SniffedFormat(kind: .image, format: "webp")
    static let tiff = SniffedFormat(kind: .image, format: "tiff")
    static let heif = SniffedFormat(kind: .image, format: "heif")
    static let avif = SniffedFormat(kind: .image, format: "avif")
    static let jxl = SniffedFormat(kind: .image, format: "jxl")
    static let bmp = SniffedFormat(kind: .image, format: "bmp")
    static let wav = SniffedFormat(kind: .audio, format: "wav")
    static let aiff = SniffedFormat(kind: .audio, format: "aiff")
    static let caf = SniffedFormat(kind: .audio, format: "caf")
    static let flac = SniffedFormat(kind: .audio, format: "flac")
    static let ogg = SniffedFormat(kind: .audio, format: "ogg")
    static let opus = SniffedFormat(kind: .audio, format: "opus")
    static let mp3 = SniffedFormat(kind: .audio, format: "mp3")
    static let m4a = SniffedFormat(kind: .audio, format: "m4a")
    /// An audiobook (the "M4B " brand): MPMediaType audioBook unless its tags say otherwise.
    static let m4b = SniffedFormat(kind: .audio, format: "m4b")
    /// Ogg with a Theora stream.
    static let ogv = SniffedFormat(kind: .movie, format: "ogv")
    static let mp4 = SniffedFormat(kind: .movie, format: "mp4")
    static let mov = SniffedFormat(kind: .movie, format: "mov")
    static let threeGP = SniffedFormat(kind: .movie, format: "3gp")
    static let mkv = SniffedFormat(kind: .movie, format: "mkv")
    static let webm = SniffedFormat(kind: .movie, format: "webm")
    static let avi = SniffedFormat(kind: .movie, format: "avi")
}
