import Foundation

/// Vorbis comments (FLAC, Ogg Vorbis, Opus) and the FLAC picture structure they share.
///
/// Mapping: TITLE, ARTIST, ALBUMARTIST (also read: "ALBUM ARTIST"), ALBUM, GENRE, COMPOSER,
/// TRACKNUMBER + TRACKTOTAL (also read: "n/N", TOTALTRACKS), DISCNUMBER + DISCTOTAL (also read:
/// TOTALDISCS), LYRICS (also read: UNSYNCEDLYRICS), COMMENT (also read: DESCRIPTION), DATE, BPM,
/// COMPILATION ("1"/"0"), GROUPING; every other field is carried as it is (ExtraTags), and
/// repeated fields keep all their values. Artwork is a FLAC picture: its own metadata block in .flac,
/// base64 in METADATA_BLOCK_PICTURE in Ogg (legacy COVERART is read). No field marks a
/// podcast, an audiobook or a podcast's title.
enum VorbisComments {
    static let keys: Set<String> = [
        "title", "artist", "albumArtist", "albumTitle", "genre", "composer", "comments", "lyrics", "userGrouping",
        "albumTrackNumber", "albumTrackCount", "discNumber", "discCount", "beatsPerMinute", "isCompilation",
        "releaseDate", "artwork",
    ]

    /// Field name → key, for the fields that map one to one.
    private static let plainFields: [(field: String, key: String)] = [
        ("TITLE", "title"), ("ARTIST", "artist"), ("ALBUMARTIST", "albumArtist"), ("ALBUM", "albumTitle"),
        ("GENRE", "genre"), ("COMPOSER", "composer"), ("GROUPING", "userGrouping"), ("DATE", "releaseDate"),
        ("BPM", "beatsPerMinute"), ("COMMENT", "comments"), ("LYRICS", "lyrics"),
    ]
    private static let aliases = [
        "ALBUM ARTIST": "ALBUMARTIST", "ALBUM_ARTIST": "ALBUMARTIST", "UNSYNCEDLYRICS": "LYRICS",
        "DESCRIPTION": "COMMENT", "TOTALTRACKS": "TRACKTOTAL", "TOTALDISCS": "DISCTOTAL",
    ]

    /// The fields this mapping reads; any other is carried as an extra tag.
    private static let known: Set<String> = Set(plainFields.map(\.field)).union([
        "TRACKNUMBER", "TRACKTOTAL", "DISCNUMBER", "DISCTOTAL", "COMPILATION", "METADATA_BLOCK_PICTURE", "COVERART", "COVERARTMIME",
    ])

    /// One tag table for every container: a standard field that arrives as a user-defined one
    /// (ID3 `TXXX:Composer`, which some taggers write, or an MP4 `----:com.apple.iTunes:COMPOSER`
    /// item) fills its key, as the same field in a Vorbis comment would, when the container's own
    /// frame or atom did not. Names match as Vorbis names do, whatever their case (TXXX:Album
    /// Artist is ALBUM ARTIST). A value beside the key's own one stays an extra tag.
    static func promoteStandardFields(_ tags: inout MediaTags) {
        for name in tags.extra.keys.sorted() {
            guard let values = tags.extra[name]?.filter({ !$0.isEmpty }), !values.isEmpty else { continue }
            let field = aliases[name] ?? name
            if let key = plainFields.first(where: { $0.field == field })?.key {
                guard tags.entries[key] == nil else { continue }
                tags.entries[key] = TagValue.several(values)
                if key == "beatsPerMinute", case .text(let bpm)? = tags.entries[key] { tags.entries[key] = TagValues.number(bpm) }
            } else if let numbered = [
                "TRACKNUMBER": ("albumTrackNumber", "albumTrackCount", false), "TRACKTOTAL": ("albumTrackNumber", "albumTrackCount", true),
                "DISCNUMBER": ("discNumber", "discCount", false), "DISCTOTAL": ("discNumber", "discCount", true),
            ][field] {
                let (numberKey, countKey, isCount) = numbered
                guard tags.entries[isCount ? countKey : numberKey] == nil else { continue }
                let pair: (number: Int?, count: Int?) = isCount ? (nil, Int(values[0])) : TagValues.pair(values[0])
                guard pair.number != nil || pair.count != nil else { continue }
                var found = MediaTags()
                TagValues.store(pair, into: &found, number: numberKey, count: countKey)
                for (key, value) in found.entries where tags.entries[key] == nil { tags.entries[key] = value }
            } else if field == "COMPILATION" {
                guard tags.entries["isCompilation"] == nil, let flag = TagValues.flag(values[0]) else { continue }
                tags.entries["isCompilation"] = .flag(flag)
            } else {
                continue
            }
            tags.extra[name] = nil
        }
    }

    // MARK: Comment block

    /// Vendor string and NAME=value fields of a comment block (little-endian lengths). A field
    /// whose length runs past the block ends the list: the fields before it are kept, and
    /// `damage` says what was lost.
    static func parse(_ bytes: [UInt8], at offset: Int = 0) throws
        -> (vendor: String, fields: [(name: String, value: String)], damage: String?) {
        var reader = ByteReader(bytes, at: offset)
        let vendor = decodeText(try reader.take(try reader.u32LE()))
        let count = try reader.u32LE()
        var fields: [(String, String)] = []
        for index in 0..<count {
            guard let length = try? reader.u32LE(), let entry = try? reader.take(length) else {
                return (vendor, fields, "Vorbis comment \(index + 1) of \(count) runs past the end of the comment block; "
                                        + "it and the \(count - index - 1) after it were not read")
            }
            guard let equals = entry.firstIndex(of: 0x3D) else { continue }
            fields.append((decodeText(entry[..<equals]).uppercased(), decodeText(entry[(equals + 1)...])))
        }
        return (vendor, fields, nil)
    }

    /// A comment block: vendor, count, fields (no framing bit).
    static func encode(vendor: String, fields: [(name: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = []
        let vendorBytes = Array(vendor.utf8)
        out.appendLE(vendorBytes.count, bytes: 4)
        out.append(contentsOf: vendorBytes)
        out.appendLE(fields.count, bytes: 4)
        for field in fields {
            let entry = Array((field.name + "=" + field.value).utf8)
            out.appendLE(entry.count, bytes: 4)
            out.append(contentsOf: entry)
        }
        return out
    }

    static func tags(from fields: [(name: String, value: String)], pictures: [[UInt8]]) -> MediaTags {
        var byName: [String: [String]] = [:]
        for field in fields where !field.value.isEmpty {
            byName[aliases[field.name] ?? field.name, default: []].append(field.value)
        }
        var tags = MediaTags()
        for (field, key) in plainFields {
            tags.entries[key] = byName[field].flatMap(TagValue.several)
        }
        if case .text(let bpm)? = tags.entries["beatsPerMinute"] { tags.entries["beatsPerMinute"] = TagValues.number(bpm) }
        // Everything else is carried as it is (ExtraTags).
        for (name, values) in byName where !known.contains(name) { tags.extra[name] = values }
        for (field, key) in [("TRACKNUMBER", "albumTrackNumber"), ("DISCNUMBER", "discNumber")] {
            if let all = byName[field], all.count > 1 {
                tags.warnings.append("\(field) has \(all.count) values (\(all.joined(separator: ", "))); only the first, \(all[0]), was read")
            }
        }
        func numbers(_ numberField: String, _ totalField: String, _ numberKey: String, _ countKey: String) {
            if let number = byName[numberField]?.first {
                let pair = TagValues.pair(number)
                if pair.number == nil, pair.count == nil { tags.entries[numberKey] = .text(number) }
                TagValues.store(pair, into: &tags, number: numberKey, count: countKey)
            }
            if let total = byName[totalField]?.first { TagValues.store((nil, Int(total)), into: &tags, number: numberKey, count: countKey) }
        }
        numbers("TRACKNUMBER", "TRACKTOTAL", "albumTrackNumber", "albumTrackCount")
        numbers("DISCNUMBER", "DISCTOTAL", "discNumber", "discCount")
        if let compilation = byName["COMPILATION"] {
            tags.entries["isCompilation"] = .flag(TagValues.flag(compilation.joined(separator: "; ")) == true)
        }
        var found = pictures.compactMap(picture)
        for encoded in byName["METADATA_BLOCK_PICTURE"] ?? [] {
            if let bytes = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters), let picture = picture([UInt8](bytes)) {
                found.append(picture)
            }
        }
        if found.isEmpty, let encoded = byName["COVERART"]?.first,
           let bytes = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters), !bytes.isEmpty {
            found.append((3, Artwork(sniffing: [UInt8](bytes), declared: byName["COVERARTMIME"]?.first ?? "")))
        }
        tags.artwork = (found.first { $0.type == 3 } ?? found.first)?.artwork
        if found.count > 1 { tags.uncarried.append("picture: \(found.count - 1) more picture\(found.count == 2 ? "" : "s")") }
        TagValues.inferKind(&tags)
        return tags
    }

    /// The fields for `tags` (artwork apart), and the keys they cannot hold.
    static func fields(for tags: MediaTags) -> (fields: [(name: String, value: String)], unsupported: [String]) {
        let values = TagValues.present(tags)
        var fields: [(String, String)] = []
        var unsupported: [String] = []
        for (field, key) in plainFields {
            for value in tags.all(key) { fields.append((field, TagValues.clean(value))) }
        }
        let numbered = [("TRACKNUMBER", "albumTrackNumber"), ("TRACKTOTAL", "albumTrackCount"),
                        ("DISCNUMBER", "discNumber"), ("DISCTOTAL", "discCount")]
        for (field, key) in numbered {
            // A number is written as read; text (a TRACKNUMBER that was not a number) as it was.
            switch values[key] {
            case .integer(let number)?: fields.append((field, String(number)))
            case let value?: fields.append((field, TagValues.clean(value.text)))
            case nil: break
            }
        }
        if let compilation = values["isCompilation"] {
            if let flag = TagValues.flag(compilation) { fields.append(("COMPILATION", flag ? "1" : "0")) } else { unsupported.append("isCompilation") }
        }
        if let kind = values["mediaKind"], kind != .text("music") { unsupported.append("mediaKind") }
        for (name, list) in tags.extra.sorted(by: { $0.key < $1.key }) where !known.contains(name) && isFieldName(name) {
            for value in list { fields.append((name, TagValues.clean(value))) }
        }
        // A user-defined field named like a standard one, beside the standard one's own value
        // (TXXX:COMPOSER and TCOM both): one field holds both here, so it is said, not merged.
        for name in tags.extra.keys.sorted() where known.contains(name) && !(tags.extra[name] ?? []).isEmpty {
            unsupported.append(name)
        }
        for name in tags.extra.keys.sorted() where !isFieldName(name) { unsupported.append(name) }
        return (fields, unsupported)
    }

    /// Whether a Vorbis comment may use `name`: printable ASCII except "=" (0x20–0x7D).
    static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { (0x20...0x7D).contains($0) && $0 != 0x3D }
    }

    // MARK: Pictures

    /// A FLAC picture structure (big-endian) for front-cover artwork.
    static func pictureBlock(_ artwork: Artwork) -> [UInt8] {
        var out: [UInt8] = []
        let mime = Array(artwork.mimeType.utf8)
        let shape = imageShape(artwork.data)
        out.appendBE(3, bytes: 4)
        out.appendBE(mime.count, bytes: 4)
        out.append(contentsOf: mime)
        out.appendBE(0, bytes: 4) // empty description
        out.appendBE(shape.width, bytes: 4)
        out.appendBE(shape.height, bytes: 4)
        out.appendBE(shape.depth, bytes: 4)
        out.appendBE(0, bytes: 4) // not an indexed-colour image
        out.appendBE(artwork.data.count, bytes: 4)
        out.append(contentsOf: artwork.data)
        return out
    }

    /// Picture type and artwork from a FLAC picture structure.
    static func picture(_ bytes: [UInt8]) -> (type: Int, artwork: Artwork)? {
        var reader = ByteReader(bytes)
        guard let type = try? reader.u32BE(),
              let mime = try? reader.take(try reader.u32BE()),
              (try? reader.skip(try reader.u32BE())) != nil, (try? reader.skip(16)) != nil,
              let data = try? reader.take(try reader.u32BE()), !data.isEmpty else { return nil }
        return (type, Artwork(sniffing: Array(data), declared: decodeText(mime)))
    }

    /// Width, height and bits per pixel of a PNG or JPEG (zeros when unknown), which the
    /// picture structure records.
    static func imageShape(_ data: [UInt8]) -> (width: Int, height: Int, depth: Int) {
        if data.count >= 26, data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(data[25])] ?? 1
            return (data[16..<20].bigEndianInteger, data[20..<24].bigEndianInteger, Int(data[24]) * channels)
        }
        if data.starts(with: [0xFF, 0xD8]) {
            var i = 2
            while i + 9 < data.count, data[i] == 0xFF {
                let marker = data[i + 1]
                let length = data[i + 2..<i + 4].bigEndianInteger
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return (data[i + 7..<i + 9].bigEndianInteger, data[i + 5..<i + 7].bigEndianInteger, Int(data[i + 4]) * Int(data[i + 9]))
                }
                i += 2 + length
            }
        }
        return (0, 0, 0)
    }
}
