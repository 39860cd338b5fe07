import Foundation

/// Tags of MPEG audio (.mp3) files: an ID3v2 tag at the start; an ID3v1(.1) tag at the end
/// fills the fields the ID3v2 tag lacks. Writing puts one ID3v2.4 tag in front of the audio frames and
/// drops old ID3v2, ID3v1 and APEv2 tags.
enum MP3Tags {
    /// The ID3v2 tag's fields, with the ID3v1 tag's where the v2 tag lacks them (as mutagen and
    /// most players merge them). A v2 tag that cannot be read leaves the v1 fields, with a warning.
    static func read(_ file: FileBytes) throws -> MediaTags {
        let header = try file.readPrefix(at: 0, count: 10)
        let v1 = try readID3v1(file)
        guard let length = ID3v2.tagLength(header: header) else { return v1 ?? MediaTags() }
        let v2: MediaTags
        do {
            v2 = try ID3v2.read(try file.readPrefix(at: 0, count: length))
        } catch let error as MediaError {
            guard var v1 else { throw error }
            v1.warnings.append("the ID3v2 tag cannot be read (\(error.reason)); only the ID3v1 tag's fields were read")
            return v1
        }
        guard let v1 else { return v2 }
        var tags = v2
        for (key, value) in v1.values where tags[key] == nil { tags[key] = value }
        return tags
    }

    static func write(_ tags: MediaTags, to file: FileBytes, into output: ReplacementFile) throws -> [String] {
        let audio = try audioRange(file)
        let (tag, unsupported) = try ID3v2.encode(tags)
        try output.append(tag)
        try output.copy(from: file, offset: audio.lowerBound, count: audio.upperBound - audio.lowerBound)
        return unsupported
    }

    /// The bytes between the leading ID3v2 tags and the trailing APEv2/ID3v1 tags; throws when
    /// no MPEG audio frame starts near there.
    static func audioRange(_ file: FileBytes) throws -> Range<UInt64> {
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
        guard end > start else { throw MediaError("the file holds no MPEG audio") }
        // Some encoders leave padding before the first frame: look for two frames in a row nearby.
        let head = try file.readPrefix(at: start, count: Int(min(end - start, 65536 + 4096)))
        let found = head.indices.prefix(65536).contains { index in
            guard let length = frameLength(head, at: index) else { return false }
            return index + length == head.count || frameLength(head, at: index + length) != nil
        }
        guard found else { throw MediaError("the file holds no MPEG audio frames") }
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
    private static func readID3v1(_ file: FileBytes) throws -> MediaTags? {
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
            tags["albumTrackNumber"] = String(tag[126])
        } else {
            tags["comments"] = field(97..<127)
        }
        if TagValues.id3v1Genres.indices.contains(Int(tag[127])) { tags["genre"] = TagValues.id3v1Genres[Int(tag[127])] }
        return tags
    }
}
