import Foundation

/// Tags of MPEG audio (.mp3) files: an ID3v2 tag at the start; an APEv2 tag (foobar2000, MP3Gain)
/// and an ID3v1(.1) tag at the end fill, in that order, the fields the ID3v2 tag lacks. Writing
/// puts one ID3v2.4 (or, when asked, v2.3) tag in front of the audio frames and drops old ID3v2, ID3v1 and APEv2 tags
/// (what they held was read into the tags, so it is written into the ID3v2 tag).
enum MP3Tags {
    /// The ID3v2 tag's fields, with the APEv2 and ID3v1 tags' where the v2 tag lacks them (as
    /// most players merge them). A v2 tag that cannot be read leaves the others, with a warning.
    static func read(_ file: ByteSource) throws -> MediaTags {
        let header = try file.readPrefix(at: 0, count: 10)
        let ape = try readAPEv2(file)
        var v1 = try readID3v1(file)
        if let ape {
            // APEv2 before ID3v1: its fields are longer and Unicode.
            var merged = ape
            for (key, value) in v1?.entries ?? [:] where merged.entries[key] == nil { merged.entries[key] = value }
            v1 = merged
        }
        guard let length = ID3v2.tagLength(header: header) else { return v1 ?? MediaTags() }
        let v2: MediaTags
        do {
            v2 = try ID3v2.read(try file.readPrefix(at: 0, count: length))
        } catch let error as TagIOError {
            guard var v1 else { throw error }
            v1.warnings.append("the ID3v2 tag cannot be read (\(error.reason)); only the ID3v1 tag's fields were read")
            return v1
        }
        guard let v1 else { return v2 }
        var tags = v2
        for (key, value) in v1.entries where tags.entries[key] == nil { tags.entries[key] = value }
        for (field, values) in v1.extra where tags.extra[field] == nil { tags.extra[field] = values }
        tags.warnings += v1.warnings
        return tags
    }

    /// APEv2 item keys (compared case-insensitively) → MediaTags keys; "Track" and "Disc" hold "n/N".
    private static let apeKeys = [
        "TITLE": "title", "ARTIST": "artist", "ALBUM ARTIST": "albumArtist", "ALBUMARTIST": "albumArtist",
        "ALBUM": "albumTitle", "GENRE": "genre", "COMPOSER": "composer", "COMMENT": "comments", "LYRICS": "lyrics",
        "GROUPING": "userGrouping", "YEAR": "releaseDate", "BPM": "beatsPerMinute",
    ]

    /// The APEv2 tag that ends the file (before an ID3v1 tag, if any): text items by the mapping
    /// above, "Track"/"Disc" as number and count, "Compilation" as a flag, every other text item
    /// as an extra tag by its key in upper case (several values are NUL-separated); binary and
    /// link items (a cover in "Cover Art (Front)") are not read, with a warning naming them.
    static func readAPEv2(_ file: ByteSource) throws -> MediaTags? {
        var end = file.size
        if end >= 128, try file.read(at: end - 128, count: 3) == Array("TAG".utf8) { end -= 128 }
        guard end >= 32 else { return nil }
        let footer = try file.read(at: end - 32, count: 32)
        guard footer.starts(with: Array("APETAGEX".utf8)) else { return nil }
        let size = UInt64(footer[12..<16].littleEndianInteger), count = footer[16..<20].littleEndianInteger
        guard size >= 32, size <= end else {
            var damaged = MediaTags()
            damaged.warnings.append("the APEv2 tag says it is \(size) bytes long, more than the file holds; it was not read")
            return damaged
        }
        var reader = ByteReader(try file.read(at: end - size, count: Int(size) - 32))
        var tags = MediaTags()
        var skipped: [String] = []
        for _ in 0..<min(count, 65536) {
            guard let length = try? reader.u32LE(), let flags = try? reader.u32LE() else { break }
            let key = decodeText(reader.terminated())
            guard let value = try? reader.take(length) else {
                tags.warnings.append("the APEv2 item \(key) runs past the end of the tag; it and the items after it were not read")
                break
            }
            guard flags >> 1 & 3 == 0 else { skipped.append(key); continue }
            let values = String(decoding: value, as: UTF8.self).split(separator: "\0").map(String.init).filter { !$0.isEmpty }
            guard !values.isEmpty else { continue }
            let upper = key.uppercased()
            switch upper {
            case "TRACK": TagValues.store(TagValues.pair(values[0]), into: &tags, number: "albumTrackNumber", count: "albumTrackCount")
            case "DISC": TagValues.store(TagValues.pair(values[0]), into: &tags, number: "discNumber", count: "discCount")
            case "COMPILATION": tags.entries["isCompilation"] = .flag(TagValues.flag(values[0]) == true)
            default:
                if let name = apeKeys[upper] {
                    tags.entries[name] = TagValue.several(values)
                } else if tags.extra[upper] == nil {
                    tags.extra[upper] = values
                }
            }
        }
        if case .text(let bpm)? = tags.entries["beatsPerMinute"] { tags.entries["beatsPerMinute"] = TagValues.number(bpm) }
        if !skipped.isEmpty {
            tags.warnings.append("APEv2 items not read (binary or links): " + skipped.joined(separator: ", "))
        }
        return tags
    }

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink,
                      id3 version: ID3Version = .v2_4) throws -> (unsupported: [String], converted: [String]) {
        let audio = try audioRange(file)
        let (tag, unsupported, converted) = try ID3v2.encode(tags, version: version)
        try output.append(tag)
        try output.copy(from: file, offset: audio.lowerBound, count: audio.upperBound - audio.lowerBound)
        return (unsupported, converted)
    }

    /// The bytes between the leading ID3v2 tags and the trailing APEv2/ID3v1 tags; throws when
    /// no MPEG audio frame starts near there.
    static func audioRange(_ file: ByteSource) throws -> Range<UInt64> {
        var start: UInt64 = 0
        while let length = ID3v2.tagLength(header: try file.readPrefix(at: start, count: 10)) {
            start += UInt64(length)
        }
        var end = file.size
        if end >= start + 128, try file.read(at: end - 128, count: 3) == Array("TAG".utf8) { end -= 128 }
        if end >= start + 32 {
            let footer = try file.read(at: end - 32, count: 32)
            if footer.starts(with: Array("APETAGEX".utf8)) {
                let size = UInt64(footer[12..<16].littleEndianInteger)
                let hasHeader = footer[23] & 0x80 != 0
                let total = size + (hasHeader ? 32 : 0)
                if total <= end - start { end -= total }
            }
        }
        guard end > start else { throw TagIOError("the file holds no MPEG audio") }
        // Some encoders leave padding before the first frame: look for two frames in a row nearby.
        let head = try file.readPrefix(at: start, count: Int(min(end - start, 65536 + 4096)))
        let found = head.indices.prefix(65536).contains { index in
            guard let length = frameLength(head, at: index) else { return false }
            return index + length == head.count || frameLength(head, at: index + length) != nil
        }
        guard found else { throw TagIOError("the file holds no MPEG audio frames") }
        return start..<end
    }

    /// The length of the MPEG-1/2/2.5 Layer I–III frame whose header starts at `index`, or nil
    /// if there is no valid header there (free-format frames are not recognised).
    static func frameLength(_ bytes: [UInt8], at index: Int) -> Int? {
        guard index + 4 <= bytes.count, bytes[index] == 0xFF, bytes[index + 1] & 0xE0 == 0xE0 else { return nil }
        let version = Int(bytes[index + 1] >> 3 & 3) // 0: 2.5, 2: 2, 3: 1
        let layer = Int(bytes[index + 1] >> 1 & 3)   // 3: I, 2: II, 1: III
        let bitrateIndex = Int(bytes[index + 2] >> 4), rateIndex = Int(bytes[index + 2] >> 2 & 3)
        let padding = Int(bytes[index + 2] >> 1 & 1)
        guard version != 1, layer != 0, (1...14).contains(bitrateIndex), rateIndex != 3 else { return nil }
        let kbps: [Int]
        switch (version == 3, layer) {
        case (true, 3): kbps = [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): kbps = [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): kbps = [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): kbps = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let rate = [44100, 48000, 32000][rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        let bitrate = kbps[bitrateIndex - 1] * 1000
        if layer == 3 { return (12 * bitrate / rate + padding) * 4 }
        return (layer == 1 && version != 3 ? 72 : 144) * bitrate / rate + padding
    }

    /// ID3v1(.1): fixed ISO-8859-1 fields in the last 128 bytes.
    private static func readID3v1(_ file: ByteSource) throws -> MediaTags? {
        guard file.size >= 128 else { return nil }
        let tag = try file.read(at: file.size - 128, count: 128)
        guard tag.starts(with: Array("TAG".utf8)) else { return nil }
        func field(_ range: Range<Int>) -> String? {
            let bytes = tag[range].prefix { $0 != 0 }
            let text = decodeText(bytes).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        var tags = MediaTags()
        tags["title"] = field(3..<33)
        tags["artist"] = field(33..<63)
        tags["albumTitle"] = field(63..<93)
        tags["releaseDate"] = field(93..<97)
        if tag[125] == 0, tag[126] != 0 {
            tags["comments"] = field(97..<125)
            tags.entries["albumTrackNumber"] = .integer(Int(tag[126]))
        } else {
            tags["comments"] = field(97..<127)
        }
        if TagValues.id3v1Genres.indices.contains(Int(tag[127])) { tags["genre"] = TagValues.id3v1Genres[Int(tag[127])] }
        return tags
    }
}
