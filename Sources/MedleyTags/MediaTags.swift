/// The tags of one audio file by their MPMediaItem property names (SPEC §4), independent of the
/// container they came from or go to.
///
/// Keys: `title`, `artist`, `albumArtist`, `albumTitle`, `genre`, `composer`, `comments`,
/// `lyrics`, `userGrouping`, `releaseDate` (as written: "2024" or "2024-05-01"), `podcastTitle`,
/// `albumTrackNumber`, `albumTrackCount`, `discNumber`, `discCount`, `beatsPerMinute` (decimal
/// text), `isCompilation` ("1" or "0"), and `mediaKind` ("music", "podcast", "audioBook": MP4
/// `stik`, ID3 podcast frames, or genre Podcast).
public struct MediaTags: Sendable, Equatable {
    public var values: [String: String]
    public var artwork: Artwork?
    /// What a reader found damaged and skipped (a frame, a block, a field), one sentence each;
    /// the rest of the tags was read.
    public var warnings: [String] = []
    /// Tags outside SPEC §4 by their Vorbis comment field name in upper case ("ISRC",
    /// "REPLAYGAIN_TRACK_GAIN", "MUSICBRAINZ_TRACKID"), each with every value read (ExtraTags).
    public var extra: [String: [String]] = [:]
    /// Every value of a key that had several (three ARTIST fields); `values` holds them joined
    /// with "; ". Writers use the list only while the joined value is unchanged.
    public var lists: [String: [String]] = [:]
    /// What a reader found that no key or extra tag holds, so no output can carry it: ID3 frames
    /// such as TDES or WFED, a second COMM frame, MP4 atoms such as `desc` or `purl`, pictures
    /// after the one kept. Named ("COMM (description \"d\", deu)", "TDES", "desc", "APIC: 2 more
    /// pictures"), so probe shows them and a transcode warns that they were not carried.
    public var uncarried: [String] = []

    public init(values: [String: String] = [:], artwork: Artwork? = nil) {
        self.values = values
        self.artwork = artwork
    }

    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// The values of `key` to write: the list read, while `values` still holds it joined, else the one value.
    public func all(_ key: String) -> [String] {
        guard let value = values[key], !value.isEmpty else { return [] }
        if let list = lists[key], list.count > 1, list.joined(separator: "; ") == value { return list }
        return [value]
    }

    /// Every key a tag can have, in the order `probe` lists them.
    public static let names = [
        "title", "artist", "albumArtist", "albumTitle", "genre", "composer", "comments", "lyrics", "userGrouping",
        "albumTrackNumber", "albumTrackCount", "discNumber", "discCount", "beatsPerMinute", "isCompilation",
        "releaseDate", "podcastTitle", "mediaKind",
    ]
}

/// Embedded cover art: the encoded image as stored (JPEG or PNG).
public struct Artwork: Sendable, Equatable {
    public var data: [UInt8]
    /// "image/jpeg" or "image/png".
    public var mimeType: String

    public init(data: [UInt8], mimeType: String) {
        self.data = data
        self.mimeType = mimeType
    }

    /// The file extension for `mimeType`.
    public var fileExtension: String { mimeType == "image/png" ? "png" : "jpg" }
}
