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


/// EXIF fields as numbers, the way `exiftool -n` gives them, from libvips' field strings
/// ("14/5 (f/2.8, Rational, 1 components, 8 bytes)"): integers as integers, rationals as
/// decimals, several components separated by spaces, text as it is stored; GPS latitude,
/// longitude and altitude as signed decimal degrees (metres), with their Ref applied (S, W and
/// below sea level are negative). BYTE and UNDEFINED fields keep libexif's text.
enum ExifValues {
    /// EXIF fields that hold one number, compared as numbers in `where`.
    static let numericFields: Set<String> = [
        "GPSLatitude", "GPSLongitude", "GPSAltitude", "GPSSpeed", "GPSImgDirection", "GPSDestBearing",
        "FNumber", "ExposureTime", "ExposureBiasValue", "FocalLength", "FocalLengthIn35mmFilm", "ISOSpeedRatings",
        "XResolution", "YResolution", "ResolutionUnit", "Orientation", "ApertureValue", "ShutterSpeedValue",
        "BrightnessValue", "MaxApertureValue", "SubjectDistance", "PixelXDimension", "PixelYDimension",
        "ImageWidth", "ImageLength", "ExposureProgram", "MeteringMode", "LightSource", "Flash", "WhiteBalance",
        "DigitalZoomRatio", "ColorSpace", "ExposureMode", "SceneCaptureType", "Contrast", "Saturation",
        "Sharpness", "SensingMethod", "CustomRendered", "GainControl", "YCbCrPositioning", "SubjectDistanceRange",
    ]

    /// One libvips EXIF string: its stored value (before libexif's text in parentheses) and type.
    struct Field {
        var stored: String
        var display: String
        var type: String
    }

    static func parse(_ text: String) -> Field? {
        // "<stored> (<display>, <Type>, <N> components, <M> bytes)": read the fixed tail first.
        guard text.hasSuffix(" bytes)") else { return nil }
        var parts = text.dropLast(1).components(separatedBy: ", ")
        guard parts.count >= 4, parts[parts.count - 1].hasSuffix(" bytes"), parts[parts.count - 2].hasSuffix(" components") else { return nil }
        let type = parts[parts.count - 3]
        parts.removeLast(3)
        let head = parts.joined(separator: ", ")
        if type == "ASCII" {
            // The stored text and libexif's are the same: "<s> (<s>".
            let count = head.count
            guard count >= 2, (count - 2) % 2 == 0 else { return nil }
            let stored = String(head.prefix((count - 2) / 2))
            return Field(stored: stored, display: stored, type: type)
        }
        guard let open = head.range(of: " (") else { return nil }
        return Field(stored: String(head[..<open.lowerBound]), display: String(head[open.upperBound...]), type: type)
    }

    /// Rounded to 10 decimals, so that 48 + 51/60 + 27.72/3600 reads 48.8577, as exiftool prints it.
    static func tidy(_ number: Double) -> Double { (number * 1e10).rounded() / 1e10 }

    /// The numbers of an integer or rational field, or nil for other types.
    static func numbers(_ field: Field) -> [Double]? {
        let tokens = field.stored.split(separator: " ")
        switch field.type {
        case "Short", "Long", "SShort", "SLong":
            let values = tokens.compactMap { Double($0) }
            return values.count == tokens.count && !values.isEmpty ? values : nil
        case "Rational", "SRational":
            let values: [Double] = tokens.compactMap { token in
                let pair = token.split(separator: "/")
                guard pair.count == 2, let n = Double(pair[0]), let d = Double(pair[1]) else { return nil }
                return d == 0 ? nil : n / d
            }
            return values.count == tokens.count && !values.isEmpty ? values : nil
        default:
            return nil
        }
    }

    /// Every `exif.*` property of an image from its libvips fields (name, string), in order.
    static func properties(_ fields: [(name: String, text: String)]) -> [(name: String, value: TemplateValue)] {
        let parsed: [(name: String, field: Field?, text: String)] = fields.map { ($0.name, parse($0.text), $0.text) }
        func stored(_ name: String) -> String? {
            parsed.first { $0.name == name }?.field?.stored.trimmingCharacters(in: .whitespaces)
        }
        var out: [(name: String, value: TemplateValue)] = []
        for index in parsed.indices {
            let (name, field, text) = parsed[index]
            guard let field else {
                out.append(("exif." + name, .text(ImageProperties.exifValue(text))))
                continue
            }
            guard let numbers = numbers(field) else {
                // ASCII as stored; BYTE and UNDEFINED as libexif reads them.
                out.append(("exif." + name, .text(field.type == "ASCII" ? field.stored : field.display)))
                continue
            }
            var value: Double? = numbers.count == 1 ? numbers[0] : nil
            switch name {
            case "GPSLatitude", "GPSLongitude":
                guard numbers.count == 3 else { break }
                let degrees = numbers[0] + numbers[1] / 60 + numbers[2] / 3600
                let ref = stored(name + "Ref")?.uppercased()
                value = ref == "S" || ref == "W" ? -degrees : degrees
            case "GPSAltitude":
                // libexif gives GPSAltitudeRef (a BYTE) as text: "Sea level" (0, above) or
                // "Sea level reference" (1, below).
                let ref = parsed.first { $0.name == "GPSAltitudeRef" }?.field?.display.lowercased() ?? ""
                if let above = value, ref.contains("reference") || ref.hasPrefix("1") { value = -above }
            default:
                break
            }
            if let value {
                let tidy = Self.tidy(value)
                let whole = field.type.hasSuffix("Rational") || name.hasPrefix("GPS") ? nil : Int(exactly: tidy)
                out.append(("exif." + name, whole.map { .integer($0) } ?? .number(tidy)))
            } else {
                out.append(("exif." + name, .text(numbers.map { TemplatePlaceholder.plain(tidy($0)) }.joined(separator: " "))))
            }
        }
        return out
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
