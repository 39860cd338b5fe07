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

    /// The metadata blocks and the offset of the first audio frame.
    private static func blocks(_ file: FileBytes) throws -> (blocks: [Block], audio: UInt64) {
        var offset: UInt64 = 0
        while let length = ID3v2.tagLength(header: try file.readPrefix(at: offset, count: 10)) { offset += UInt64(length) }
        guard try file.readPrefix(at: offset, count: 4) == Array("fLaC".utf8) else { throw MediaError("not a FLAC file") }
        offset += 4
        var blocks: [Block] = []
        var last = false
        while !last {
            let header = try file.read(at: offset, count: 4)
            last = header[0] & 0x80 != 0
            let length = header[1...3].bigEndianInteger
            blocks.append(Block(type: header[0] & 0x7F, body: try file.read(at: offset + 4, count: length)))
            offset += 4 + UInt64(length)
        }
        guard blocks.first?.type == 0 else { throw MediaError("the FLAC file has no STREAMINFO block") }
        return (blocks, offset)
    }

    static func read(_ file: FileBytes) throws -> MediaTags {
        let found = try blocks(file).blocks
        let fields = try found.first { $0.type == comment }.map { try VorbisComments.parse($0.body).fields } ?? []
        return VorbisComments.tags(from: fields, pictures: found.filter { $0.type == picture }.map(\.body))
    }

    static func write(_ tags: MediaTags, to file: FileBytes, into output: ReplacementFile) throws -> [String] {
        let (old, audio) = try blocks(file)
        let vendor = try old.first { $0.type == comment }.map { try VorbisComments.parse($0.body).vendor } ?? "Medley"
        let (fields, rejected) = VorbisComments.fields(for: tags)
        var unsupported = rejected
        var kept = old.filter { ![padding, comment, picture].contains($0.type) }
        let comments = VorbisComments.encode(vendor: vendor, fields: fields)
        guard comments.count <= maxBlock else { throw MediaError("the tags are larger than a FLAC metadata block (16 MB)") }
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
