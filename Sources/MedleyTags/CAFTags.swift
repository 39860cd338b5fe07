import Foundation

/// Tags of Core Audio Format files: the 'info' chunk, a count and NUL-terminated key/value
/// pairs with Apple's keys: "title", "artist", "album", "genre", "composer", "track number",
/// "year" (releaseDate; "recorded date" is read too), "comments", "tempo". CAF defines no key for
/// album artist, lyrics, grouping, track count, disc, compilation or media kind, and no artwork.
/// Other tags: "ISRC", "copyright", "encoding application", "lyricist" (ExtraTags); the rest is
/// reported. One value per key: several are written joined with "; " and reported.
/// Writing puts the chunk right after 'desc' and copies every other chunk byte for byte.
enum CAFTags {
    static let keys: Set<String> = [
        "title", "artist", "albumTitle", "genre", "composer", "albumTrackNumber", "releaseDate", "comments", "beatsPerMinute",
    ]

    private static let fields = [
        ("title", "title"), ("artist", "artist"), ("album", "albumTitle"), ("genre", "genre"), ("composer", "composer"),
        ("track number", "albumTrackNumber"), ("year", "releaseDate"), ("comments", "comments"), ("tempo", "beatsPerMinute"),
    ]

    private struct Chunk {
        let type: String
        let offset: UInt64
        /// Header and body; a final 'data' chunk of unknown size (−1) runs to the end of the file.
        let length: UInt64
        /// Whether the header gives −1: the data chunk runs to the end of the file.
        var runsToEnd = false
    }

    /// Whether the data chunk's size is −1 (Apple's format allows it for the last chunk; FFmpeg writes it to a pipe).
    /// False for anything that is no readable CAF.
    static func dataRunsToEnd(_ file: ByteSource) -> Bool {
        (try? chunks(file))?.chunks.contains { $0.type == "data" && $0.runsToEnd } ?? false
    }

    /// The chunks, and `damage` when one runs past the end of the file (listed with what the file
    /// holds of it; nothing after it can be found).
    private static func chunks(_ file: ByteSource) throws -> (chunks: [Chunk], damage: String?) {
        let header = try file.readPrefix(at: 0, count: 8)
        guard header.count == 8, header.starts(with: Array("caff".utf8)), header[4..<6].bigEndianInteger == 1 else {
            throw TagIOError("not a CAF file")
        }
        var found: [Chunk] = []
        var offset: UInt64 = 8
        while offset + 12 <= file.size {
            var reader = ByteReader(try file.read(at: offset, count: 12))
            let type = try reader.fourCC()
            let size = try reader.u64BE()
            if size == UInt64.max, type == "data" {
                found.append(Chunk(type: type, offset: offset, length: file.size - offset, runsToEnd: true))
                break
            }
            guard size <= file.size - offset - 12 else {
                let damage = "the CAF \(type) chunk says it is \(size) bytes long, but the file ends \(file.size - offset - 12) bytes into it"
                guard found.first?.type == "desc", type == "data" || found.contains(where: { $0.type == "data" }) else {
                    throw TagIOError(damage)
                }
                found.append(Chunk(type: type, offset: offset, length: file.size - offset))
                return (found, damage)
            }
            found.append(Chunk(type: type, offset: offset, length: 12 + size))
            offset += 12 + size
        }
        guard found.first?.type == "desc" else { throw TagIOError("the CAF file does not start with a desc chunk") }
        guard found.contains(where: { $0.type == "data" }) else { throw TagIOError("the CAF file has no data chunk") }
        return (found, nil)
    }

    static func read(_ file: ByteSource) throws -> MediaTags {
        var tags = MediaTags()
        let (found, damage) = try chunks(file)
        if let damage { tags.warnings.append(damage + "; an info chunk after it, if any, was not read") }
        guard let chunk = found.first(where: { $0.type == "info" }) else { return tags }
        var reader = ByteReader(try file.read(at: chunk.offset + 12, count: Int(chunk.length - 12)))
        var entries: [String: String] = [:]
        let count = try reader.u32BE()
        // Stop at the chunk's end: the count is the file's word, and up to 2³² − 1 of nothing took seconds (fuzz: caf).
        for _ in 0..<count {
            guard !reader.isAtEnd else { break }
            let key = decodeText(reader.terminated())
            let value = decodeText(reader.terminated())
            if entries[key] == nil, !value.isEmpty { entries[key] = value }
        }
        for (field, key) in fields where key != "albumTrackNumber" { tags[key] = entries[field] }
        if let track = entries["track number"] {
            let pair = TagValues.pair(track)
            if pair.number == nil { tags["albumTrackNumber"] = track }
            TagValues.store(pair, into: &tags, number: "albumTrackNumber", count: "albumTrackCount")
        }
        if tags["releaseDate"] == nil { tags["releaseDate"] = entries["recorded date"] }
        for (key, field) in ExtraTags.fieldsByCAFKey { if let value = entries[key] { tags.extra[field] = [value] } }
        TagValues.inferKind(&tags)
        return tags
    }

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink) throws -> [String] {
        let (found, damage) = try chunks(file)
        if let damage { throw TagIOError(damage) }
        let values = TagValues.present(tags)
        var entries = fields.compactMap { field, key in values[key].map { (field, TagValues.clean($0.text)) } }
        // One value per key: several are joined, and said so.
        var unsupported = fields.compactMap { _, key -> String? in
            guard case .texts(let list)? = tags.entries[key] else { return nil }
            return "\(key) (\(list.count) values, written joined with \"; \")"
        }
        for (field, list) in tags.extra.sorted(by: { $0.key < $1.key }) where !list.isEmpty {
            guard let key = ExtraTags.cafKeys[field] else { unsupported.append(field); continue }
            entries.append((key, list.map(TagValues.clean).joined(separator: "; ")))
            if list.count > 1 { unsupported.append("\(field) (\(list.count) values, written joined with \"; \")") }
        }
        var body: [UInt8] = []
        body.appendBE(entries.count, bytes: 4)
        for (key, value) in entries { body += Array(key.utf8) + [0] + Array(value.utf8) + [0] }
        try output.append(try file.read(at: 0, count: 8))
        for chunk in found where chunk.type != "info" {
            try output.copy(from: file, offset: chunk.offset, count: chunk.length)
            if chunk.type == "desc", !entries.isEmpty {
                var info = Array("info".utf8)
                info.appendBE(body.count, bytes: 8)
                try output.append(info + body)
            }
        }
        return unsupported
    }
}
