import Foundation
import MedleyMedia

/// The properties of an item (docs/library.md, "Properties"), by their MPMediaItem names. Today Medley reads the
/// file facts and image properties; the tag properties arrive with the media library.
public enum ItemProperties {
    /// Every property name (docs/library.md, "Properties") (usable in `where`, templates and `tag` as they arrive).
    public static let names: [String] = [
        "persistentID", "mediaType", "title", "artist", "albumArtist", "albumTitle", "genre", "composer",
        "comments", "lyrics", "userGrouping", "albumTrackNumber", "albumTrackCount", "discNumber", "discCount",
        "beatsPerMinute", "isCompilation", "releaseDate", "playbackDuration", "artwork", "podcastTitle",
        "format", "codec", "sampleRate", "channels", "bitRate", "width", "height", "frameRate", "orientation",
        "colorSpace", "path", "relpath", "stem", "ext", "size", "modified",
    ]

    /// What kind of value each property holds: `where` compares by it and rejects mismatches
    /// (`genre: {gt: 3}`) at validation. EXIF fields (`exif.*`) are text.
    public enum Kind: String, Sendable {
        /// Compared case-insensitively; `contains`, `matches`.
        case text
        /// Whole numbers (track numbers, sizes, pixels).
        case integer
        /// Real numbers (seconds, frames per second).
        case number
        /// true / false.
        case boolean
        /// ISO 8601 dates or years ("2024", "2024-05-01", "2024-05-01T10:00:00Z"), compared in time order.
        case date
    }

    public static let kinds: [String: Kind] = [
        "persistentID": .text, "mediaType": .text, "title": .text, "artist": .text, "albumArtist": .text,
        "albumTitle": .text, "genre": .text, "composer": .text, "comments": .text, "lyrics": .text,
        "userGrouping": .text, "albumTrackNumber": .integer, "albumTrackCount": .integer, "discNumber": .integer,
        "discCount": .integer, "beatsPerMinute": .integer, "isCompilation": .boolean, "releaseDate": .date,
        "playbackDuration": .number, "artwork": .boolean, "podcastTitle": .text, "format": .text, "codec": .text,
        "sampleRate": .integer, "channels": .integer, "bitRate": .integer, "width": .integer, "height": .integer,
        "frameRate": .number, "orientation": .integer, "colorSpace": .text, "path": .text, "relpath": .text,
        "stem": .text, "ext": .text, "size": .integer, "modified": .date,
    ]

    /// The kind of a property name, or nil for an unknown name: EXIF fields that hold one number
    /// (`exif.FNumber`, `exif.GPSLatitude`, …; see `ExifValues.numericFields`) are numbers, other
    /// `exif.*` fields and a movie's container tags (`tag.*`) text.
    public static func kind(of name: String) -> Kind? {
        if name.hasPrefix("exif.") { return ExifValues.numericFields.contains(String(name.dropFirst(5))) ? .number : .text }
        return name.hasPrefix("tag.") ? .text : kinds[name]
    }

    /// The namespaces of open-ended property names: EXIF fields and movie container tags.
    public static let namespaces = ["exif.*", "tag.*"]

    /// Names an export template may use: the properties, `job`, `inputExt` (the input's extension,
    /// as `ext` is in `where`; in a template `{ext}` is the output's), any EXIF field (`exif.*`)
    /// and any container tag of a movie (`tag.*`).
    public static let templateNames: Set<String> = Set(names + ["job", "inputExt"] + namespaces)

    /// The facts every item has: its `persistentID` (the XXH3 hash of its bytes, as 16 hex
    /// digits), `mediaType`, path, relpath (the folder below the ingest root), stem, ext, size,
    /// modified (ISO 8601, UTC).
    static func fileFacts(_ file: IngestedFile, persistentID: UInt64, mediaType: MediaType) -> [(name: String, value: TemplateValue)] {
        let (stem, ext) = split(fileName: (file.relativePath as NSString).lastPathComponent)
        return [
            ("persistentID", .text(ContentHash.hex(persistentID))),
            ("mediaType", .text(mediaType.rawValue)),
            ("path", .text(file.path)),
            ("relpath", .path((file.relativePath as NSString).deletingLastPathComponent)),
            ("stem", .text(stem)),
            ("ext", .text(ext)),
            ("size", .integer(Int(file.size))),
            // A value-type format style: no formatter object built per item.
            ("modified", .text(file.modified.formatted(.iso8601))),
        ]
    }

    /// `stem` and `ext` of a file name: "a.b.jpg" → ("a.b", "jpg"); "README" → ("README", "").
    public static func split(fileName: String) -> (stem: String, ext: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[fileName.index(after: dot)...]))
    }
}

/// What Medley knows about one image: file facts, technical properties and EXIF fields.
public struct ImageProperties: Sendable {
    public var values: [(name: String, value: TemplateValue)] = []

    public subscript(name: String) -> TemplateValue? {
        values.first { $0.name == name }?.value
    }

    /// Reads the header (no pixels) of an image already opened by libvips.
    public init(file: IngestedFile, persistentID: UInt64, image: VipsImage, format: String) {
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: .image) + [
            ("format", .text(format)),
            ("width", .integer(image.width)),
            ("height", .integer(image.height)),
            ("channels", .integer(image.bands)),
            ("bitDepth", .integer(image.bitDepth)),
            ("orientation", .integer(image.orientation)),
            ("colorSpace", .text(image.interpretation + (image.iccProfileLength > 0 ? " (ICC profile, \(image.iccProfileLength) bytes)" : ""))),
        ]
        let exif = image.fields.compactMap { field in
            Self.exifName(field.name).map { (name: String($0.dropFirst("exif.".count)), text: field.value) }
        }
        values += ExifValues.properties(exif)
    }

    /// libvips' "exif-ifd0-Make" → "exif.Make"; other fields are not EXIF.
    static func exifName(_ field: String) -> String? {
        let parts = field.split(separator: "-", maxSplits: 2)
        guard parts.count == 3, parts[0] == "exif", parts[1].hasPrefix("ifd") else { return nil }
        return "exif." + parts[2]
    }

    /// libvips writes "Medley (Medley, ASCII, 7 components, 7 bytes)": keep the value only.
    static func exifValue(_ text: String) -> String {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return text }
        return String(text[..<open.lowerBound])
    }
}

/// What Medley knows about one movie: file facts, the streams' technical properties and the
/// container's tags.
public struct MovieProperties: Sendable {
    public var values: [(name: String, value: TemplateValue)] = []

    public subscript(name: String) -> TemplateValue? {
        values.first { $0.name == name }?.value
    }

    /// Tag keys as libavformat names them → property names (docs/library.md, "Properties").
    static let tagNames = [
        "title": "title", "artist": "artist", "album_artist": "albumArtist", "album": "albumTitle", "genre": "genre",
        "composer": "composer", "comment": "comments", "description": "comments", "date": "releaseDate",
        "grouping": "userGrouping", "show": "podcastTitle",
    ]

    /// `format`: the container as Medley's sniffer names it (mp4, mov, mkv, webm, 3gp).
    public init(file: IngestedFile, persistentID: UInt64, info: MovieInfo, format: String) {
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: .movie) + [
            ("format", .text(format)),
            ("codec", .text(info.videoCodec)),
            ("width", .integer(info.displayWidth)),
            ("height", .integer(info.displayHeight)),
            ("frameRate", .number((info.frameRate * 1000).rounded() / 1000)),
            ("bitRate", .integer(info.bitRate)),
            ("orientation", .integer(info.rotation)),
            ("playbackDuration", .number((info.duration * 1000).rounded() / 1000)),
        ]
        if let audio = info.audioCodec {
            values += [("audioCodec", .text(audio)), ("sampleRate", .integer(info.sampleRate)), ("channels", .integer(info.channels))]
        }
        for (key, name) in Self.tagNames.sorted(by: { $0.key < $1.key }) {
            guard let text = info.tags[key], !text.isEmpty, self[name] == nil else { continue }
            values.append((name, .text(text)))
        }
        // Every container tag as ffprobe's format_tags name it (creation_time, location, make,
        // model, com.apple.quicktime.*), verbatim.
        for tag in info.containerTags { values.append(("tag." + tag.key, .text(tag.value))) }
    }
}
