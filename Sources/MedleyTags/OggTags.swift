import Foundation

/// Tags of Ogg Vorbis and Ogg Opus files: the comment header packet (Vorbis: "\u{3}vorbis" …
/// framing bit; Opus: "OpusTags" …). Writing repaginates the comment (and Vorbis setup) header
/// pages and renumbers the stream's later pages, whose packets and granule positions are copied
/// unchanged; pages of other multiplexed streams pass through untouched. Reading takes the headers
/// however they are paged; when audio packets share the last header page (older encoders, which
/// ogginfo flags), a rewrite moves them onto a page of their own.
enum OggTags {
    private struct Page {
        var flags: UInt8
        var granule: UInt64
        var serial: UInt32
        var sequence: UInt32
        var lacing: [UInt8]
        var body: [UInt8]
        /// Where the page starts in the file and its length there.
        var offset: UInt64 = 0
        var length: Int { 27 + lacing.count + body.count }

        var isContinuation: Bool { flags & 1 != 0 }
        /// Whether the page's last packet carries on into the next page.
        var endsOpen: Bool { lacing.last == 255 }

        static func read(_ file: ByteSource, at offset: UInt64) throws -> Page {
            let header = try file.read(at: offset, count: 27)
            guard header.starts(with: Array("OggS".utf8)), header[4] == 0 else { throw TagIOError("not an Ogg page at byte \(offset)") }
            let lacing = try file.read(at: offset + 27, count: Int(header[26]))
            let body = try file.read(at: offset + 27 + UInt64(lacing.count), count: lacing.reduce(0) { $0 + Int($1) })
            return Page(flags: header[5], granule: header[6..<14].reversed().reduce(0) { $0 << 8 | UInt64($1) },
                        serial: UInt32(header[14..<18].littleEndianInteger), sequence: UInt32(header[18..<22].littleEndianInteger),
                        lacing: lacing, body: body, offset: offset)
        }

        /// The page's packet pieces in order; `complete` is false for one that continues on the next page.
        var pieces: [(bytes: ArraySlice<UInt8>, complete: Bool)] {
            var result: [(ArraySlice<UInt8>, Bool)] = []
            var start = 0, end = 0
            for (index, value) in lacing.enumerated() {
                end += Int(value)
                if value < 255 {
                    result.append((body[start..<end], true))
                    start = end
                } else if index == lacing.count - 1 {
                    result.append((body[start..<end], false))
                }
            }
            return result
        }

        var bytes: [UInt8] {
            var out = Array("OggS".utf8) + [0, flags]
            out.appendLE(Int(truncatingIfNeeded: granule), bytes: 8)
            out.appendLE(Int(serial), bytes: 4)
            out.appendLE(Int(sequence), bytes: 4)
            out.append(contentsOf: [0, 0, 0, 0, UInt8(lacing.count)])
            out.append(contentsOf: lacing)
            out.append(contentsOf: body)
            let crc = OggCRC.checksum(out)
            out[22] = UInt8(crc & 0xFF); out[23] = UInt8(crc >> 8 & 0xFF); out[24] = UInt8(crc >> 16 & 0xFF); out[25] = UInt8(crc >> 24)
            return out
        }
    }

    private enum Codec {
        /// FLAC in Ogg (the FLAC project's mapping): a "\u{7F}FLAC" packet with STREAMINFO, then
        /// the metadata blocks one a packet, VORBIS_COMMENT first. Only the comments are read.
        case vorbis, opus, flac
        /// The header packets up to and including the comment packet.
        var headerPackets: Int { self == .vorbis ? 3 : 2 }
        var commentMagic: [UInt8] {
            switch self {
            case .vorbis: return [3] + Array("vorbis".utf8)
            case .opus: return Array("OpusTags".utf8)
            case .flac: return [4]   // a VORBIS_COMMENT block header (the last-block bit apart), then 3 bytes of length
            }
        }
    }

    /// The start of the file up to the end of the Vorbis or Opus stream's header packets.
    private struct Headers {
        var pages: [Page]
        var codec: Codec
        var serial: UInt32
        var packets: [[UInt8]]
        /// Offset just past the page on which the last header packet ends.
        var end: UInt64
        /// The pieces of audio packets that follow the last header packet on its page (older
        /// encoders write no page break there); a rewrite moves them onto a page of their own.
        var audioPieces: [(bytes: ArraySlice<UInt8>, complete: Bool)] = []
        /// That page's granule position, which belongs to its last complete audio packet.
        var audioGranule: UInt64 = 0
    }

    private static func headers(_ file: ByteSource) throws -> Headers {
        var pages: [Page] = []
        var open: [UInt32: [UInt8]] = [:]
        var packets: [UInt32: [[UInt8]]] = [:]
        var target: (serial: UInt32, codec: Codec)?
        var offset: UInt64 = 0
        guard try file.readPrefix(at: 0, count: 4) == Array("OggS".utf8) else { throw TagIOError("not an Ogg file") }
        while offset < file.size {
            let page = try Page.read(file, at: offset)
            offset += UInt64(page.length)
            pages.append(page)
            if target == nil, page.flags & 2 == 0 {
                throw TagIOError("the Ogg file holds no Vorbis, Opus or FLAC stream")
            }
            let pieces = page.pieces
            for (index, piece) in pieces.enumerated() {
                open[page.serial, default: []].append(contentsOf: piece.bytes)
                guard piece.complete else { continue }
                let packet = open.removeValue(forKey: page.serial) ?? []
                packets[page.serial, default: []].append(packet)
                let received = packets[page.serial] ?? []
                if target == nil, received.count == 1 {
                    if packet.starts(with: [1] + Array("vorbis".utf8)) { target = (page.serial, .vorbis) }
                    if packet.starts(with: Array("OpusHead".utf8)) { target = (page.serial, .opus) }
                    if packet.starts(with: [0x7F] + Array("FLAC".utf8)) { target = (page.serial, .flac) }
                }
                if let target, page.serial == target.serial, received.count == target.codec.headerPackets {
                    // The rest of this page, if anything, is audio.
                    return Headers(pages: pages, codec: target.codec, serial: target.serial, packets: received,
                                   end: offset, audioPieces: Array(pieces[(index + 1)...]), audioGranule: page.granule)
                }
            }
        }
        throw TagIOError("the Ogg file ends inside its header packets")
    }

    static func read(_ file: ByteSource) throws -> MediaTags {
        let found = try headers(file)
        let packet = found.packets[1]
        if found.codec == .flac {
            // libFLAC's Ogg reader takes the comments from the metadata block after STREAMINFO.
            guard packet.count >= 4, packet[0] & 0x7F == 4 else {
                throw TagIOError("the Ogg FLAC stream's second packet is not a VORBIS_COMMENT block")
            }
            let parsed = try VorbisComments.parse(packet, at: 4)
            var tags = VorbisComments.tags(from: parsed.fields, pictures: [])
            if let damage = parsed.damage { tags.warnings.insert(damage, at: 0) }
            return tags
        }
        let magic = found.codec.commentMagic
        guard packet.starts(with: magic) else { throw TagIOError("the Ogg stream has no comment header") }
        let parsed = try VorbisComments.parse(packet, at: magic.count)
        var tags = VorbisComments.tags(from: parsed.fields, pictures: [])
        if let damage = parsed.damage { tags.warnings.insert(damage, at: 0) }
        return tags
    }

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink) throws -> [String] {
        let found = try headers(file)
        guard found.codec != .flac else { throw TagIOError("Medley does not write tags into FLAC in Ogg (write .flac instead)") }
        let magic = found.codec.commentMagic
        guard found.packets[1].starts(with: magic) else { throw TagIOError("the Ogg stream has no comment header") }
        let vendor = try VorbisComments.parse(found.packets[1], at: magic.count).vendor
        var (fields, unsupported) = VorbisComments.fields(for: tags)
        if let artwork = tags.artwork {
            fields.append(("METADATA_BLOCK_PICTURE", Data(VorbisComments.pictureBlock(artwork)).base64EncodedString()))
        }
        var comment = magic + VorbisComments.encode(vendor: vendor, fields: fields)
        if found.codec == .vorbis { comment.append(1) } // framing bit
        let streamPages = found.pages.filter { $0.serial == found.serial }
        let first = streamPages[0]
        guard first.pieces.count == 1, first.pieces[0].complete else {
            throw TagIOError("the Ogg stream's identification header does not have its own page")
        }
        var newPages = paginate([comment] + found.packets[2...], serial: found.serial, firstSequence: first.sequence &+ 1)
        if !found.audioPieces.isEmpty {
            newPages.append(audioPage(found.audioPieces, granule: found.audioGranule, endOfStream: found.pages.last!.flags & 4,
                                      serial: found.serial,
                                      sequence: first.sequence &+ 1 &+ UInt32(newPages.count)))
        }
        let shift = Int(first.sequence) + 1 + newPages.count - (Int(streamPages.last!.sequence) + 1)

        var wroteHeaders = false
        for page in found.pages {
            if page.serial != found.serial || page.offset == first.offset {
                try output.copy(from: file, offset: page.offset, count: UInt64(page.length))
            } else if !wroteHeaders {
                for newPage in newPages { try output.append(newPage.bytes) }
                wroteHeaders = true
            }
        }
        // The rest of the stream: renumbered when the header page count changed, else copied.
        var offset = found.end
        if shift == 0 {
            try output.copy(from: file, offset: offset, count: file.size - offset)
        } else {
            while offset < file.size {
                var page = try Page.read(file, at: offset)
                offset += UInt64(page.length)
                if page.serial == found.serial {
                    page.sequence = UInt32(truncatingIfNeeded: Int(page.sequence) + shift)
                    try output.append(page.bytes)
                } else {
                    try output.copy(from: file, offset: page.offset, count: UInt64(page.length))
                }
            }
        }
        return unsupported
    }

    /// The audio packet pieces that shared the last header page, on a page of their own: the
    /// lacing values are the original page's (so the page that follows still continues an open
    /// packet), and the granule position stays with the last packet that ends here (−1 when none
    /// does: the page then holds only the start of a packet).
    private static func audioPage(_ pieces: [(bytes: ArraySlice<UInt8>, complete: Bool)], granule: UInt64,
                                  endOfStream: UInt8, serial: UInt32, sequence: UInt32) -> Page {
        var lacing: [UInt8] = []
        var body: [UInt8] = []
        for piece in pieces {
            lacing += Array(repeating: 255, count: piece.bytes.count / 255)
            if piece.complete { lacing.append(UInt8(piece.bytes.count % 255)) }
            body += piece.bytes
        }
        let endsPacket = pieces.contains { $0.complete }
        return Page(flags: endOfStream, granule: endsPacket ? granule : UInt64.max, serial: serial, sequence: sequence,
                    lacing: lacing, body: body)
    }

    /// Pages for header packets: granule 0 where a packet ends, −1 on pages where none does.
    private static func paginate(_ packets: [[UInt8]], serial: UInt32, firstSequence: UInt32) -> [Page] {
        var segments: [(size: UInt8, packet: Int, offset: Int)] = []
        for (index, packet) in packets.enumerated() {
            var offset = 0
            while packet.count - offset >= 255 {
                segments.append((255, index, offset))
                offset += 255
            }
            segments.append((UInt8(packet.count - offset), index, offset))
        }
        var pages: [Page] = []
        var start = 0
        var continued = false
        while start < segments.count {
            let slice = segments[start..<min(start + 255, segments.count)]
            var body: [UInt8] = []
            for segment in slice {
                body.append(contentsOf: packets[segment.packet][segment.offset..<segment.offset + Int(segment.size)])
            }
            let endsPacket = slice.contains { $0.size < 255 }
            pages.append(Page(flags: continued ? 1 : 0, granule: endsPacket ? 0 : UInt64.max, serial: serial,
                              sequence: firstSequence &+ UInt32(pages.count), lacing: slice.map(\.size), body: body))
            continued = slice.last!.size == 255
            start += slice.count
        }
        return pages
    }
}

/// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, initial value 0, no final XOR.
enum OggCRC {
    private static let table: [UInt32] = (0..<256).map { index in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc: UInt32 = 0
            for byte in buffer { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
            return crc
        }
    }
}
