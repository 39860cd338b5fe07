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
