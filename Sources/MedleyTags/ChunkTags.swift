import Foundation

/// Tags of chunked files: WAV (RIFF, little-endian) and AIFF/AIFF-C (IFF, big-endian).
///
/// Both get an ID3v2.4 (or, when asked, v2.3) chunk ("id3 " in WAV, "ID3 " in AIFF) that holds every key ID3 holds,
/// because their native text fields hold only a few. Alongside it, for readers that know only
/// the native fields:
/// - WAV: a LIST/INFO chunk with INAM title, IART artist, IPRD albumTitle, IGNR genre, ICMT
///   comments, ICRD releaseDate, ITRK albumTrackNumber, ICOP COPYRIGHT, ISFT ENCODER (UTF-8,
///   before the data chunk).
/// - AIFF: NAME title, AUTH artist, ANNO comments (and "(c) " read as COPYRIGHT), in Mac OS Roman as Apple's readers (and
///   exiftool) expect; a value Mac OS Roman cannot spell is left to the ID3 chunk.
/// Reading prefers the ID3 chunk and fills gaps from the native fields. Writing copies every
/// other chunk byte for byte and replaces the old tag chunks.
enum ChunkTags {
    enum Flavour {
        case wav, aiff
        var bigEndian: Bool { self == .aiff }
        var id3Chunk: String { self == .wav ? "id3 " : "ID3 " }
        var audioChunk: String { self == .wav ? "data" : "SSND" }
    }

    private struct Chunk {
        let id: String
        /// Offset of the chunk's 8-byte header.
        let offset: UInt64
        /// The body's length: what the header says, or for an audio chunk of unknown length, up to the end of the form.
        let size: UInt64
        /// What the header says, when that is not `size` (0 or 0xFFFFFFFF: unknown).
        var declared: UInt64? = nil
        var body: UInt64 { offset + 8 }
    }

    /// A size field a writer that could not seek back leaves as it was: FFmpeg writing to a pipe leaves a WAV's RIFF
    /// and data sizes at 0xFFFFFFFF and an AIFF's FORM and SSND sizes at 0; a recorder killed before it patched its
    /// header leaves 0. The form then runs to the end of the file, and the audio chunk to the end of the form (as
    /// FFmpeg's readers take it; nothing after it can be found). An audio chunk of size 0 in a form of known size
    /// is taken at its word (an empty WAV may have its LIST after it).
    private static func isUnknown(_ size: UInt64) -> Bool { size == 0 || size == 0xFFFF_FFFF }

    /// The chunks up to the end of the form; `damage` says why the list stops early: a chunk
    /// that runs past the end of the file is listed with what the file holds of it, and the
    /// chunks after it cannot be found.
    private static func chunks(_ file: ByteSource, _ flavour: Flavour) throws -> (form: [UInt8], chunks: [Chunk], damage: String?) {
        let header = try file.readPrefix(at: 0, count: 12)
        let form = Array(header.suffix(4))
        switch flavour {
        case .wav:
            if header.starts(with: Array("RF64".utf8)) { throw TagIOError("cannot tag RF64 (over 4 GB) WAV files") }
            guard header.count == 12, header.starts(with: Array("RIFF".utf8)), form == Array("WAVE".utf8) else { throw TagIOError("not a WAV file") }
        case .aiff:
            guard header.count == 12, header.starts(with: Array("FORM".utf8)), form == Array("AIFF".utf8) || form == Array("AIFC".utf8) else {
                throw TagIOError("not an AIFF file")
            }
        }
        let declared = UInt64(flavour.bigEndian ? header[4..<8].bigEndianInteger : header[4..<8].littleEndianInteger)
        let end = isUnknown(declared) ? file.size : min(file.size, 8 + declared)
        var found: [Chunk] = []
        var offset: UInt64 = 12
        while offset + 8 <= end {
            let head = try file.read(at: offset, count: 8)
            let size = UInt64(flavour.bigEndian ? head[4..<8].bigEndianInteger : head[4..<8].littleEndianInteger)
            let id = String(decoding: head[0..<4], as: UTF8.self)
            if id == flavour.audioChunk, size == 0xFFFF_FFFF || size == 0 && isUnknown(declared), offset + 8 + size != end {
                found.append(Chunk(id: id, offset: offset, size: end - offset - 8, declared: size))
                return (form, found, nil)
            }
            guard offset + 8 + size <= end else {
                found.append(Chunk(id: id, offset: offset, size: end - offset - 8))
                let container = end == file.size ? "file" : flavour == .wav ? "RIFF form" : "FORM"
                let damage = "the \(id) chunk says it is \(size) bytes long, but the \(container) ends \(end - offset - 8) bytes into it"
                guard found.contains(where: { $0.id == flavour.audioChunk }) else { throw TagIOError(damage) }
                return (form, found, damage)
            }
            found.append(Chunk(id: id, offset: offset, size: size))
            offset += 8 + size + (size & 1)
        }
        guard found.contains(where: { $0.id == flavour.audioChunk }) else { throw TagIOError("the file has no \(flavour.audioChunk) chunk") }
        return (form, found, nil)
    }

    // MARK: Reading

    static func read(_ file: ByteSource, _ flavour: Flavour) throws -> MediaTags {
        let (_, found, damage) = try chunks(file, flavour)
        var tags = MediaTags()
        if let chunk = found.first(where: { $0.id.uppercased() == "ID3 " }) {
            tags = try ID3v2.read(try file.read(at: chunk.body, count: Int(chunk.size)))
        }
        var native = MediaTags()
        switch flavour {
        case .wav:
            for chunk in found where chunk.id == "LIST" && chunk.size >= 4 {
                let body = try file.read(at: chunk.body, count: Int(chunk.size))
                guard body.starts(with: Array("INFO".utf8)) else { continue }
                var reader = ByteReader(body, at: 4)
                while reader.remaining >= 8 {
                    let id = try reader.fourCC()
                    let size = try reader.u32LE()
                    guard let value = try? reader.take(size) else { break }
                    if size & 1 == 1, !reader.isAtEnd { try reader.skip(1) }
                    let text = decodeText(value.prefix { $0 != 0 }).trimmingCharacters(in: .whitespaces)
                    guard !text.isEmpty else { continue }
                    switch id {
                    case "ITRK", "IPRT":
                        TagValues.store(TagValues.pair(text), into: &native, number: "albumTrackNumber", count: "albumTrackCount")
                    default:
                        if let key = infoFields.first(where: { $0.id == id })?.key { native[key] = text }
                        if let field = infoExtra.first(where: { $0.id == id })?.field, native.extra[field] == nil { native.extra[field] = [text] }
                    }
                }
            }
        case .aiff:
            for chunk in found {
                // "(c) " is the copyright chunk (FFmpeg writes it): read as COPYRIGHT, kept as it is in the file.
                let key = ["NAME": "title", "AUTH": "artist", "ANNO": "comments"][chunk.id]
                guard key != nil || chunk.id == "(c) " else { continue }
                if let key, native[key] != nil { continue }
                let raw = try file.read(at: chunk.body, count: Int(chunk.size)).prefix { $0 != 0 }
                // Mac OS Roman by the format's convention; UTF-8 as FFmpeg writes it.
                let text = String(validating: raw, as: UTF8.self) ?? MacRoman.decode(raw)
                guard !text.isEmpty else { continue }
                if let key { native[key] = text } else if native.extra["COPYRIGHT"] == nil { native.extra["COPYRIGHT"] = [text] }
            }
        }
        for (key, value) in native.entries where tags.entries[key] == nil { tags.entries[key] = value }
        for (field, value) in native.extra where tags.extra[field] == nil { tags.extra[field] = value }
        TagValues.inferKind(&tags)
        // A truncated audio chunk is usually the file's last: say so only when something could follow it.
        if let damage { tags.warnings.append(damage + "; tag chunks after it, if any, were not read") }
        return tags
    }

    private static let infoFields = [
        (id: "INAM", key: "title"), (id: "IART", key: "artist"), (id: "IPRD", key: "albumTitle"), (id: "IGNR", key: "genre"),
        (id: "ICMT", key: "comments"), (id: "ICRD", key: "releaseDate"),
    ]
    /// INFO fields for tags beyond the named properties (docs/metadata.md; ExtraTags), also kept in the ID3 chunk.
    private static let infoExtra = [(id: "ICOP", field: "COPYRIGHT"), (id: "ISFT", field: "ENCODER")]

    // MARK: Writing

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink, _ flavour: Flavour,
                      id3 version: ID3Version = .v2_4) throws -> (unsupported: [String], converted: [String]) {
        let (form, found, damage) = try chunks(file, flavour)
        if let damage { throw TagIOError(damage) }
        let (id3, unsupported, converted) = try ID3v2.encode(tags, version: version)
        let values = TagValues.present(tags)
        var native: [UInt8] = []
        switch flavour {
        case .wav:
            var info = Array("INFO".utf8)
            var fields = infoFields.compactMap { field in values[field.key].map { (field.id, $0.text) } }
            if let track = TagValues.integer(values["albumTrackNumber"], in: 1...Int(Int32.max)) { fields.append(("ITRK", String(track))) }
            for (id, field) in infoExtra {
                if let list = tags.extra[field], !list.isEmpty { fields.append((id, list.joined(separator: "; "))) }
            }
            for (id, value) in fields {
                info.append(contentsOf: chunk(id, Array(TagValues.clean(value).utf8) + [0], flavour))
            }
            if fields.count > 0 { native = chunk("LIST", info, flavour) }
        case .aiff:
            for (id, key) in [("NAME", "title"), ("AUTH", "artist"), ("ANNO", "comments")] {
                if let value = values[key], let text = MacRoman.encode(TagValues.clean(value.text)) { native.append(contentsOf: chunk(id, text, flavour)) }
            }
        }
        let tagChunk = chunk(flavour.id3Chunk, id3, flavour)

        let dropped: Set<String> = flavour == .wav ? ["id3 ", "ID3 "] : ["id3 ", "ID3 ", "NAME", "AUTH", "ANNO"]
        var kept: [Chunk] = []
        for chunk in found where !dropped.contains(chunk.id) {
            if flavour == .wav, chunk.id == "LIST", chunk.size >= 4, try file.read(at: chunk.body, count: 4) == Array("INFO".utf8) { continue }
            kept.append(chunk)
        }
        var total: UInt64 = 4 + UInt64(native.count + tagChunk.count)
        for chunk in kept { total += 8 + chunk.size + (chunk.size & 1) }
        guard total <= UInt64(UInt32.max) else { throw TagIOError("the file would exceed the 4 GB a \(flavour == .wav ? "RIFF" : "FORM") file can hold") }

        var head = Array((flavour == .wav ? "RIFF" : "FORM").utf8)
        if flavour.bigEndian { head.appendBE(Int(total), bytes: 4) } else { head.appendLE(Int(total), bytes: 4) }
        try output.append(head + form)
        for chunk in kept {
            // The native text fields go in front of the audio, where every reader looks.
            if chunk.id == flavour.audioChunk, !native.isEmpty {
                try output.append(native)
                native = []
            }
            if chunk.declared != nil {
                // The length the header left unknown, now that it is known.
                try output.append(Self.chunkHeader(chunk.id, Int(chunk.size), flavour))
                try output.copy(from: file, offset: chunk.body, count: chunk.size)
            } else {
                try output.copy(from: file, offset: chunk.offset, count: 8 + chunk.size)
            }
            if chunk.size & 1 == 1 { try output.append([0]) }
        }
        try output.append(tagChunk)
        return (unsupported, converted)
    }

    private static func chunkHeader(_ id: String, _ size: Int, _ flavour: Flavour) -> [UInt8] {
        var out = Array(id.utf8)
        if flavour.bigEndian { out.appendBE(size, bytes: 4) } else { out.appendLE(size, bytes: 4) }
        return out
    }

    /// One chunk: id, size, body, and a pad byte when the body's length is odd.
    private static func chunk(_ id: String, _ body: [UInt8], _ flavour: Flavour) -> [UInt8] {
        var out = chunkHeader(id, body.count, flavour)
        out.append(contentsOf: body)
        if body.count & 1 == 1 { out.append(0) }
        return out
    }
}

/// Mac OS Roman, the text encoding of AIFF's NAME, AUTH and ANNO chunks.
enum MacRoman {
    /// Characters 0x80…0xFF (0xDB is the euro sign since Mac OS 8.5).
    private static let upper = Array(
        "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»…\u{A0}ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{F8FF}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ".unicodeScalars)
    private static let codes: [Unicode.Scalar: UInt8] = Dictionary(uniqueKeysWithValues: upper.enumerated().map { ($1, UInt8(0x80 + $0)) })

    static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var text = String.UnicodeScalarView()
        for byte in bytes { text.append(byte < 0x80 ? Unicode.Scalar(byte) : upper[Int(byte) - 0x80]) }
        return String(text)
    }

    /// The bytes for `text`, or nil when a character has no Mac OS Roman code.
    static func encode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 { out.append(UInt8(scalar.value)) } else if let code = codes[scalar] { out.append(code) } else { return nil }
        }
        return out
    }
}
