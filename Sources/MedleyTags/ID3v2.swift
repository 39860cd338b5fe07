/// ID3v2 tags: reads versions 2.2, 2.3 and 2.4 (unsynchronisation, extended headers, v2.4
/// data-length indicators; compressed or encrypted frames are skipped) and writes version 2.4
/// with UTF-8 text. Used in MP3 files and in the "ID3 " chunk of AIFF and WAV.
///
/// Mapping: TIT2 title, TPE1 artist, TPE2 albumArtist, TALB albumTitle, TCON genre, TCOM
/// composer, TIT1 userGrouping (iTunes' GRP1 is read too), TRCK "n/N", TPOS "n/N", TDRC
/// releaseDate (v2.3 TYER+TDAT+TIME read, refined by TXXX:DATE as ID3v23 writes it), TBPM, TCMP isCompilation, COMM comments (language "eng",
/// empty description), USLT lyrics, APIC artwork (front cover), PCST (iTunes' podcast flag)
/// mediaKind podcast. ID3 has no frame for an audiobook or a podcast's title. Other tags: the
/// standard frames and UFID of ExtraTags' table, TXXX for the rest; several values NUL-separated.
/// v2.3's XSOA/XSOP/XSOT and XDOR (MusicBrainz's and eyeD3's v2.3 forms of TSOA/TSOP/TSOT and
/// TDOR) are read as the sort names and ORIGINALDATE. Writing v2.3 is ID3v23's.
enum ID3v2 {
    /// The keys an ID3v2 tag holds ("mediaKind": music and podcast only).
    static let keys: Set<String> = [
        "title", "artist", "albumArtist", "albumTitle", "genre", "composer", "comments", "lyrics", "userGrouping",
        "albumTrackNumber", "albumTrackCount", "discNumber", "discCount", "beatsPerMinute", "isCompilation",
        "releaseDate", "mediaKind", "artwork",
    ]

    /// The length of the whole tag (header, frames, padding, footer) that starts with these
    /// 10 header bytes, or nil if they are not an ID3v2 header.
    static func tagLength(header: [UInt8]) -> Int? {
        guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33,
              (2...4).contains(header[3]), header[4] != 0xFF, header[6..<10].allSatisfy({ $0 < 0x80 }) else { return nil }
        let footer = header[3] == 4 && header[5] & 0x10 != 0 ? 10 : 0
        return 10 + syncsafe(header[6..<10]) + footer
    }

    // MARK: Reading

    /// The tags in a whole ID3v2 tag (starting with its "ID3" header).
    static func read(_ tag: [UInt8]) throws -> MediaTags {
        guard let length = tagLength(header: Array(tag.prefix(10))) else { throw TagIOError("not an ID3v2 tag") }
        let version = tag[3], flags = tag[5]
        var body = Array(tag[10..<min(tag.count, length - (version == 4 && flags & 0x10 != 0 ? 10 : 0))])
        if version < 4, flags & 0x80 != 0 { body = removeUnsynchronisation(body) }
        var reader = ByteReader(body)
        if flags & 0x40 != 0 {
            switch version {
            case 2: return MediaTags() // v2.2's bit 6 means a compressed tag, which nobody defined.
            case 3: try skipExtendedHeader(&reader, try reader.u32BE())
            default: try skipExtendedHeader(&reader, syncsafe(try reader.take(4)) - 4)
            }
        }
        var frames: [(id: String, data: [UInt8])] = []
        var warnings: [String] = []
        let headerSize = version == 2 ? 6 : 10
        /// The frame header at `position`: a frame ID and a size that fits in the tag.
        func header(at position: Int) -> (id: String, size: Int)? {
            guard position + headerSize <= body.count else { return nil }
            let idBytes = body[position..<position + (version == 2 ? 3 : 4)]
            guard (0x41...0x5A).contains(idBytes.first!),
                  idBytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else { return nil }
            let sizeBytes = version == 2 ? body[position + 3..<position + 6] : body[position + 4..<position + 8]
            let size: Int
            switch version {
            case 2, 3: size = sizeBytes.bigEndianInteger
            default: size = frameSize24(sizeBytes, in: body, at: position + 10)
            }
            guard position + headerSize + size <= body.count else { return nil }
            return (String(decoding: idBytes, as: UTF8.self), size)
        }
        /// Whether a frame may end at `position`: the next frame, the padding or the tag's end
        /// follows. A next frame whose own size is wrong (a POPM that claims more than the tag
        /// holds) still ends this one, when its ID is one ID3 defines: that frame is the damaged one.
        func endsWell(_ position: Int) -> Bool {
            position >= body.count || body[position] == 0 || header(at: position) != nil || definedID(at: position)
        }
        func definedID(at position: Int) -> Bool {
            let width = version == 2 ? 3 : 4
            guard position + width <= body.count else { return false }
            let id = body[position..<position + width]
            guard id.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else { return false }
            let text = String(decoding: id, as: UTF8.self)
            return text.hasPrefix("T") || text.hasPrefix("W") || (version == 2 ? definedV22IDs : definedIDs).contains(text)
        }
        /// The next frame header after damage at `position`, if any, that leads on to a frame or the end.
        func resynchronise(after position: Int) -> Int? {
            var next = position
            while next + headerSize <= body.count {
                if body[next] != 0, let found = header(at: next), endsWell(next + headerSize + found.size) { return next }
                next += 1
            }
            return nil
        }
        func printable(_ position: Int) -> String {
            let bytes = body[position..<min(body.count, position + (version == 2 ? 3 : 4))]
            return bytes.allSatisfy({ (0x20...0x7E).contains($0) }) ? String(decoding: bytes, as: UTF8.self)
                : bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
        }
        var position = reader.position
        while position + headerSize <= body.count, body[position] != 0 {
            // A frame whose ID or size is wrong is skipped with a warning; reading goes on at the
            // next frame header (mutagen too skips bad frames and keeps the rest).
            guard let found = header(at: position), endsWell(position + headerSize + found.size) else {
                let name = printable(position)
                let next = resynchronise(after: position + 1)
                warnings.append(next == nil
                    ? "ID3v2 frame \(name) at byte \(position + 10) has a wrong size; it and the \(body.count - position) bytes after it were skipped"
                    : "ID3v2 frame \(name) at byte \(position + 10) has a wrong size; skipped \(next! - position) bytes to the next frame")
                guard let next else { break }
                position = next
                continue
            }
            let id = found.id
            var formatFlags: UInt8 = 0
            if version > 2 { formatFlags = body[position + 9] }
            var data = Array(body[position + headerSize..<position + headerSize + found.size])
            position += headerSize + found.size
            if version == 3 {
                if formatFlags & 0xC0 != 0 { continue } // compressed or encrypted
                if formatFlags & 0x20 != 0 { data = Array(data.dropFirst()) }
            } else if version == 4 {
                if formatFlags & 0x0C != 0 { continue }
                var skip = 0
                if formatFlags & 0x40 != 0 { skip += 1 }
                if formatFlags & 0x01 != 0 { skip += 4 }
                data = Array(data.dropFirst(skip))
                if formatFlags & 0x02 != 0 || flags & 0x80 != 0 { data = removeUnsynchronisation(data) }
            }
            let name = version == 2 ? (v22Names[id] ?? id) : id
            if (name.hasPrefix("T") || ["COMM", "USLT", "APIC", "PIC"].contains(name)), let encoding = data.first, encoding > 3 {
                warnings.append("ID3v2 frame \(name) has text encoding \(encoding), which ID3 does not define; skipped")
                continue
            }
            frames.append((name, data))
        }
        var tags = tags(from: frames, version: version)
        tags.warnings = warnings
        return tags
    }

    /// ID3v2.3 and v2.4 frame IDs other than the text (T…) and URL (W…) frames, and iTunes' own;
    /// v2.2's three-letter ones.
    private static let definedIDs: Set<String> = [
        "AENC", "APIC", "ASPI", "COMM", "COMR", "ENCR", "EQU2", "EQUA", "ETCO", "GEOB", "GRID", "IPLS", "LINK", "MCDI", "MLLT",
        "OWNE", "PRIV", "PCNT", "POPM", "POSS", "RBUF", "RVA2", "RVAD", "RVRB", "SEEK", "SIGN", "SYLT", "SYTC", "UFID",
        "USER", "USLT", "CHAP", "CTOC", "GRP1", "MVIN", "MVNM", "PCST",
    ]
    private static let definedV22IDs: Set<String> = [
        "BUF", "CNT", "COM", "CRA", "CRM", "ETC", "EQU", "GEO", "IPL", "LNK", "MCI", "MLL", "PIC", "POP", "REV", "RVA", "SLT",
        "STC", "UFI", "ULT",
    ]

    /// Skips the rest of an extended header of `count` bytes; one larger than the tag (a header
    /// flag set by mistake: its "size" is the first frame's ID) leaves no frames to find.
    private static func skipExtendedHeader(_ reader: inout ByteReader, _ count: Int) throws {
        guard count >= 0, count <= reader.remaining else {
            throw TagIOError("the ID3v2 extended header says it is \(count) bytes long, more than the \(reader.remaining) left in the tag")
        }
        try reader.skip(count)
    }

    /// v2.4 frame sizes are syncsafe, but iTunes once wrote plain ones: use the reading that
    /// lands on the next frame, the padding or the end.
    private static func frameSize24(_ raw: ArraySlice<UInt8>, in body: [UInt8], at dataStart: Int) -> Int {
        let safe = syncsafe(raw), plain = raw.bigEndianInteger
        guard safe != plain, raw.allSatisfy({ $0 < 0x80 }) else { return raw.allSatisfy({ $0 < 0x80 }) ? safe : plain }
        func landsWell(_ size: Int) -> Bool {
            let next = dataStart + size
            if next == body.count { return true }
            guard next + 4 <= body.count else { return false }
            return body[next] == 0 || body[next..<next + 4].allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
        }
        return landsWell(safe) || !landsWell(plain) ? safe : plain
    }

    private static let v22Names = [
        "TT2": "TIT2", "TP1": "TPE1", "TP2": "TPE2", "TAL": "TALB", "TCO": "TCON", "TCM": "TCOM", "TT1": "TIT1",
        "TRK": "TRCK", "TPA": "TPOS", "TBP": "TBPM", "TCP": "TCMP", "TYE": "TYER", "TDA": "TDAT", "COM": "COMM",
        "ULT": "USLT", "PIC": "PIC", "GP1": "GRP1", "PCS": "PCST",
    ]

    private static let textFrames = [
        "TIT2": "title", "TPE1": "artist", "TPE2": "albumArtist", "TALB": "albumTitle", "TCOM": "composer",
        "TIT1": "userGrouping", "TDRC": "releaseDate",
    ]

    /// The frames (besides ExtraTags' and TXXX, UFID, COMM, USLT, APIC) that reading uses: any other
    /// is named in `MediaTags.uncarried`. v2.3's TIME and TRDA are the time of TDAT's day, TSIZ the
    /// audio's size, TLEN its length (a transcode measures both anew); they describe nothing a tag
    /// carries. v2.3's TORY is the original release year, read as ORIGINALDATE (v2.4's TDOR), and XDOR
/// the full original date; XSOA, XSOP and XSOT are v2.3's sort names.
    private static let readFrames: Set<String> = [
        "TIT2", "TPE1", "TPE2", "TALB", "TCOM", "TIT1", "TDRC", "TCON", "TRCK", "TPOS", "TBPM", "TCMP", "PCST", "GRP1",
        "TDRL", "TYER", "TDAT", "TIME", "TRDA", "TSIZ", "TLEN", "TORY", "XDOR", "XSOA", "XSOP", "XSOT",
    ]

    /// v2.3's sort-name frames (XSOA, XSOP, XSOT) → the fields v2.4's TSOA, TSOP, TSOT hold.
    static let v23SortFrames = ["XSOA": "ALBUMSORT", "XSOP": "ARTISTSORT", "XSOT": "TITLESORT"]

    /// TXXX descriptions read as named properties (docs/library.md, "Properties"), not carried as extra tags.
    /// The ffmpeg CLI writes a `comment` as TXXX:comment (its own reader reads it back as the comment).
    private static let consumedUserText: Set<String> = ["TCMP", "COMPILATION", "ALBUMARTIST", "ALBUM ARTIST", "COMMENT"]

    private static func tags(from frames: [(id: String, data: [UInt8])], version: UInt8) -> MediaTags {
        var tags = MediaTags()
        var first: [String: [UInt8]] = [:]
        var comments: [(description: String, text: String)] = []
        var lyrics: String?
        var lyricsCount = 0
        var pictures: [(type: UInt8, artwork: Artwork)] = []
        // TXXX user frames by description: the ffmpeg CLI writes "compilation" as TXXX:TCMP.
        var userText: [String: String] = [:]
        for frame in frames {
            switch frame.id {
            case "TXXX":
                if let values = textValues(frame.data), values.count >= 2 {
                    if userText[values[0].uppercased()] == nil { userText[values[0].uppercased()] = values[1] }
                    let field = ExtraTags.field(userName: values[0])
                    if !consumedUserText.contains(field), tags.extra[field] == nil {
                        tags.extra[field] = Array(values[1...]).filter { !$0.isEmpty }
                    }
                }
            case "UFID":
                // Owner (Latin-1, NUL-terminated), then the identifier.
                if let end = frame.data.firstIndex(of: 0), decodeText(frame.data[..<end]) == ExtraTags.musicBrainzOwner {
                    let id = decodeText(frame.data[(end + 1)...])
                    if !id.isEmpty { tags.extra["MUSICBRAINZ_TRACKID"] = [id] }
                } else {
                    let owner = frame.data.firstIndex(of: 0).map { decodeText(frame.data[..<$0]) } ?? ""
                    tags.uncarried.append("UFID (owner \"\(owner)\")")
                }
            case "COMM", "USLT":
                guard let (description, text) = describedText(frame.data) else { continue }
                if frame.id == "COMM" { comments.append((description, text)) } else {
                    lyricsCount += 1
                    if lyrics == nil { lyrics = text }
                }
            case "APIC", "PIC":
                if let picture = picture(frame.data, v22: frame.id == "PIC") { pictures.append(picture) }
            default:
                if first[frame.id] == nil { first[frame.id] = frame.data }
            }
        }
        func text(_ id: String) -> String? {
            guard let data = first[id], let values = textValues(data), !values.isEmpty else { return nil }
            let joined = values.joined(separator: "; ")
            return joined.isEmpty ? nil : joined
        }
        for (id, key) in textFrames {
            // Every value of the frame, unless they are all empty.
            tags.entries[key] = text(id) == nil ? nil : first[id].flatMap(textValues).flatMap(TagValue.several)
        }
        for (id, field) in ExtraTags.fieldsByID3Frame {
            if let data = first[id], let values = textValues(data)?.filter({ !$0.isEmpty }), !values.isEmpty { tags.extra[field] = values }
        }
        for (id, field) in v23SortFrames where tags.extra[field] == nil {
            if let data = first[id], let values = textValues(data)?.filter({ !$0.isEmpty }), !values.isEmpty { tags.extra[field] = values }
        }
        if tags.extra["ORIGINALDATE"] == nil, let date = text("XDOR") ?? text("TORY") { tags.extra["ORIGINALDATE"] = [date] }
        if tags["userGrouping"] == nil { tags["userGrouping"] = text("GRP1") }
        if tags["releaseDate"] == nil { tags["releaseDate"] = text("TDRL") }
        if tags["releaseDate"] == nil, let year = text("TYER") {
            // v2.3 keeps the day and month apart, as "DDMM", and the time of day as "HHMM".
            func digits(_ text: String?) -> String? { text.flatMap { $0.count == 4 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) ? $0 : nil } }
            if let day = digits(text("TDAT")) {
                let time = digits(text("TIME")).map { "T\($0.prefix(2)):\($0.suffix(2))" } ?? ""
                tags["releaseDate"] = "\(year)-\(day.suffix(2))-\(day.prefix(2))" + time
            } else {
                tags["releaseDate"] = year
            }
            // What TYER/TDAT/TIME cannot hold ("2019-11"), ID3v23 writes whole in TXXX:DATE.
            if let full = userText["DATE"], full.hasPrefix(year) {
                tags["releaseDate"] = full
                tags.extra["DATE"] = nil
            }
        }
        if tags["releaseDate"] == nil, let whole = userText["DATE"], !whole.isEmpty {
            // A date with no year in front ("Spring 2020"), as ID3v23 writes it.
            tags["releaseDate"] = whole
            tags.extra["DATE"] = nil
        }
        if let data = first["TCON"], let values = textValues(data) {
            let genres = values.flatMap(genreNames).filter { !$0.isEmpty }
            if !genres.isEmpty { tags["genre"] = genres.joined(separator: "; ") }
        }
        if let track = text("TRCK") { TagValues.store(TagValues.pair(track), into: &tags, number: "albumTrackNumber", count: "albumTrackCount") }
        if let disc = text("TPOS") { TagValues.store(TagValues.pair(disc), into: &tags, number: "discNumber", count: "discCount") }
        if let bpm = text("TBPM") { tags.entries["beatsPerMinute"] = TagValues.number(bpm) }
        if let compilation = text("TCMP") ?? userText["TCMP"] ?? userText["COMPILATION"] {
            tags.entries["isCompilation"] = .flag(TagValues.flag(compilation) == true)
        }
        if tags["albumArtist"] == nil { tags["albumArtist"] = userText["ALBUMARTIST"] ?? userText["ALBUM ARTIST"] }
        if first["PCST"] != nil { tags["mediaKind"] = "podcast" }
        let comment = comments.first { $0.description.isEmpty } ?? comments.first { !$0.description.hasPrefix("iTun") }
        tags["comments"] = comment?.text.isEmpty == false ? comment?.text : nil
        if tags["comments"] == nil, let text = userText["COMMENT"], !text.isEmpty { tags["comments"] = text }
        tags["lyrics"] = lyrics?.isEmpty == false ? lyrics : nil
        let kept = pictures.first { $0.type == 3 } ?? pictures.first
        tags.artwork = kept?.artwork
        // What no key or extra tag holds: other comments and lyrics, other pictures, other frames.
        for other in comments where !(other.description == comment?.description && other.text == comment?.text) {
            // mutagen and players merge an ID3v1 comment as "ID3v1 Comment": the same text is no second comment.
            if other.description == "ID3v1 Comment", other.text == comment?.text { continue }
            tags.uncarried.append("COMM (description \"\(other.description)\")")
        }
        if lyricsCount > 1 { tags.uncarried.append("USLT: \(lyricsCount - 1) more lyrics") }
        if pictures.count > 1 { tags.uncarried.append("APIC: \(pictures.count - 1) more picture\(pictures.count == 2 ? "" : "s")") }
        tags.uncarried += first.keys.filter { !readFrames.contains($0) && ExtraTags.fieldsByID3Frame[$0] == nil }.sorted()
        VorbisComments.promoteStandardFields(&tags)
        return tags
    }

    /// A text frame's values (v2.4 separates several with NULs).
    private static func textValues(_ data: [UInt8]) -> [String]? {
        guard let encoding = data.first else { return nil }
        var reader = ByteReader(data, at: 1)
        var values: [String] = []
        while !reader.isAtEnd { values.append(decode(reader.terminated(width: width(encoding)), encoding: encoding)) }
        while values.last?.isEmpty == true { values.removeLast() }
        return values
    }

    /// COMM and USLT: encoding, language, description, text.
    private static func describedText(_ data: [UInt8]) -> (String, String)? {
        guard data.count >= 4 else { return nil }
        let encoding = data[0]
        var reader = ByteReader(data, at: 4)
        let description = decode(reader.terminated(width: width(encoding)), encoding: encoding)
        var text = decode(reader.rest(), encoding: encoding)
        while text.hasSuffix("\0") { text.removeLast() }
        return (description, text)
    }

    /// APIC (encoding, MIME type, picture type, description, data) or v2.2's PIC (format "JPG").
    private static func picture(_ data: [UInt8], v22: Bool) -> (UInt8, Artwork)? {
        guard let encoding = data.first else { return nil }
        var reader = ByteReader(data, at: 1)
        let declared: String
        if v22 {
            guard let format = try? reader.take(3) else { return nil }
            declared = "image/" + String(decoding: format, as: UTF8.self).lowercased()
        } else {
            declared = decodeText(reader.terminated()).lowercased()
        }
        guard let type = try? reader.u8() else { return nil }
        _ = reader.terminated(width: width(encoding))
        let bytes = Array(reader.rest())
        guard !bytes.isEmpty else { return nil }
        return (type, Artwork(sniffing: bytes, declared: declared))
    }

    private static func width(_ encoding: UInt8) -> Int { encoding == 1 || encoding == 2 ? 2 : 1 }

    /// ID3 text: 0 ISO-8859-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8.
    private static func decode(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
        switch encoding {
        case 1, 2:
            var units = Array(bytes)
            var bigEndian = encoding == 2
            if units.count >= 2, units[0] == 0xFF, units[1] == 0xFE { bigEndian = false; units.removeFirst(2) }
            else if units.count >= 2, units[0] == 0xFE, units[1] == 0xFF { bigEndian = true; units.removeFirst(2) }
            return utf16(units[...], bigEndian: bigEndian)
        case 3:
            return String(decoding: bytes, as: UTF8.self)
        default:
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        }
    }

    static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let high = UInt16(bytes[bigEndian ? index : index + 1]), low = UInt16(bytes[bigEndian ? index + 1 : index])
            units.append(high << 8 | low)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// TCON values: "Rock", "17", or v2.3's "(17)", "(17)Rock", "(RX)", "(17)(20)".
    static func genreNames(_ value: String) -> [String] {
        var rest = Substring(value)
        var names: [String] = []
        func resolve(_ code: Substring) -> String? {
            switch code {
            case "RX": return "Remix"
            case "CR": return "Cover"
            default: return Int(code).flatMap { TagValues.id3v1Genres.indices.contains($0) ? TagValues.id3v1Genres[$0] : nil }
            }
        }
        while rest.hasPrefix("("), !rest.hasPrefix("(("), let close = rest.firstIndex(of: ")") {
            let code = rest[rest.index(after: rest.startIndex)..<close]
            guard let name = resolve(code) else { break }
            names.append(name)
            rest = rest[rest.index(after: close)...]
        }
        if rest.hasPrefix("((") { rest = rest.dropFirst() }
        if !rest.isEmpty {
            // A refinement after references replaces them (v2.3: "(4)Eurodisco").
            names = [resolve(rest) ?? String(rest)]
        }
        return names
    }

    static func syncsafe<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8 {
        bytes.reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    /// Undoes unsynchronisation: every 0xFF 0x00 becomes 0xFF.
    static func removeUnsynchronisation(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0) { out.append(byte) }
            previous = byte
        }
        return out
    }

    // MARK: Writing

    /// One frame to write, before it is laid out for a version: a text frame's values, a TXXX
    /// (description, values), a COMM or USLT (language "eng", an empty description), the front
    /// cover, or bytes that read the same in v2.3 and v2.4 (UFID, PCST).
    enum Frame: Equatable {
        case text(String, [String])
        case userText(String, [String])
        case described(String, String)
        case picture(Artwork)
        case binary(String, [UInt8])
    }

    /// The frames that hold `tags` (v2.4's IDs; ID3v23 maps them), and the keys no frame can
    /// hold (values ID3 has no field for, e.g. a non-numeric track number or mediaKind audioBook).
    static func frames(_ tags: MediaTags) -> (frames: [Frame], unsupported: [String]) {
        let values = TagValues.present(tags)
        var unsupported: [String] = []
        var frames: [Frame] = []
        func text(_ id: String, _ value: String?) {
            guard let value else { return }
            frames.append(.text(id, [TagValues.clean(value)]))
        }
        /// A text frame with every value of `key`.
        func texts(_ id: String, _ key: String) {
            let all = tags.all(key)
            guard !all.isEmpty else { return }
            frames.append(.text(id, all.map(TagValues.clean)))
        }
        func pair(_ id: String, _ numberKey: String, _ countKey: String) {
            let number = values[numberKey], count = values[countKey]
            guard number != nil || count != nil else { return }
            let n = TagValues.integer(number, in: 0...Int(Int32.max))
            let c = TagValues.integer(count, in: 0...Int(Int32.max))
            if number != nil, n == nil { unsupported.append(numberKey) }
            if count != nil, c == nil { unsupported.append(countKey) }
            guard let shown = c.map({ "\(n ?? 0)/\($0)" }) ?? n.map(String.init) else { return }
            text(id, shown)
        }
        func described(_ id: String, _ value: String?) {
            guard let value else { return }
            frames.append(.described(id, TagValues.clean(value)))
        }
        texts("TIT2", "title")
        texts("TPE1", "artist")
        texts("TPE2", "albumArtist")
        texts("TALB", "albumTitle")
        texts("TIT1", "userGrouping")
        texts("TCOM", "composer")
        texts("TCON", "genre")
        pair("TRCK", "albumTrackNumber", "albumTrackCount")
        pair("TPOS", "discNumber", "discCount")
        text("TDRC", values["releaseDate"]?.text)
        if let bpm = values["beatsPerMinute"] {
            if let value = TagValues.integer(bpm, in: 0...Int(Int32.max)) { text("TBPM", String(value)) } else { unsupported.append("beatsPerMinute") }
        }
        if let compilation = values["isCompilation"] {
            if let flag = TagValues.flag(compilation) { text("TCMP", flag ? "1" : "0") } else { unsupported.append("isCompilation") }
        }
        switch values["mediaKind"]?.text {
        case nil, "music": break
        case "podcast": frames.append(.binary("PCST", [0, 0, 0, 1]))
        default: unsupported.append("mediaKind")
        }
        for (field, list) in tags.extra.sorted(by: { $0.key < $1.key }) {
            let values = list.map(TagValues.clean).filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            if let id = ExtraTags.id3Frames[field] {
                frames.append(.text(id, values))
            } else if field == "MUSICBRAINZ_TRACKID", values.count == 1, values[0].utf8.count <= 64 {
                frames.append(.binary("UFID", Array(ExtraTags.musicBrainzOwner.utf8) + [0] + Array(values[0].utf8)))
            } else {
                frames.append(.userText(TagValues.clean(ExtraTags.userName(field)), values))
            }
        }
        described("COMM", values["comments"]?.text)
        described("USLT", values["lyrics"]?.text)
        if let artwork = tags.artwork { frames.append(.picture(artwork)) }
        return (frames, unsupported)
    }

    /// An ID3v2.4 tag holding `tags` with UTF-8 text (several values NUL-separated), and the keys
    /// it could not hold (see `frames`).
    static func encode(_ tags: MediaTags) throws -> (tag: [UInt8], unsupported: [String]) {
        let (frames, unsupported) = frames(tags)
        var body: [UInt8] = []
        for frame in frames {
            let (id, payload): (String, [UInt8])
            switch frame {
            case .text(let name, let values): (id, payload) = (name, [3] + Array(values.joined(separator: "\0").utf8))
            case .userText(let description, let values):
                (id, payload) = ("TXXX", [3] + Array(description.utf8) + [0] + Array(values.joined(separator: "\0").utf8))
            case .described(let name, let text): (id, payload) = (name, [3] + Array("eng".utf8) + [0] + Array(text.utf8))
            // UTF-8, MIME type, front cover, an empty description, the image.
            case .picture(let artwork): (id, payload) = ("APIC", [3] + Array(artwork.mimeType.utf8) + [0, 3, 0] + artwork.data)
            case .binary(let name, let bytes): (id, payload) = (name, bytes)
            }
            body.append(fourCC: id)
            body.append(contentsOf: syncsafeBytes(payload.count))
            body.append(contentsOf: [0, 0])
            body.append(contentsOf: payload)
        }
        return (try tag(version: 4, body), unsupported)
    }

    /// A tag of `version` holding `tags`, the keys it cannot hold, and (v2.3) what was written in another form.
    static func encode(_ tags: MediaTags, version: ID3Version) throws -> (tag: [UInt8], unsupported: [String], converted: [String]) {
        switch version {
        case .v2_4:
            let (tag, unsupported) = try encode(tags)
            return (tag, unsupported, [])
        case .v2_3:
            return try ID3v23.encode(tags)
        }
    }

    /// The 10-byte header of version `version` (no flags) in front of `body`.
    static func tag(version: UInt8, _ body: [UInt8]) throws -> [UInt8] {
        guard body.count < 1 << 28 else { throw TagIOError("the tags are larger than ID3v2 allows (256 MB)") }
        return [0x49, 0x44, 0x33, version, 0, 0] + syncsafeBytes(body.count) + body
    }

    static func syncsafeBytes(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }
}

extension Artwork {
    /// Artwork whose type comes from the image's magic bytes, else from the declared MIME type.
    init(sniffing data: [UInt8], declared: String) {
        let mime: String
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            mime = "image/png"
        } else if data.starts(with: [0xFF, 0xD8, 0xFF]) {
            mime = "image/jpeg"
        } else {
            switch declared.lowercased() {
            case "image/jpg", "image/jpeg", "jpg", "jpeg": mime = "image/jpeg"
            case "png": mime = "image/png"
            default: mime = declared.isEmpty ? "application/octet-stream" : declared
            }
        }
        self.init(data: data, mimeType: mime)
    }
}
