/// Tags of MPEG-4 audio (.m4a, .m4b, .mp4): iTunes-style items in moov/udta/meta/ilst.
///
/// Mapping: ©nam title, ©ART artist, aART albumArtist, ©alb albumTitle, ©gen genre (a numeric
/// `gnre` is read), ©wrt composer, ©grp userGrouping, ©cmt comments, ©lyr lyrics, ©day
/// releaseDate, trkn albumTrackNumber/albumTrackCount, disk discNumber/discCount, tmpo
/// beatsPerMinute (16-bit integer), cpil isCompilation, stik mediaKind (music 1, audioBook 2,
/// podcast 21; podcasts also get iTunes' pcst flag), covr artwork (JPEG, PNG, GIF or BMP).
/// No atom holds a podcast's title (iTunes keeps it in ©alb). Other tags: the atoms of
/// ExtraTags' table (cprt, ©too, sort names), ----:com.apple.iTunes:NAME items for the rest;
/// several values as several data atoms.
///
/// Writing rebuilds moov with a new udta/meta/ilst (keeping iTunes' gapless ----:iTunSMPB
/// item) and moves the stco/co64 chunk offsets by the change in moov's size when the audio
/// comes after it; everything else is copied byte for byte. Fragmented files are refused.
enum MP4Tags {
    static let keys: Set<String> = [
        "title", "artist", "albumArtist", "albumTitle", "genre", "composer", "comments", "lyrics", "userGrouping",
        "albumTrackNumber", "albumTrackCount", "discNumber", "discCount", "beatsPerMinute", "isCompilation",
        "releaseDate", "mediaKind", "artwork",
    ]

    /// An atom type from its four characters; "©" is the byte 0xA9 as in the files.
    static func code(_ name: String) -> UInt32 {
        name.unicodeScalars.reduce(0) { $0 << 8 | ($1.value & 0xFF) }
    }

    /// The containers on the way to the chunk offset tables, which must parse.
    private static let samplePath: Set<UInt32> = Set(["moov", "trak", "mdia", "minf", "stbl"].map(code))
    private static let containers: Set<UInt32> = Set(["moov", "trak", "mdia", "minf", "stbl", "udta", "edts", "dinf", "mvex", "ilst"].map(code))
    private static let moov = code("moov"), udta = code("udta"), meta = code("meta"), ilst = code("ilst"), hdlr = code("hdlr")
    private static let data = code("data"), stco = code("stco"), co64 = code("co64"), freeform = code("----")

    /// An atom with its payload, or with its children when it is a container.
    private struct Atom {
        var type: UInt32
        /// A leaf's payload, or the bytes a container has before its children (meta's version and flags).
        var payload: [UInt8]
        var children: [Atom]?

        var bytes: [UInt8] {
            var body = payload
            for child in children ?? [] { body.append(contentsOf: child.bytes) }
            var out: [UInt8] = []
            if body.count + 8 <= Int(UInt32.max) {
                out.appendBE(body.count + 8, bytes: 4)
                out.appendBE(Int(type), bytes: 4)
            } else {
                out.appendBE(1, bytes: 4)
                out.appendBE(Int(type), bytes: 4)
                out.appendBE(body.count + 16, bytes: 8)
            }
            return out + body
        }

        func child(_ type: UInt32) -> Atom? { children?.first { $0.type == type } }

        /// How deep containers may nest: real files need about eight levels (moov/trak/mdia/minf/
        /// stbl/…, udta/meta/ilst/item/data); a file of nothing but nested `meta` headers would
        /// otherwise recurse once per 8 bytes and overflow the stack.
        static let maximumDepth = 32

        /// `meta` is a full box in MP4 (four bytes of version and flags) but not in QuickTime files.
        static func parse(_ bytes: [UInt8], _ range: Range<Int>, parent: UInt32? = nil, depth: Int = 0) throws -> [Atom] {
            guard depth < maximumDepth else { throw TagIOError("MP4 atoms nested more than \(maximumDepth) deep") }
            var atoms: [Atom] = []
            var position = range.lowerBound
            while position + 8 <= range.upperBound {
                var reader = ByteReader(bytes, at: position)
                var size = try reader.u32BE()
                let type = UInt32(try reader.u32BE())
                var header = 8
                if size == 1 {
                    size = Int(clamping: try reader.u64BE())
                    header = 16
                } else if size == 0 {
                    size = range.upperBound - position
                }
                guard size >= header, size <= range.upperBound - position else { throw TagIOError("a damaged MP4 atom") }
                let body = position + header..<position + size
                if type == meta {
                    let fullBox = body.count >= 4 && bytes[body.lowerBound..<body.lowerBound + 4].allSatisfy { $0 == 0 }
                    let start = body.lowerBound + (fullBox ? 4 : 0)
                    atoms.append(Atom(type: type, payload: Array(bytes[body.lowerBound..<start]), children: try parse(bytes, start..<body.upperBound, depth: depth + 1)))
                } else if samplePath.contains(type) {
                    atoms.append(Atom(type: type, payload: [], children: try parse(bytes, body, parent: type, depth: depth + 1)))
                } else if containers.contains(type) || parent == ilst, let children = try? parse(bytes, body, parent: type, depth: depth + 1) {
                    // Other containers that do not parse as atoms are kept as opaque bytes.
                    atoms.append(Atom(type: type, payload: [], children: children))
                } else {
                    atoms.append(Atom(type: type, payload: Array(bytes[body])))
                }
                position += size
            }
            return atoms
        }
    }

    /// Top-level atoms: type, offset, length.
    private static func topLevel(_ file: ByteSource) throws -> [(type: UInt32, offset: UInt64, length: UInt64)] {
        var atoms: [(UInt32, UInt64, UInt64)] = []
        var offset: UInt64 = 0
        while offset + 8 <= file.size {
            let header = try file.read(at: offset, count: 8)
            var length = UInt64(header[0..<4].bigEndianInteger)
            let type = UInt32(header[4..<8].bigEndianInteger)
            if length == 1 {
                length = try file.read(at: offset + 8, count: 8).reduce(0) { $0 << 8 | UInt64($1) }
            } else if length == 0 {
                length = file.size - offset
            }
            guard length >= 8, length <= file.size - offset else { throw TagIOError("a damaged MP4 atom at byte \(offset)") }
            atoms.append((type, offset, length))
            offset += length
        }
        guard atoms.first.map({ [code("ftyp"), moov, code("free"), code("skip"), code("wide"), code("mdat")].contains($0.0) }) == true else {
            throw TagIOError("not an MP4 file")
        }
        return atoms
    }

    private static func loadMoov(_ file: ByteSource) throws -> (atom: Atom, offset: UInt64, length: UInt64, top: [(type: UInt32, offset: UInt64, length: UInt64)]) {
        let top = try topLevel(file)
        guard let entry = top.first(where: { $0.type == moov }) else { throw TagIOError("the MP4 file has no moov atom") }
        guard entry.length < 1 << 30 else { throw TagIOError("the MP4 moov atom is implausibly large") }
        let bytes = try file.read(at: entry.offset, count: Int(entry.length))
        guard let atom = try Atom.parse(bytes, 0..<bytes.count).first else { throw TagIOError("a damaged MP4 moov atom") }
        return (atom, entry.offset, entry.length, top)
    }

    // MARK: Reading

    static func read(_ file: ByteSource) throws -> MediaTags {
        let items = try loadMoov(file).atom.child(udta)?.child(meta)?.child(ilst)?.children ?? []
        var tags = MediaTags()
        var kind: Int?
        var podcast = false
        var covers: [Artwork] = []
        for item in items {
            let values = (item.children ?? []).filter { $0.type == data }.map { $0.payload }
            guard let first = values.first, first.count >= 8 else { continue }
            let typeCode = first[1..<4].bigEndianInteger
            let content = Array(first.dropFirst(8))
            func text(_ payload: [UInt8]) -> String? {
                let type = payload[1..<4].bigEndianInteger
                let body = payload.dropFirst(8)
                switch type {
                case 1: return String(decoding: body, as: UTF8.self)
                case 2: return ID3v2.utf16(body, bigEndian: true)
                default: return nil
                }
            }
            let joined = values.filter { $0.count >= 8 }.compactMap(text).filter { !$0.isEmpty }.joined(separator: "; ")
            let integer = content.isEmpty || content.count > 8 ? nil : content.bigEndianInteger
            switch item.type {
            case code("trkn"), code("disk"):
                guard content.count >= 6 else { continue }
                let pair = (Optional(content[2..<4].bigEndianInteger), Optional(content[4..<6].bigEndianInteger))
                if item.type == code("trkn") {
                    TagValues.store(pair, into: &tags, number: "albumTrackNumber", count: "albumTrackCount")
                } else {
                    TagValues.store(pair, into: &tags, number: "discNumber", count: "discCount")
                }
            case code("tmpo"): if let integer, integer > 0 { tags.entries["beatsPerMinute"] = .integer(integer) }
            case code("cpil"): if let integer { tags.entries["isCompilation"] = .flag(integer != 0) }
            case code("stik"): kind = integer
            case code("pcst"): podcast = integer.map { $0 != 0 } ?? false
            case code("gnre"):
                if tags["genre"] == nil, let index = integer, index > 0, TagValues.id3v1Genres.indices.contains(index - 1) {
                    tags["genre"] = TagValues.id3v1Genres[index - 1]
                }
            case code("covr"):
                for payload in values where payload.count > 8 {
                    let declared = [13: "image/jpeg", 14: "image/png", 12: "image/gif", 27: "image/bmp"][payload[1..<4].bigEndianInteger] ?? ""
                    covers.append(Artwork(sniffing: Array(payload.dropFirst(8)), declared: declared))
                }
            case freeform:
                // iTunes' own (gapless data, loudness) are about the audio, not tags.
                guard let name = freeformName(item), !name.hasPrefix("iTun") else { continue }
                let texts = values.filter { $0.count >= 8 }.compactMap(text).filter { !$0.isEmpty }
                if !texts.isEmpty { tags.extra[ExtraTags.field(userName: name)] = texts }
            default:
                let texts = values.filter { $0.count >= 8 }.compactMap(text).filter { !$0.isEmpty }
                if let key = textItems[item.type], !joined.isEmpty, typeCode == 1 || typeCode == 2 {
                    // `joined` is not empty, so neither is `texts`.
                    tags.entries[key] = TagValue.several(texts)
                } else if let field = extraAtoms[item.type], !texts.isEmpty {
                    tags.extra[field] = texts
                } else if textItems[item.type] == nil, extraAtoms[item.type] == nil, !values.isEmpty {
                    // Latin-1, so "©" (0xA9) reads as in the file.
                    tags.uncarried.append(String((0..<4).map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: item.type >> (24 - 8 * $0)))) }))
                }
            }
        }
        switch kind {
        case 1: tags["mediaKind"] = "music"
        case 2: tags["mediaKind"] = "audioBook"
        case 21: tags["mediaKind"] = "podcast"
        default: if podcast { tags["mediaKind"] = "podcast" }
        }
        tags.artwork = covers.first
        if covers.count > 1 { tags.uncarried.append("covr: \(covers.count - 1) more picture\(covers.count == 2 ? "" : "s")") }
        VorbisComments.promoteStandardFields(&tags)
        TagValues.inferKind(&tags)
        return tags
    }

    /// The atoms of ExtraTags' table, by type.
    private static let extraAtoms = Dictionary(uniqueKeysWithValues: ExtraTags.mp4Atoms.map { (code($0.value), $0.key) })

    private static let textItems: [UInt32: String] = [
        code("©nam"): "title", code("©ART"): "artist", code("aART"): "albumArtist", code("©alb"): "albumTitle",
        code("©gen"): "genre", code("©wrt"): "composer", code("©grp"): "userGrouping", code("©cmt"): "comments",
        code("©lyr"): "lyrics", code("©day"): "releaseDate",
    ]

    // MARK: Writing

    static func write(_ tags: MediaTags, to file: ByteSource, into output: ByteSink) throws -> [String] {
        let (loaded, moovOffset, moovLength, top) = try loadMoov(file)
        var moovAtom = loaded
        if top.contains(where: { $0.type == code("moof") }) { throw TagIOError("cannot tag a fragmented MP4 file") }
        let oldItems = moovAtom.child(udta)?.child(meta)?.child(ilst)?.children ?? []
        let (encoded, unsupported) = try encode(tags)
        var items = encoded
        // iTunes' gapless playback data is about the audio, not a tag: keep it.
        items += oldItems.filter { $0.type == freeform && freeformName($0) == "iTunSMPB" }

        let handler: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0] + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9)
        let newMeta = Atom(type: meta, payload: [0, 0, 0, 0], children: [
            Atom(type: hdlr, payload: handler), Atom(type: ilst, payload: [], children: items),
        ])
        var children = moovAtom.children ?? []
        // A QuickTime-style moov/meta (mdta keys) is a second set of tags: it goes too.
        children.removeAll { $0.type == meta && $0.child(hdlr).map { handlerType($0) == "mdta" || handlerType($0) == "mdir" } == true }
        var userData = children.first { $0.type == udta && $0.children != nil } ?? Atom(type: udta, payload: [], children: [])
        children.removeAll { $0.type == udta }
        userData.children = (userData.children ?? []).filter { $0.type != meta && $0.type >> 24 != 0xA9 } + [newMeta]
        children.append(userData)
        moovAtom.children = children

        let delta = Int64(moovAtom.bytes.count) - Int64(moovLength)
        if delta != 0 { try shiftChunkOffsets(&moovAtom, after: moovOffset, by: delta) }
        let newMoov = moovAtom.bytes
        guard Int64(newMoov.count) - Int64(moovLength) == delta else { throw TagIOError("the MP4 chunk offsets changed size") }

        for atom in top {
            if atom.offset == moovOffset { try output.append(newMoov) } else { try output.copy(from: file, offset: atom.offset, count: atom.length) }
        }
        if let end = top.last.map({ $0.offset + $0.length }), end < file.size {
            try output.copy(from: file, offset: end, count: file.size - end)
        }
        return unsupported
    }

    private static func handlerType(_ atom: Atom) -> String {
        atom.payload.count >= 12 ? String(decoding: atom.payload[8..<12], as: UTF8.self) : ""
    }

    private static func freeformName(_ item: Atom) -> String? {
        item.child(code("name")).map { String(decoding: $0.payload.dropFirst(4), as: UTF8.self) }
    }

    /// Adds `delta` to every stco/co64 chunk offset that points past the old moov.
    private static func shiftChunkOffsets(_ atom: inout Atom, after moovOffset: UInt64, by delta: Int64) throws {
        if var children = atom.children {
            for index in children.indices { try shiftChunkOffsets(&children[index], after: moovOffset, by: delta) }
            atom.children = children
            return
        }
        guard atom.type == stco || atom.type == co64 else { return }
        let width = atom.type == stco ? 4 : 8
        var reader = ByteReader(atom.payload, at: 4)
        let count = try reader.u32BE()
        guard atom.payload.count >= 8 + count * width else { throw TagIOError("a damaged MP4 chunk offset table") }
        var payload = Array(atom.payload[0..<8])
        payload.reserveCapacity(atom.payload.count)
        for index in 0..<count {
            let start = 8 + index * width
            var value = Int64(bitPattern: atom.payload[start..<start + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            if value > Int64(moovOffset) { value = value.addingReportingOverflow(delta).partialValue }
            guard value >= 0, width == 8 || value <= Int64(UInt32.max) else {
                throw TagIOError("the audio would move past 4 GB, beyond the MP4 file's 32-bit chunk offsets")
            }
            payload.appendBE(Int(value), bytes: width)
        }
        atom.payload = payload
    }

    /// The ilst items for `tags`, and the keys MP4 cannot hold with these values.
    private static func encode(_ tags: MediaTags) throws -> ([Atom], [String]) {
        let values = TagValues.present(tags)
        var items: [Atom] = []
        var unsupported: [String] = []
        func dataAtom(_ type: Int, _ payload: [UInt8]) -> Atom {
            var body: [UInt8] = []
            body.appendBE(type, bytes: 4)
            body.appendBE(0, bytes: 4) // locale
            return Atom(type: data, payload: body + payload)
        }
        func item(_ name: String, type: Int, _ payload: [UInt8]) {
            items.append(Atom(type: code(name), payload: [], children: [dataAtom(type, payload)]))
        }
        /// A text item with a data atom per value of `key`.
        func text(_ name: String, _ key: String) {
            let all = tags.all(key)
            guard !all.isEmpty else { return }
            items.append(Atom(type: code(name), payload: [], children: all.map { dataAtom(1, Array(TagValues.clean($0).utf8)) }))
        }
        func pair(_ name: String, _ numberKey: String, _ countKey: String, trailing: Int) {
            let number = values[numberKey], count = values[countKey]
            guard number != nil || count != nil else { return }
            let n = TagValues.integer(number, in: 0...65535), c = TagValues.integer(count, in: 0...65535)
            if number != nil, n == nil { unsupported.append(numberKey) }
            if count != nil, c == nil { unsupported.append(countKey) }
            guard n != nil || c != nil else { return }
            var payload: [UInt8] = [0, 0]
            payload.appendBE(n ?? 0, bytes: 2)
            payload.appendBE(c ?? 0, bytes: 2)
            item(name, type: 0, payload + [UInt8](repeating: 0, count: trailing))
        }
        text("©nam", "title")
        text("©ART", "artist")
        text("aART", "albumArtist")
        text("©alb", "albumTitle")
        text("©grp", "userGrouping")
        text("©wrt", "composer")
        text("©gen", "genre")
        text("©day", "releaseDate")
        pair("trkn", "albumTrackNumber", "albumTrackCount", trailing: 2)
        pair("disk", "discNumber", "discCount", trailing: 0)
        if let bpm = values["beatsPerMinute"] {
            if let value = TagValues.integer(bpm, in: 0...65535) {
                var payload: [UInt8] = []
                payload.appendBE(value, bytes: 2)
                item("tmpo", type: 21, payload)
            } else {
                unsupported.append("beatsPerMinute")
            }
        }
        if let compilation = values["isCompilation"] {
            if let flag = TagValues.flag(compilation) { item("cpil", type: 21, [flag ? 1 : 0]) } else { unsupported.append("isCompilation") }
        }
        if let kind = values["mediaKind"] {
            switch kind.text {
            case "music": item("stik", type: 21, [1])
            case "audioBook": item("stik", type: 21, [2])
            case "podcast":
                item("stik", type: 21, [21])
                item("pcst", type: 21, [1])
            default: unsupported.append("mediaKind")
            }
        }
        text("©cmt", "comments")
        text("©lyr", "lyrics")
        // Other tags: an atom of their own, else an iTunes freeform item (mean, name, data…).
        for (field, list) in tags.extra.sorted(by: { $0.key < $1.key }) {
            let texts = list.map(TagValues.clean).filter { !$0.isEmpty }
            guard !texts.isEmpty else { continue }
            let datas = texts.map { dataAtom(1, Array($0.utf8)) }
            if let atom = ExtraTags.mp4Atoms[field] {
                items.append(Atom(type: code(atom), payload: [], children: datas))
            } else {
                let mean = Atom(type: code("mean"), payload: [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                let name = Atom(type: code("name"), payload: [0, 0, 0, 0] + Array(ExtraTags.userName(field).utf8))
                items.append(Atom(type: freeform, payload: [], children: [mean, name] + datas))
            }
        }
        if let artwork = tags.artwork {
            let types = ["image/jpeg": 13, "image/png": 14, "image/gif": 12, "image/bmp": 27]
            if let type = types[artwork.mimeType] { item("covr", type: type, artwork.data) } else { unsupported.append("artwork") }
        }
        return (items, unsupported)
    }
}
