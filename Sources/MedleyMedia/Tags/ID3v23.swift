/// The ID3 version a tag is written in: v2.4 (the default, UTF-8, several values per frame) or
/// v2.3 for the players that read nothing newer (Windows Explorer, many car stereos).
public enum ID3Version: String, Sendable, CaseIterable {
    case v2_3 = "v2.3"
    case v2_4 = "v2.4"
}

/// Writing ID3v2.3 (`export.id3: v2.3`): the frames ID3v2 picks for the tags, each laid out as
/// v2.3 defines it, and every v2.4-only form mapped to its v2.3 one, each mapping reported.
///
/// - Header version 3; frame sizes plain 32-bit big-endian (v2.4's are syncsafe); no
///   unsynchronisation, no padding.
/// - Text is ISO-8859-1 when every character is in it, else UTF-16 with a byte-order mark (FF FE,
///   little-endian), per frame: v2.3 has neither UTF-8 (encoding 3) nor UTF-16BE (2).
/// - One value per text frame (v2.3 has no NUL-separated lists): TPE1, TCOM and TEXT join
///   several with "/", as the v2.3 spec (§4.2.1) says of them; several genres that are all
///   ID3v1 genres become references, "(17)(13)", v2.3's form for several (a single genre stays
///   text; one that starts with "(" is escaped as "(("); every other frame and TXXX joins with
///   "; ", the separator MediaTags' values use. Each join is reported.
/// - Dates: TDRC → TYER (YYYY) + TDAT (DDMM) + TIME (HHMM), as far as the value has them; one
///   those three cannot hold exactly ("2019-11", seconds, a time zone, free text) keeps TYER
///   and goes whole into TXXX:DATE, which ID3v2 reads back. TDOR → TORY (the year), and XDOR
///   with the full date when there is more than a year (eyeD3 0.9.7's conversion).
/// - TSOA/TSOP/TSOT → XSOA/XSOP/XSOT, the experimental-ID frames MusicBrainz Picard and eyeD3
///   write for v2.3 (jaudiotagger and eyeD3 read them; iTunes writes TSO* even in v2.3, off
///   spec). TIPL and TMCL → one IPLS. TMOO, TDRL, TDTG, TDEN, TPRO, TSST → TXXX named as
///   TagLib's property map names them (MOOD, RELEASEDATE, TAGGINGDATE, ENCODINGTIME,
///   PRODUCEDNOTICE, DISCSUBTITLE). TSO2, TSOC, TCMP and PCST are iTunes frames it writes in
///   v2.3 too: kept.
enum ID3v23 {
    /// v2.4-only text frames that go into a TXXX of this description.
    static let userTextFrames = [
        "TMOO": "MOOD", "TDRL": "RELEASEDATE", "TDTG": "TAGGINGDATE", "TDEN": "ENCODINGTIME",
        "TPRO": "PRODUCEDNOTICE", "TSST": "DISCSUBTITLE",
    ]
    /// v2.4's sort-name frames → v2.3's experimental ones.
    static let sortFrames = ["TSOA": "XSOA", "TSOP": "XSOP", "TSOT": "XSOT"]
    /// The frames whose several values v2.3 joins with "/" (§4.2.1).
    static let slashLists: Set<String> = ["TPE1", "TCOM", "TEXT"]

    /// A v2.3 tag holding `tags`, the keys it cannot hold (as ID3v2.encode), and one sentence per
    /// v2.4 form written another way.
    static func encode(_ tags: MediaTags) throws -> (tag: [UInt8], unsupported: [String], converted: [String]) {
        let (frames, unsupported) = ID3v2.frames(tags)
        let (mapped, converted) = convert(frames)
        var body: [UInt8] = []
        for frame in mapped {
            let (id, payload) = layout(frame)
            guard payload.count <= Int(UInt32.max) else { throw MediaError(.medley, "write tags", "an ID3v2.3 frame \(id) cannot be larger than 4 GB", cause: .unsupported) }
            body.append(fourCC: id)
            body.appendBE(payload.count, bytes: 4)
            body.append(contentsOf: [0, 0])
            body.append(contentsOf: payload)
        }
        return (try ID3v2.tag(version: 3, body), unsupported, converted)
    }

    /// v2.4's frames in their v2.3 forms, one value each, and what was converted.
    static func convert(_ frames: [ID3v2.Frame]) -> (frames: [ID3v2.Frame], converted: [String]) {
        var out: [ID3v2.Frame] = []
        var converted: [String] = []
        var people: [String] = []
        var peopleFrames: [String] = []
        for frame in frames {
            guard case .text(let id, let values) = frame else {
                if case .userText(let description, let values) = frame, values.count > 1 {
                    converted.append("TXXX:\(description): \(values.count) values written as one, joined with \"; \" (ID3v2.3 frames hold one value)")
                    out.append(.userText(description, [values.joined(separator: "; ")]))
                } else {
                    out.append(frame)
                }
                continue
            }
            switch id {
            case "TDRC":
                let (dated, note) = date(values)
                out += dated
                converted.append(note)
            case "TDOR":
                let (dated, note) = originalDate(values)
                out += dated
                converted.append(note)
            case "TIPL", "TMCL":
                people += values
                peopleFrames.append(id)
            case "TCON":
                let (genre, note) = genres(values)
                out.append(.text("TCON", [genre]))
                if let note { converted.append(note) }
            default:
                if let description = userTextFrames[id] {
                    out.append(.userText(description, [values.joined(separator: "; ")]))
                    converted.append("\(id) is ID3v2.4's; written as TXXX:\(description)" + joinNote(values, "; "))
                } else if let old = sortFrames[id] {
                    out.append(.text(old, [values.joined(separator: "; ")]))
                    converted.append("\(id) is ID3v2.4's; written as \(old), v2.3's sort-name frame" + joinNote(values, "; "))
                } else {
                    let separator = slashLists.contains(id) ? "/" : "; "
                    out.append(.text(id, [values.joined(separator: separator)]))
                    if values.count > 1 {
                        converted.append("\(id): \(values.count) values written as one, joined with \"\(separator)\" (ID3v2.3 frames hold one value)")
                    }
                }
            }
        }
        if !peopleFrames.isEmpty {
            out.append(.text("IPLS", people))
            converted.append(peopleFrames.joined(separator: " and ") + " \(peopleFrames.count == 1 ? "is" : "are") ID3v2.4's; written as IPLS")
        }
        return (out, converted)
    }

    private static func joinNote(_ values: [String], _ separator: String) -> String {
        values.count > 1 ? " (\(values.count) values joined with \"\(separator)\")" : ""
    }

    /// TDRC → TYER, TDAT, TIME; what they cannot hold exactly also goes whole into TXXX:DATE.
    static func date(_ values: [String]) -> (frames: [ID3v2.Frame], note: String) {
        let whole = values.joined(separator: "; ")
        let parts = values.count == 1 ? dateParts(values[0]) : nil
        if let parts {
            var frames: [ID3v2.Frame] = [.text("TYER", [parts.year])]
            var names = "TYER \(parts.year)"
            if let day = parts.dayMonth {
                frames.append(.text("TDAT", [day]))
                names += " + TDAT \(day)"
            }
            if let time = parts.time {
                frames.append(.text("TIME", [time]))
                names += " + TIME \(time)"
            }
            return (frames, "releaseDate \(whole): TDRC is ID3v2.4's; written as \(names)")
        }
        let year = values.first.flatMap { value -> String? in
            let head = value.prefix(4)
            return head.count == 4 && head.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(head) : nil
        }
        var frames: [ID3v2.Frame] = []
        if let year { frames.append(.text("TYER", [year])) }
        frames.append(.userText("DATE", [whole]))
        return (frames, "releaseDate \(whole): TDRC is ID3v2.4's and TYER/TDAT/TIME cannot hold it exactly; written as "
                    + (year.map { "TYER \($0) with " } ?? "") + "the whole date in TXXX:DATE")
    }

    /// "YYYY", "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" as TYER, TDAT (DDMM) and TIME (HHMM); nil for any other form.
    static func dateParts(_ value: String) -> (year: String, dayMonth: String?, time: String?)? {
        let characters = Array(value)
        func digits(_ range: Range<Int>) -> String? {
            guard range.upperBound <= characters.count else { return nil }
            let slice = characters[range]
            return slice.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(slice) : nil
        }
        guard let year = digits(0..<4) else { return nil }
        switch characters.count {
        case 4: return (year, nil, nil)
        case 10, 16:
            guard characters[4] == "-", characters[7] == "-", let month = digits(5..<7), let day = digits(8..<10),
                  let m = Int(month), (1...12).contains(m), let d = Int(day), (1...31).contains(d) else { return nil }
            guard characters.count == 16 else { return (year, day + month, nil) }
            guard characters[10] == "T", characters[13] == ":", let hour = digits(11..<13), let minute = digits(14..<16),
                  let h = Int(hour), h < 24, let mi = Int(minute), mi < 60 else { return nil }
            return (year, day + month, hour + minute)
        default: return nil
        }
    }

    /// TDOR → TORY (its year), plus XDOR with the whole value when it says more than a year.
    static func originalDate(_ values: [String]) -> (frames: [ID3v2.Frame], note: String) {
        let whole = values.joined(separator: "; ")
        let head = whole.prefix(4)
        let year = head.count == 4 && head.allSatisfy({ $0.isASCII && $0.isNumber }) ? String(head) : nil
        var frames: [ID3v2.Frame] = []
        if let year { frames.append(.text("TORY", [year])) }
        if year == nil || whole.count > 4 {
            frames.append(.text("XDOR", [whole]))
            return (frames, "ORIGINALDATE \(whole): TDOR is ID3v2.4's; written as " + (year.map { "TORY \($0) + " } ?? "") + "XDOR \(whole)")
        }
        return (frames, "ORIGINALDATE \(whole): TDOR is ID3v2.4's; written as TORY \(whole)")
    }

    /// TCON's one v2.3 value: one genre as text ("(" escaped as "(("), several ID3v1 genres as
    /// references "(17)(13)", any other several joined with "; ".
    static func genres(_ values: [String]) -> (value: String, note: String?) {
        func escaped(_ genre: String) -> String { genre.hasPrefix("(") ? "(" + genre : genre }
        guard values.count > 1 else { return (escaped(values.first ?? ""), nil) }
        let codes = values.compactMap { genre in
            TagValues.id3v1Genres.firstIndex { $0.caseInsensitiveCompare(genre) == .orderedSame }
        }
        if codes.count == values.count {
            let references = codes.map { "(\($0))" }.joined()
            return (references, "genre: \(values.count) values written as ID3v1 genre references \(references), v2.3's form for several")
        }
        return (escaped(values.joined(separator: "; ")),
                "TCON: \(values.count) values written as one, joined with \"; \" (ID3v2.3 frames hold one value)")
    }

    // MARK: Layout

    /// The frame's ID and its v2.3 bytes.
    static func layout(_ frame: ID3v2.Frame) -> (id: String, payload: [UInt8]) {
        switch frame {
        case .text("IPLS", let people):
            // Involvement and person alternate, each string terminated.
            let encoding = textEncoding(people)
            return ("IPLS", [encoding] + people.flatMap { encode($0, encoding) + terminator(encoding) })
        case .text(let id, let values):
            let value = values.first ?? ""
            let encoding = textEncoding([value])
            return (id, [encoding] + encode(value, encoding))
        case .userText(let description, let values):
            let value = values.first ?? ""
            let encoding = textEncoding([description, value])
            return ("TXXX", [encoding] + encode(description, encoding) + terminator(encoding) + encode(value, encoding))
        case .described(let id, let text):
            let encoding = textEncoding([text])
            return (id, [encoding] + Array("eng".utf8) + encode("", encoding) + terminator(encoding) + encode(text, encoding))
        case .picture(let artwork):
            // ISO-8859-1, MIME type, front cover, an empty description, the image.
            let mime = artwork.mimeType.unicodeScalars.filter { $0.value > 0 && $0.value < 0x80 }.map { UInt8($0.value) }
            return ("APIC", [0] + mime + [0, 3, 0] + artwork.data)
        case .binary(let id, let bytes):
            return (id, bytes)
        }
    }

    /// 0 (ISO-8859-1) when every character of `texts` is in it, else 1 (UTF-16 with a BOM).
    static func textEncoding(_ texts: [String]) -> UInt8 {
        texts.allSatisfy { $0.unicodeScalars.allSatisfy { $0.value > 0 && $0.value <= 0xFF } } ? 0 : 1
    }

    static func encode(_ text: String, _ encoding: UInt8) -> [UInt8] {
        guard encoding == 1 else { return text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return bytes
    }

    static func terminator(_ encoding: UInt8) -> [UInt8] { encoding == 1 ? [0, 0] : [0] }
}
