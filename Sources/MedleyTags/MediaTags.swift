/// The tags of one audio file by their MPMediaItem property names (docs/library.md, "Properties"), independent of the
/// container they came from or go to.
///
/// Keys: `title`, `artist`, `albumArtist`, `albumTitle`, `genre`, `composer`, `comments`,
/// `lyrics`, `userGrouping`, `releaseDate` (as written: "2024" or "2024-05-01"), `podcastTitle`,
/// `albumTrackNumber`, `albumTrackCount`, `discNumber`, `discCount`, `beatsPerMinute` (integers;
/// text when the file's text is not a plain number), `isCompilation` (a flag), and `mediaKind`
/// ("music", "podcast", "audioBook": MP4 `stik`, ID3 podcast frames, or genre Podcast).
public struct MediaTags: Sendable, Equatable {
    /// Each key's value in the type it was read in (see ``TagValue``); writers switch over it.
    public var entries: [String: TagValue] = [:]
    public var artwork: Artwork?
    /// What a reader found damaged and skipped (a frame, a block, a field), one sentence each;
    /// the rest of the tags was read.
    public var warnings: [String] = []
    /// Tags beyond the named properties (docs/metadata.md) by their Vorbis comment field name in upper case ("ISRC",
    /// "REPLAYGAIN_TRACK_GAIN", "MUSICBRAINZ_TRACKID"), each with every value read (ExtraTags).
    public var extra: [String: [String]] = [:]
    /// What a reader found that no key or extra tag holds, so no output can carry it: ID3 frames
    /// such as TDES or WFED, a second COMM frame, MP4 atoms such as `desc` or `purl`, pictures
    /// after the one kept. Named ("COMM (description \"d\", deu)", "TDES", "desc", "APIC: 2 more
    /// pictures"), so probe shows them and a transcode warns that they were not carried.
    public var uncarried: [String] = []

    public init(entries: [String: TagValue] = [:], artwork: Artwork? = nil) {
        self.entries = entries
        self.artwork = artwork
    }

    /// Tags from text values (as a user or a test writes them): each stored as `text`, which a
    /// writer reads as its field's kind.
    public init(values: [String: String], artwork: Artwork? = nil) {
        self.entries = values.mapValues(TagValue.text)
        self.artwork = artwork
    }

    /// Every value as text (``TagValue/text``), for tests and messages; writers and the properties
    /// use `entries`.
    public var values: [String: String] { entries.mapValues(\.text) }

    /// A value as text; setting stores `text`.
    public subscript(name: String) -> String? {
        get { entries[name]?.text }
        set { entries[name] = newValue.map(TagValue.text) }
    }

    /// The keys that hold several values, with their list. Setting a list (as tests build tags)
    /// makes it the value of a key whose text is that list joined with "; ".
    public var lists: [String: [String]] {
        get { entries.compactMapValues { if case .texts(let list) = $0 { return list } else { return nil } } }
        set {
            for (key, list) in newValue where list.count > 1 && entries[key]?.text == list.joined(separator: "; ") {
                entries[key] = .texts(list)
            }
        }
    }

    /// The values of `key` to write: each value read, or the one value.
    public func all(_ key: String) -> [String] {
        switch entries[key] {
        case .texts(let list)?: return list
        case let value?: return value.text.isEmpty ? [] : [value.text]
        case nil: return []
        }
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
