import Foundation

/// Where a job's items come from.
public struct IngestStage: Sendable {
    /// Absolute folders, files or globs.
    public let roots: [String]
    public let recursive: Bool
    public let media: [MediaTypeName]
    public let include: [Glob]
    public let exclude: [Glob]
    /// `afterwards: { move: FOLDER }`: where sources go once their output is in place (nil: they stay).
    public var afterwards: AfterwardsMove?
    /// `raw:`: how a camera RAW file becomes a picture (`develop`, the default, or its embedded `preview`).
    public var raw: RawMode = .develop
    /// `density:`: dots per inch SVG and PDF files are rendered at when the job's first step names no size
    /// (nil: their own size, 72 dpi, as libvips and ImageMagick take it).
    public var density: Double?
    /// `page:`: which page of a PDF is the item's picture, 1 for the first (libvips' `page` is this minus one).
    public var page: Int = 1
    /// `page: all`: every page of a PDF is an item of its own (`{page}` in templates), pdftoppm's way.
    public var everyPage = false

    /// The media types a job without `ingest.media` takes: what its stages can process — images
    /// for filters, audio for a transcode, both (and anything else) for both or neither; movies
    /// too when it takes poster frames or re-encodes at a `videoQuality`. `transcode`: what the
    /// job's transcode sets (nil: it has none).
    static func defaultMedia(filters: Bool, transcode: (setsAudio: Bool, videoQuality: Bool)?, poster: Bool) -> [MediaTypeName] {
        var media: [MediaTypeName] = transcode != nil && !filters ? [.anyAudio] : (filters && transcode == nil ? [.image] : [.any])
        if poster || transcode?.videoQuality == true, !media.contains(.any) {
            if transcode != nil, transcode?.setsAudio == false { media.removeAll { $0 == .anyAudio } }
            media.append(.anyVideo)
        }
        return media
    }

    /// This stage taking `media` instead.
    func selecting(_ media: [MediaTypeName]) -> IngestStage {
        var stage = IngestStage(roots: roots, recursive: recursive, media: media, include: include, exclude: exclude)
        stage.afterwards = afterwards
        stage.raw = raw
        stage.density = density
        stage.page = page
        stage.everyPage = everyPage
        return stage
    }

    /// The enumerator's view of this stage.
    public var source: IngestSource {
        IngestSource(roots: roots, recursive: recursive, include: include, exclude: exclude,
                     excludedFolders: afterwards?.excludedFolders ?? [])
    }
}

/// `MPMediaType` names a job can select by.
public enum MediaTypeName: String, Sendable, CaseIterable {
    case music, podcast, audioBook, anyAudio, movie, musicVideo, tvShow, anyVideo, image, any

    /// Whether an item of this content kind could be selected (audio: before its tags say
    /// music, podcast or audiobook).
    public func selects(_ kind: MediaKind) -> Bool {
        switch kind {
        case .image: return selects(mediaType: .image)
        case .audio: return MediaType.audio.contains { selects(mediaType: $0) }
        case .movie: return selects(mediaType: .movie)
        }
    }

    /// Whether an item of this `mediaType` (image, music, podcast, audioBook, movie) is selected.
    public func selects(mediaType: MediaType) -> Bool {
        switch self {
        case .any: return true
        case .image: return mediaType == .image
        case .music: return mediaType == .music
        case .podcast: return mediaType == .podcast
        case .audioBook: return mediaType == .audioBook
        case .anyAudio: return mediaType.kind == .audio
        case .movie, .anyVideo: return mediaType == .movie
        case .musicVideo, .tvShow: return false
        }
    }
}


/// Where files come from and which are kept.
public struct IngestSource: Sendable {
    /// Absolute paths: folders, files, or globs like "/abs/photos/**/*.jpg". A relative path is taken against the
    /// working directory. A path that exists as written is never treated as a glob, so a folder literally named
    /// "[2023] Trip" still works.
    public var roots: [String]
    /// Descend into sub-folders of folder roots (default true). Glob roots ignore this: their pattern says how
    /// deep to go ("**" descends, anything else does not).
    public var recursive: Bool
    /// Keep only files matching at least one of these; empty = everything.
    public var include: [Glob]
    /// Drop files matching any of these, even when an include matched.
    public var exclude: [Glob]
    /// Absolute folders the walk never enters (`ingest.afterwards.move`: the sources moved aside),
    /// compared with the path as reached and, for a folder reached through a link, with its real path.
    public var excludedFolders: [String]

    /// Creates a source; see the properties for what each argument means.
    public init(roots: [String], recursive: Bool = true, include: [Glob] = [], exclude: [Glob] = [],
                excludedFolders: [String] = []) {
        self.roots = roots
        self.recursive = recursive
        self.include = include
        self.exclude = exclude
        self.excludedFolders = excludedFolders
    }
}
