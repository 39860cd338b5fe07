/// Tags of native FLAC files: the VORBIS_COMMENT metadata block and PICTURE blocks. Writing
/// keeps STREAMINFO, SEEKTABLE, APPLICATION and CUESHEET blocks and the audio frames byte for
/// byte, replaces comments and pictures, drops padding and any ID3v2 tag put in front.
enum FLACTags {
    private static let padding: UInt8 = 1, comment: UInt8 = 4, picture: UInt8 = 6
    /// The largest metadata block (a 24-bit length).
    private static let maxBlock = (1 << 24) - 1

    private struct Block {
        let type: UInt8
        let body: [UInt8]
    }

    private static let names = ["STREAMINFO", "PADDING", "APPLICATION", "SEEKTABLE", "VORBIS_COMMENT", "CUESHEET", "PICTURE"]

    /// The metadata blocks, the offset of the first audio frame (nil when a damaged block hides
    /// it), and what was damaged.
    ///
    /// A block whose length is wrong is found by what follows it: the next block header (any type
    /// but 127, which the format forbids: the reserved types 7–126 are skipped by libFLAC and
    /// mutagen, and kept here as they are) or, after the last block, an audio frame's sync code. Then a comment or picture block is measured
    /// by its own inner lengths; any other block ends the reading there, keeping what came before.
    private static func blocks(_ file: ByteSource) throws -> (blocks: [Block], audio: UInt64?, warnings: [String]) {
        var offset: UInt64 = 0
        while let length = ID3v2.tagLength(header: try file.readPrefix(at: offset, count: 10)) { offset += UInt64(length) }
        guard try file.readPrefix(at: offset, count: 4) == Array("fLaC".utf8) else { throw TagIOError("not a FLAC file") }
        offset += 4
        var blocks: [Block] = []
        var warnings: [String] = []
        /// Whether a block that ends at `end` (the last one when `last`) is followed by what must follow it.
        func followedWell(_ end: UInt64, last: Bool) throws -> Bool {
            guard end <= file.size else { return false }
            if end == file.size { return last }
            let next = try file.readPrefix(at: end, count: 4)
            if last { return next.count >= 2 && next[0] == 0xFF && next[1] & 0xFE == 0xF8 }
            return next.count == 4 && (1...126).contains(next[0] & 0x7F) && end + 4 + UInt64(next[1...3].bigEndianInteger) <= file.size
        }
        var last = false
        while !last {
            let header = try file.readPrefix(at: offset, count: 4)
            guard header.count == 4 else {
                warnings.append("the FLAC metadata ends inside a block header; the audio was not found")
                return (blocks, nil, warnings)
            }
            last = header[0] & 0x80 != 0
            let type = header[0] & 0x7F
            let declared = header[1...3].bigEndianInteger
            let name = Int(type) < names.count ? names[Int(type)] : "type \(type)"
            var length = declared
            if try !followedWell(offset + 4 + UInt64(declared), last: last) {
                let available = Int(min(file.size - (offset + 4), UInt64(maxBlock)))
                let measured = [comment, picture].contains(type) ? measure(type, try file.read(at: offset + 4, count: available)) : nil
                guard let measured, try followedWell(offset + 4 + UInt64(measured), last: last) else {
                    warnings.append("FLAC metadata block \(blocks.count + 1) (\(name)) says it is \(declared) bytes long, "
                                    + "which does not end where a block or the audio starts; it and any blocks after it were not read")
                    return (blocks, nil, warnings)
                }
                warnings.append("FLAC metadata block \(blocks.count + 1) (\(name)) says it is \(declared) bytes long but holds "
                                + "\(measured); read as \(measured)")
                length = measured
            }
            blocks.append(Block(type: type, body: try file.read(at: offset + 4, count: length)))
            offset += 4 + UInt64(length)
        }
        guard blocks.first?.type == 0 else { throw TagIOError("the FLAC file has no STREAMINFO block") }
        return (blocks, offset, warnings)
    }

    /// The length a comment or picture block's own fields add up to, or nil if they do not fit.
    private static func measure(_ type: UInt8, _ bytes: [UInt8]) -> Int? {
        var reader = ByteReader(bytes)
        do {
            if type == comment {
                try reader.skip(try reader.u32LE())
                for _ in 0..<(try reader.u32LE()) { try reader.skip(try reader.u32LE()) }
            } else {
                try reader.skip(4)
                try reader.skip(try reader.u32BE())
                try reader.skip(try reader.u32BE())
                try reader.skip(16)
                try reader.skip(try reader.u32BE())
            }
        } catch {
            return nil
        }
        return reader.position
    }

    static func read(_ file: ByteSource) throws -> MediaTags {
        let (found, _, damage) = try blocks(file)
        var fields: [(name: String, value: String)] = []
        var warnings = damage
        if let block = found.first(where: { $0.type == comment }) {
            do {
                let parsed = try VorbisComments.parse(block.body)
                fields = parsed.fields
                if let damage = parsed.damage { warnings.append(damage) }
            } catch let error as TagIOError {
                var tags = MediaTags()
                tags.warnings = warnings + ["the FLAC VORBIS_COMMENT block cannot be read (\(error.reason))"]
                return tags
            }
        }
        // The format allows one comment block; libFLAC (metaflac) and mutagen read the first of
        // several, so Medley does too, and names what the others hold.
        let others = found.filter { $0.type == comment }.dropFirst()
        if !others.isEmpty {
            let names = others.flatMap { (try? VorbisComments.parse($0.body).fields.map(\.name)) ?? [] }
            warnings.append("the FLAC file has \(others.count + 1) VORBIS_COMMENT blocks; only the first was read, as libFLAC "
                            + "and mutagen read it" + (names.isEmpty ? "" : " (the others hold \(names.joined(separator: ", ")))"))
        }
        var tags = VorbisComments.tags(from: fields, pictures: found.filter { $0.type == picture }.map(\.body))
        tags.warnings = warnings + tags.warnings
        return tags
    }

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink) throws -> [String] {
        let (old, found, warnings) = try blocks(file)
        guard let audio = found else {
            throw TagIOError("a FLAC metadata block is damaged, so where the audio starts is unknown: " + warnings.joined(separator: "; "))
        }
        let vendor = try old.first { $0.type == comment }.map { try VorbisComments.parse($0.body).vendor } ?? "Medley"
        let (fields, rejected) = VorbisComments.fields(for: tags)
        var unsupported = rejected
        var kept = old.filter { ![padding, comment, picture].contains($0.type) }
        let comments = VorbisComments.encode(vendor: vendor, fields: fields)
        guard comments.count <= maxBlock else { throw TagIOError("the tags are larger than a FLAC metadata block (16 MB)") }
        kept.append(Block(type: comment, body: comments))
        if let artwork = tags.artwork {
            let body = VorbisComments.pictureBlock(artwork)
            if body.count <= maxBlock { kept.append(Block(type: picture, body: body)) } else { unsupported.append("artwork") }
        }
        var head = Array("fLaC".utf8)
        for (index, block) in kept.enumerated() {
            head.append(block.type | (index == kept.count - 1 ? 0x80 : 0))
            head.appendBE(block.body.count, bytes: 3)
            head.append(contentsOf: block.body)
        }
        try output.append(head)
        try output.copy(from: file, offset: audio, count: file.size - audio)
        return unsupported
    }
}
