import Foundation
import MedleyMedia
import MedleyKernels
import MedleyTags

/// The properties of an item (docs/library.md, "Properties"), by their MPMediaItem names. Today Medley reads the
/// file facts and image properties; the tag properties arrive with the media library.
public enum ItemProperties {
    /// Every property name (docs/library.md, "Properties") (usable in `where`, templates and `tag` as they arrive).
    public static let names: [String] = [
        "persistentID", "mediaType", "title", "artist", "albumArtist", "albumTitle", "genre", "composer",
        "comments", "lyrics", "userGrouping", "albumTrackNumber", "albumTrackCount", "discNumber", "discCount",
        "beatsPerMinute", "isCompilation", "releaseDate", "playbackDuration", "artwork", "podcastTitle",
        "format", "codec", "sampleRate", "channels", "bitRate", "width", "height", "frameRate", "orientation",
        "colorSpace", "path", "relpath", "stem", "ext", "size", "modified", "page", "segment",
        // An image's metadata (MetadataProperties.shortNames; `title` is above).
        "rating", "label", "keywords", "caption", "creator", "copyright", "dateTaken", "gps.latitude", "gps.longitude",
        "gps.altitude", "lens",
        // A movie's tracks (docs/movies.md#tracks).
        "audioTracks", "audioLanguages", "subtitleTracks", "subtitleLanguages", "chapters", "hdr",
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
        "stem": .text, "ext": .text, "size": .integer, "modified": .date, "page": .integer, "segment": .integer,
        "rating": .integer, "label": .text, "keywords": .text, "caption": .text, "creator": .text, "copyright": .text,
        "dateTaken": .date, "gps.latitude": .number, "gps.longitude": .number, "gps.altitude": .number, "lens": .text,
        "audioTracks": .integer, "audioLanguages": .text, "subtitleTracks": .integer, "subtitleLanguages": .text,
        "chapters": .integer, "hdr": .text,
    ]

    /// The kind of a property name, or nil for an unknown name: EXIF fields that hold one number
    /// (`exif.FNumber`, `exif.GPSLatitude`, …; see `MetadataProperties.numericExif`) are numbers, other
    /// `exif.*` fields, `iptc.*`, `xmp.*` and a movie's container tags (`tag.*`) text.
    public static func kind(of name: String) -> Kind? {
        if name.hasPrefix("exif.") { return MetadataProperties.numericExif.contains(String(name.dropFirst(5))) ? .number : .text }
        if name.hasPrefix("iptc.") || name.hasPrefix("xmp.") { return .text }
        return name.hasPrefix("tag.") ? .text : kinds[name]
    }

    /// The namespaces of open-ended property names: image metadata (EXIF, IPTC, XMP) and movie container tags.
    public static let namespaces = ["exif.*", "iptc.*", "xmp.*", "tag.*"]

    /// Names an export template may use: the properties, `job`, `inputExt` (the input's extension,
    /// as `ext` is in `where`; in a template `{ext}` is the output's), any EXIF field (`exif.*`)
    /// and any container tag of a movie (`tag.*`).
    public static let templateNames: Set<String> = Set(names + ["job", "inputExt"] + namespaces)

    /// The facts every item has: its `persistentID` (the XXH3 hash of its bytes, as 16 hex
    /// digits), `mediaType`, path, relpath (the folder below the ingest root), stem, ext, size,
    /// modified (ISO 8601, UTC), page.
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
            // The page of a PDF (`ingest.page`); 1 for any other file.
            ("page", .integer(file.page ?? 1)),
            // The part of a recording (`transcode.segment`); 1 for any file that is one item.
            ("segment", .integer(file.segment?.number ?? 1)),
        ]
    }

    /// `stem` and `ext` of a file name: "a.b.jpg" → ("a.b", "jpg"); "README" → ("README", "").
    public static func split(fileName: String) -> (stem: String, ext: String) {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return (fileName, "") }
        return (String(fileName[..<dot]), String(fileName[fileName.index(after: dot)...]))
    }
}

/// What Medley knows about one image: file facts, technical properties and its metadata (EXIF,
/// IPTC, XMP and a sidecar's XMP, through exiv2: `MetadataProperties`).
public struct ImageProperties: Sendable {
    public var values: [(name: String, value: TemplateValue)] = []
    /// What reading the metadata said (a sidecar that is not XMP, a damaged maker note): the item's warnings.
    public var warnings: [String] = []

    public subscript(name: String) -> TemplateValue? {
        values.first { $0.name == name }?.value
    }

    /// Reads the header (no pixels) of an image already opened by libvips; its metadata through
    /// `readPath` (the item's open file) when given, else its path.
    public init(file: IngestedFile, persistentID: UInt64, image: VipsImage, format: String, readPath: String? = nil) {
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: .image) + [
            ("format", .text(format)),
            ("width", .integer(image.width)),
            ("height", .integer(image.height)),
            ("channels", .integer(image.bands)),
            ("bitDepth", .integer(image.bitDepth)),
            ("orientation", .integer(image.orientation)),
            ("colorSpace", .text(image.interpretation + (image.iccProfileLength > 0 ? " (ICC profile, \(image.iccProfileLength) bytes)" : ""))),
        ]
        let metadata = MetadataProperties.read(path: file.path, readPath: readPath)
        // A property the header gave (width, orientation) is not replaced by a metadata short name.
        values += metadata.values.filter { entry in !values.contains { $0.name == entry.name } }
        warnings = metadata.warnings
        // exiv2 0.27 reads no EXIF from some HEIF files libvips reads it from: said, not lost silently.
        if !metadata.values.contains(where: { $0.name.hasPrefix("exif.") }),
           image.fields.contains(where: { $0.name.hasPrefix("exif-ifd") }) {
            warnings.append("metadata: exiv2 reads no EXIF from this \(format) file, which holds some (libvips reads it); exif.* properties are missing")
        }
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
        values += [("audioTracks", .integer(info.audioTracks)), ("subtitleTracks", .integer(info.subtitleTracks)),
                   ("chapters", .integer(info.chapters))]
        if !info.audioLanguages.isEmpty { values.append(("audioLanguages", .text(info.audioLanguages))) }
        if !info.subtitleLanguages.isEmpty { values.append(("subtitleLanguages", .text(info.subtitleLanguages))) }
        // As the headers say: "pq" or "hlg" for an HDR movie.
        if info.transfer == 16 || info.transfer == 18 { values.append(("hdr", .text(info.transfer == 16 ? "pq" : "hlg"))) }
        for (key, name) in Self.tagNames.sorted(by: { $0.key < $1.key }) {
            guard let text = info.tags[key], !text.isEmpty, self[name] == nil else { continue }
            values.append((name, .text(text)))
        }
        // Every container tag as ffprobe's format_tags name it (creation_time, location, make,
        // model, com.apple.quicktime.*), verbatim.
        for tag in info.containerTags { values.append(("tag." + tag.key, .text(tag.value))) }
    }
}


/// The properties of an audio item that Medley reads today (tags arrive with the media library).
struct AudioProperties {
    var values: [(name: String, value: TemplateValue)]
    /// Music unless the tags (or an .m4b container) say podcast or audiobook.
    let mediaType: MediaType

    init(file: IngestedFile, persistentID: UInt64, info: AudioStreamInfo, format: String, tags: MediaTags) {
        // Tag readers file an item only as music, podcast or audioBook (`MediaTags.mediaKind`).
        mediaType = tags["mediaKind"].flatMap(MediaType.init(rawValue:)) ?? (format == "m4b" ? .audioBook : .music)
        values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: mediaType) + [
            ("format", .text(format)),
            ("codec", .text(info.encoding)),
            ("sampleRate", .integer(info.sampleRate)),
            ("channels", .integer(info.channels)),
            ("playbackDuration", .number((info.duration * 1000).rounded() / 1000)),
        ]
        values += Self.tagValues(tags)
        // iTunes files a podcast's title as the album of its episodes.
        if tags["mediaKind"] == "podcast", tags["podcastTitle"] == nil, let album = tags["albumTitle"] {
            values.append(("podcastTitle", .text(album)))
        }
    }

    /// The properties of an audio file whose audio cannot be decoded: its file facts and tags
    /// (read without the decoder), no stream facts, and `warnings` (the decoder's reason first).
    static func undecodable(file: IngestedFile, persistentID: UInt64, format: String, tags: MediaTags,
                            warnings: [String]) -> [(name: String, value: TemplateValue)] {
        let mediaType = tags["mediaKind"].flatMap(MediaType.init(rawValue:)) ?? (format == "m4b" ? .audioBook : .music)
        var values = ItemProperties.fileFacts(file, persistentID: persistentID, mediaType: mediaType) + [("format", .text(format))]
        values += tagValues(tags)
        values.append(("warnings", .text(warnings.joined(separator: "; "))))
        if !tags.uncarried.isEmpty { values.append(("tagsNotCarried", .text(tags.uncarried.joined(separator: "; ")))) }
        return values
    }

    /// Tags as typed properties: numbers as integers, `isCompilation` and `artwork` (present or
    /// not) as 1/0.
    static func tagValues(_ tags: MediaTags) -> [(name: String, value: TemplateValue)] {
        var values: [(name: String, value: TemplateValue)] = []
        for name in MediaTags.names where name != "mediaKind" {
            if let value = tags.entries[name].flatMap({ property($0, kind: ItemProperties.kind(of: name)) }) { values.append((name, value)) }
        }
        values.append(("artwork", .integer(tags.artwork == nil ? 0 : 1)))
        values += extraValues(tags)
        return values
    }

    /// A tag's value as a property of `kind`, or nil when it has none (empty text; text a number or
    /// flag property cannot read). Integers and flags carry over as they are; only text that a
    /// file held for a number ("3 ") is read as one, here, where it enters the properties.
    static func property(_ value: TagValue, kind: ItemProperties.Kind?) -> TemplateValue? {
        switch (value, kind) {
        case (.integer(let integer), _): return .integer(integer)
        case (.flag(let flag), _): return .integer(flag ? 1 : 0)
        case (.text(let text), .integer?), (.text(let text), .boolean?):
            return Int(text.trimmingCharacters(in: .whitespaces)).map(TemplateValue.integer)
        case (.text(let text), _): return text.isEmpty ? nil : .text(text)
        case (.texts(let list), _): return .text(list.joined(separator: "; "))
        }
    }

    /// A property as the tag value a writer stores: integers as integers (1/0 of a boolean as a
    /// flag), text as text. The inverse of ``property(_:kind:)``.
    static func tagValue(_ value: TemplateValue, kind: ItemProperties.Kind?) -> TagValue {
        switch (value, kind) {
        case (.integer(let integer), .boolean?) where integer == 0 || integer == 1: return .flag(integer == 1)
        case (.integer(let integer), _): return .integer(integer)
        case (.text(let text), _), (.path(let text), _): return .text(text)
        case (.number, _): return .text(value.text)
        }
    }

    /// The tags beyond the named properties (docs/metadata.md; ExtraTags) as `tag.<FIELD>`, named by their Vorbis field in upper
    /// case ("tag.ISRC", "tag.REPLAYGAIN_TRACK_GAIN") as a movie's container tags are named, so
    /// probe shows them and `where` and templates can use them; several values joined with "; ",
    /// as `values` joins those of a named property.
    static func extraValues(_ tags: MediaTags) -> [(name: String, value: TemplateValue)] {
        tags.extra.sorted { $0.key < $1.key }.compactMap { field, list in
            list.isEmpty ? nil : ("tag." + field, .text(list.joined(separator: "; ")))
        }
    }

    /// The tag properties of `values` (after the tag stage) as tags to write, with `artwork`, and
    /// the tags beyond the named properties (docs/metadata.md) and the lists of values of `read` (the input's), which the tag
    /// stage does not change (a list whose property was changed is written as the one new value).
    static func tags(from values: [(name: String, value: TemplateValue)], artwork: Artwork?, read: MediaTags = MediaTags()) -> MediaTags {
        var tags = MediaTags(artwork: artwork)
        tags.extra = read.extra
        for (name, value) in values where MediaTags.names.contains(name) {
            let kind = ItemProperties.kind(of: name)
            // Several values read stay several while the tag stage left their property as read.
            if case .texts? = read.entries[name], read.entries[name].flatMap({ property($0, kind: kind) }) == value {
                tags.entries[name] = read.entries[name]
            } else {
                tags.entries[name] = tagValue(value, kind: kind)
            }
        }
        // The item's `mediaType` is the tags' `mediaKind` (a podcast or an audiobook is marked in the
        // output as in the input; music needs no mark).
        if case .text(let name)? = values.first(where: { $0.name == "mediaType" })?.value,
           let type = MediaType(rawValue: name), type == .podcast || type == .audioBook {
            tags.entries["mediaKind"] = .text(type.rawValue)
        }
        // A podcast title that is the album (as read) is already stored as the album.
        if tags["podcastTitle"] == tags["albumTitle"] { tags.entries["podcastTitle"] = nil }
        return tags
    }

    subscript(name: String) -> TemplateValue? { values.first { $0.name == name }?.value }

    /// Metering as AVAudioPlayer reports it, one entry per channel.
    static func metering(_ meter: Meter) -> [(name: String, value: TemplateValue)] {
        (0..<meter.peak.count).flatMap { channel -> [(name: String, value: TemplateValue)] in
            [("peakPower.\(channel)", .number((meter.peakPower(channel: channel) * 100).rounded() / 100)),
             ("averagePower.\(channel)", .number((meter.averagePower(channel: channel) * 100).rounded() / 100))]
        }
    }
}
