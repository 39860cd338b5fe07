import MedleyMedia
import MedleyTags
import Foundation

/// An ingested file once it is known to be media the job may want.
struct Item {
    /// The file as the enumerator listed it (and `InputFile` checked it).
    let file: IngestedFile
    /// What decoders open: the item's checked open file (`InputFile.readPath`), never `file.path`.
    let source: String
    /// Its kind and format, from its bytes.
    let sniffed: SniffedFormat
    /// The XXH3 hash of its bytes.
    let persistentID: UInt64
}

/// An item read far enough for `where` and `tag` to judge it: its properties, and what its
/// output step reads next.
struct OpenedItem {
    /// What each kind's output step continues from.
    enum Content {
        case image(header: VipsImage, messages: LibraryMessages)
        case audio(reader: AudioSource, tags: MediaTags)
        case movie(MovieInfo)
    }

    /// What the output step reads next.
    var content: Content
    /// `image`, `movie`, or the audio's `music`, `podcast` or `audioBook`.
    let mediaType: MediaType
    /// Its properties: as read, then as `tag` leaves them.
    var properties: [(name: String, value: TemplateValue)]
    /// What reading it could not take (tags that cannot be read, when the job does not use them).
    var warnings: [String] = []

    /// A property by name, as templates read it.
    subscript(name: String) -> TemplateValue? { properties.first { $0.name == name }?.value }
}


/// One file found by ingest.
public struct IngestedFile: Sendable, Equatable {
    /// Absolute path as reached under the root (not symlink-resolved), so outputs mirror what the user sees.
    public let path: String
    /// The folder it was found under (for a file given directly: its folder).
    public let root: String
    /// Path below `root`, "/"-separated, e.g. "nested/deeper/tiny.tif".
    public let relativePath: String
    /// Size in bytes (of the target, for a followed symlink).
    public let size: Int64
    /// Last modification time (of the target, for a followed symlink).
    public let modified: Date
    /// The root with every symbolic link resolved, as it was when the walk began: an input is read only if the file
    /// opened for it lies below this (`InputFile.open`).
    public let canonicalRoot: String
    /// Whether the walk reached the file through a symbolic link (the file, a folder on its path, or a file given as
    /// a root). Such a file is opened by following links and then checked; any other is opened component by
    /// component without following a link, so a link swapped in after the listing fails the item.
    public let throughLink: Bool
    /// `ingest.page: all`: the page of a PDF this item is (1 for the first); nil for a file that is one item.
    public var page: Int? = nil
    /// `transcode.segment`: the part of a recording this item is; nil for a file that is one item.
    public var segment: SegmentPart? = nil

    /// What the run state, output claims and shards' manifests know the item by: its path, and for a page of a
    /// PDF `path#page=N`, for a segment of a recording `path#segment=N` (a media fragment's spelling).
    var key: String { path + fragment }
    /// The manifest's `item`: the path below the root, with the page or segment as `key` has it.
    var itemName: String { relativePath + fragment }
    private var fragment: String {
        if let page { return "#page=\(page)" }
        if let segment { return "#segment=\(segment.number)" }
        return ""
    }

    /// Creates a file record; `FileEnumerator` is the usual source of these. `canonicalRoot` defaults to `root`.
    public init(path: String, root: String, relativePath: String, size: Int64, modified: Date,
                canonicalRoot: String? = nil, throughLink: Bool = false) {
        self.path = path
        self.root = root
        self.relativePath = relativePath
        self.size = size
        self.modified = modified
        self.canonicalRoot = canonicalRoot ?? root
        self.throughLink = throughLink
    }

    /// The same file with the size and modification time of what was actually opened.
    func with(size: Int64, modified: Date) -> IngestedFile {
        var file = IngestedFile(path: path, root: root, relativePath: relativePath, size: size, modified: modified,
                                canonicalRoot: canonicalRoot, throughLink: throughLink)
        file.page = page
        file.segment = segment
        return file
    }

    /// The same file as the item of one page.
    func page(_ number: Int) -> IngestedFile {
        var file = self
        file.page = number
        return file
    }

    /// The same file as the item of one segment.
    func segment(_ part: SegmentPart) -> IngestedFile {
        var file = self
        file.segment = part
        return file
    }

    /// The modification time in nanoseconds since 1970, held inside Int64 (±292 years): a file dated after 2262
    /// (`touch -d 2300-01-01`) is any file's right, not a reason to stop.
    var modifiedNanoseconds: Int64 {
        Int64(Int(saturating: modified.timeIntervalSince1970 * 1e9, in: Int(Int64.min)...Int(Int64.max)))
    }
}


/// `transcode.segment: {every: 10m}`: one of the numbered parts a recording is split into.
public struct SegmentPart: Sendable, Equatable {
    /// 1 for the first part.
    public let number: Int
    /// Whether it is the last: it runs to the end of the recording, whatever its header said of the length.
    public let isLast: Bool
}


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
    /// Short lowercase format name: "jpeg", "png", "gif", "webp", "tiff", "heif", "avif", "jxl", "bmp", "svg", "pdf",
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
    /// Vectors, rendered at the size the job asks for (`ImageRenderer`): SVG by librsvg, PDF pages by poppler.
    static let svg = SniffedFormat(kind: .image, format: "svg")
    static let pdf = SniffedFormat(kind: .image, format: "pdf")

    /// Whether libvips renders this format at any scale (its loader takes `scale` and `dpi`).
    var isVector: Bool { self == .svg || self == .pdf }
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
