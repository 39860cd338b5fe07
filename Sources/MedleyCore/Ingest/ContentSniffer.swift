import MedleySystem

/// Recognises media files from their first bytes. Extensions lie (a PNG saved as ".jpg", a text file named
/// "photo.jpg"), so the bytes are the only thing trusted.
public enum ContentSniffer {
    /// How many leading bytes `sniff(fileAt:)` reads; every signature below fits in this many.
    public static let headerLength = 64

    /// Classifies the first bytes of a file (pass at least 64 if the file has them). nil = not recognised.
    public static func sniff(_ header: [UInt8]) -> SniffedFormat? {
        let bytes = Header(header)
        // Camera RAWs first: a CR2 has TIFF's magic and a CR3 is ISO media (`RawRecognition`).
        if let raw = RawRecognition.signature(bytes) { return raw }
        // Longest and most specific signatures first; the two-byte ones (BMP, bare JPEG XL) and the MPEG frame
        // sync come last because random data is most likely to hit them.
        if bytes.has([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.has("GIF87a") || bytes.has("GIF89a") { return .gif }
        if bytes.has("RIFF") || bytes.has("RF64") { return riffFormat(bytes) }
        if bytes.has("FORM") {
            // IFF container; AIFC is compressed AIFF and is still AIFF to anyone who plays it.
            return bytes.has("AIFF", at: 8) || bytes.has("AIFC", at: 8) ? .aiff : nil
        }
        // PDF: rendered by poppler (`ingest.page`, `ingest.density`); SVG: XML naming an <svg> root, rendered by librsvg.
        if bytes.has("%PDF-") { return .pdf }
        if isSVG(header) { return .svg }
        if bytes.has([0x49, 0x49, 0x2A, 0x00]) || bytes.has([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        // BigTIFF: the same format with 64-bit offsets, used for very large scans.
        if bytes.has([0x49, 0x49, 0x2B, 0x00]) || bytes.has([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if bytes.has([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jxl }  // JPEG XL container
        if bytes.has("ftyp", at: 4) { return isoMediaFormat(bytes) }
        if isQuickTimeAtom(bytes) { return .mov }
        if bytes.has("caff") { return .caf }
        if bytes.has("fLaC") { return .flac }
        if bytes.has("OggS") { return oggFormat(bytes) }
        if bytes.has([0x1A, 0x45, 0xDF, 0xA3]) { return matroskaFormat(bytes) }
        if bytes.has([0xFF, 0x0A]) { return .jxl }  // JPEG XL bare codestream
        if isBitmap(bytes) { return .bmp }
        // An ID3 tag is also sometimes put in front of FLAC or AAC, but the tag (with cover art or padding) is nearly
        // always longer than the header we read, so what follows it cannot be checked; it is mp3 in practice.
        if isID3Tag(bytes) || isMPEGAudioFrame(bytes, at: 0) { return .mp3 }
        return nil
    }

    /// Reads up to 64 bytes of the file and classifies them (up to `xmlHeaderLength` when they start like XML,
    /// to find an `<svg` root after a prolog and comments). Throws IngestError.unreadable / .empty.
    public static func sniff(fileAt path: String) throws -> SniffedFormat? {
        try withOpenFile(path) { try sniff(descriptor: $0, path: path) }
    }

    /// `body` over the file opened for reading (O_NONBLOCK: opening a FIFO would otherwise wait
    /// forever for a writer), closed afterwards. Throws IngestError.unreadable when it cannot be opened.
    private static func withOpenFile<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        let descriptor: Int32
        switch FileSystem.openForReading(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw IngestError.unreadable(path: path, reason: error.text)
        }
        defer { FileSystem.close(descriptor) }
        return try body(descriptor)
    }

    /// Classifies the first bytes of an open file (read with `pread`, so its offset is untouched); `path` names it
    /// in errors.
    public static func sniff(descriptor: Int32, path: String) throws -> SniffedFormat? {
        let header = try readHeader(descriptor: descriptor, path: path)
        if isID3Tag(Header(header)), afterID3Tags(descriptor) == Array("fLaC".utf8) { return .flac }
        guard startsLikeXML(header) else { return sniff(header) }
        if case .success(let more) = FileSystem.read(descriptor, count: xmlHeaderLength, at: 0), !more.isEmpty {
            return sniff(more)
        }
        return sniff(header)
    }

    /// The 4 bytes after the ID3v2 tags at the start of a file (taggers put one in front of FLAC
    /// too, which libFLAC, FFmpeg and mutagen skip): 10-byte header, syncsafe size, optional footer.
    private static func afterID3Tags(_ descriptor: Int32) -> [UInt8]? {
        var offset: Int64 = 0
        for _ in 0..<8 {
            guard case .success(let head) = FileSystem.read(descriptor, count: 10, at: offset), isID3Tag(Header(head)) else { break }
            offset += 10 + Int64(head[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }) + (head[5] & 0x10 != 0 ? 10 : 0)
        }
        guard offset > 0, case .success(let next) = FileSystem.read(descriptor, count: 4, at: offset) else { return nil }
        return next
    }

    /// How far into an XML file `<svg` is looked for (librsvg's and libvips' own sniffers look as far).
    static let xmlHeaderLength = 4096

    /// Text opening with `<` after an optional UTF-8 byte-order mark and white space.
    static func startsLikeXML(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == 0x3C
    }

    /// XML whose leading bytes hold an `<svg` element (after `<?xml …?>`, comments and a DOCTYPE).
    static func isSVG(_ bytes: [UInt8]) -> Bool {
        guard startsLikeXML(bytes) else { return false }
        let needle = Array("<svg".utf8)
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == 0x3C {
            if Array(bytes[start..<start + needle.count]) == needle {
                let next = start + needle.count
                return next == bytes.count || [0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x3A].contains(bytes[next])
            }
        }
        return false
    }

    /// Reads up to `headerLength` bytes from the start of the file.
    static func readHeader(of path: String) throws -> [UInt8] {
        try withOpenFile(path) { try readHeader(descriptor: $0, path: path) }
    }

    /// Up to `headerLength` bytes from offset 0 of an open file.
    static func readHeader(descriptor: Int32, path: String) throws -> [UInt8] {
        // A short file is fine: it just has a short header.
        switch FileSystem.read(descriptor, count: headerLength, at: 0) {
        case .failure(let error): throw IngestError.unreadable(path: path, reason: error.text)
        case .success(let bytes):
            guard !bytes.isEmpty else { throw IngestError.empty(path: path) }
            return bytes
        }
    }

    // MARK: - Containers

    /// RIFF: the form type at offset 8 names the content. RF64 is WAV's >4 GB variant.
    private static func riffFormat(_ bytes: Header) -> SniffedFormat? {
        if bytes.has("WAVE", at: 8) { return .wav }
        guard bytes.has("RIFF") else { return nil }
        if bytes.has("WEBP", at: 8) { return .webp }
        if bytes.has("AVI ", at: 8) { return .avi }
        return nil
    }

    /// ISO base media (MP4 family, HEIF, AVIF): the "ftyp" box lists a major brand and compatible brands.
    private static func isoMediaFormat(_ bytes: Header) -> SniffedFormat? {
        // A box's size 1 means a 64-bit size follows the type (ISO/IEC 14496-12 §4.2), so the
        // brands start 8 bytes later; size 0 means "to the end of the file".
        var boxSize = Int(bytes.uint32BigEndian(at: 0) ?? 0)
        var start = 8
        if boxSize == 1, let high = bytes.uint32BigEndian(at: 8), let low = bytes.uint32BigEndian(at: 12) {
            boxSize = high == 0 ? Int(low) : Int.max
            start = 16
        }
        guard let major = bytes.fourCC(at: start) else { return nil }
        // Compatible brands run from after the minor version to the end of the ftyp box.
        let end = boxSize >= start + 8 ? min(boxSize, bytes.count) : bytes.count
        let compatible = stride(from: start + 8, to: end - 3, by: 4).compactMap { bytes.fourCC(at: $0) }

        // mif1/msf1/miaf only say "some HEIF-structured image"; AVIF files often use them as the major brand and
        // name the codec in the compatible list, so look there before settling on plain HEIF.
        if BrandGroup.heifStructural.contains(major) {
            return compatible.contains(where: BrandGroup.avif.contains) ? .avif : .heif
        }
        if let format = BrandGroup.format(of: major) { return format }
        // Unknown major brand (camera vendors invent their own, e.g. "XAVC"): take the most specific
        // compatible brand, so a file that is also "isom" but declares "M4A " stays audio.
        for group in BrandGroup.bySpecificity {
            if compatible.contains(where: group.brands.contains) { return group.format }
        }
        return nil
    }

    /// Brand lists for ISO base media files.
    private enum BrandGroup {
        static let avif: Set<String> = ["avif", "avis"]
        static let heif: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]
        static let heifStructural: Set<String> = ["mif1", "msf1", "miaf"]
        static let m4a: Set<String> = ["M4A ", "M4P "]
        static let m4b: Set<String> = ["M4B "]
        static let mov: Set<String> = ["qt  "]
        // An "mp4" can hold only audio, but without parsing its tracks we cannot know, and a movie container is
        // the honest answer; audio-only MP4s that want to be recognised as such use the M4A brands.
        static let mp4: Set<String> = ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9",
                                       "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "dash", "mmp4", "f4v "]
        static let jxl: Set<String> = ["jxl "]

        static let bySpecificity: [(brands: Set<String>, format: SniffedFormat)] = [
            (avif, .avif), (heif, .heif), (heifStructural, .heif), (jxl, .jxl), (m4b, .m4b), (m4a, .m4a), (mov, .mov),
            (mp4, .mp4),
        ]

        static func format(of brand: String) -> SniffedFormat? {
            // 3GPP brands are numbered by release ("3gp4"…"3gp9", "3g2a"…, "3ge6", "3gs7"); the family is the prefix.
            if brand.hasPrefix("3gp") || brand.hasPrefix("3g2") || brand.hasPrefix("3ge")
                || brand.hasPrefix("3gg") || brand.hasPrefix("3gs") {
                return .threeGP
            }
            return bySpecificity.first { $0.brands.contains(brand) }?.format
        }
    }

    /// Ogg: the first page carries the codec's identification packet; "OpusHead" marks Opus, anything else
    /// (Vorbis, FLAC, Speex) is reported as generic Ogg audio.
    private static func oggFormat(_ bytes: Header) -> SniffedFormat? {
        // A real page header is 27 bytes; its structure version is always 0 and only three flag bits exist.
        guard bytes.count >= 27, bytes[4] == 0, bytes[5] & 0xF8 == 0 else { return nil }
        // First page length: header + segment table + the segments it lists (when we have them all).
        var pageEnd = bytes.count
        let segmentCount = Int(bytes[26])
        if bytes.count >= 27 + segmentCount {
            pageEnd = min(bytes.count, 27 + segmentCount + (0..<segmentCount).reduce(0) { $0 + Int(bytes[27 + $1]) })
        }
        if bytes.contains([0x80] + Array("theora".utf8), before: pageEnd) { return .ogv }
        return bytes.contains("OpusHead", before: pageEnd) ? .opus : .ogg
    }

    /// Old QuickTime files have no `ftyp`: they start with a movie, data or padding atom. The
    /// four-letter type is checked with a size that can hold it (0 for "to the end", 1 for a
    /// 64-bit size); libavformat confirms the file later.
    private static func isQuickTimeAtom(_ bytes: Header) -> Bool {
        guard let type = bytes.fourCC(at: 4), ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(type),
              let size = bytes.uint32BigEndian(at: 0) else { return false }
        return size == 0 || size == 1 || size >= 8
    }

    /// Matroska and WebM share the EBML header; its DocType element (ID 0x4282) tells them apart.
    private static func matroskaFormat(_ bytes: Header) -> SniffedFormat? {
        var index = 4
        while index + 2 < bytes.count {
            if bytes[index] == 0x42, bytes[index + 1] == 0x82 {
                guard let (length, width) = bytes.ebmlSize(at: index + 2) else { break }
                let start = index + 2 + width
                guard length <= 32, start + length <= bytes.count else { break }
                let docType = bytes[start..<(start + length)].prefix { $0 != 0 }  // may be zero-padded
                return Array(docType) == Array("webm".utf8) ? .webm : .mkv
            }
            index += 1
        }
        return .mkv
    }

    // MARK: - Weak signatures, checked strictly

    /// "BM" alone matches one in 65,536 random files, so also require a known DIB header size at offset 14.
    private static func isBitmap(_ bytes: Header) -> Bool {
        guard bytes.has("BM"), let dibSize = bytes.uint32LittleEndian(at: 14) else { return false }
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }

    /// "ID3", a version 2.2–2.4, and a size whose four bytes are "syncsafe" (high bit clear).
    private static func isID3Tag(_ bytes: Header) -> Bool {
        guard bytes.has("ID3"), bytes.count >= 10 else { return false }
        return (2...4).contains(bytes[3]) && bytes[4] != 0xFF && (6..<10).allSatisfy { bytes[$0] < 0x80 }
    }

    /// An MPEG-1/2/2.5 Layer III frame header with no reserved or "free" field values. When the next frame starts
    /// inside the header we have, it must be a valid frame too.
    static func isMPEGAudioFrame(_ bytes: Header, at offset: Int, checkNext: Bool = true) -> Bool {
        guard let frame = MPEGFrameHeader(bytes, at: offset) else { return false }
        let next = offset + frame.length
        if checkNext, next + 4 <= bytes.count {
            return isMPEGAudioFrame(bytes, at: next, checkNext: false)
        }
        return true
    }

    /// The fields of a Layer III frame header needed to validate it and find the next one.
    struct MPEGFrameHeader {
        let length: Int

        init?(_ bytes: Header, at offset: Int) {
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { return nil }
            let version = (bytes[offset + 1] >> 3) & 0x3   // 0 = MPEG 2.5, 1 = reserved, 2 = MPEG 2, 3 = MPEG 1
            let layer = (bytes[offset + 1] >> 1) & 0x3     // 1 = Layer III; 0 is reserved (and is what AAC/ADTS uses)
            let bitrateIndex = Int(bytes[offset + 2] >> 4) // 0 = "free format", 15 = invalid
            let sampleRateIndex = Int((bytes[offset + 2] >> 2) & 0x3)  // 3 = reserved
            let padding = Int((bytes[offset + 2] >> 1) & 0x1)
            let emphasis = bytes[offset + 3] & 0x3         // 2 = reserved
            // Layer I/II ("mp2") are not in our format list, so only Layer III counts.
            guard version != 1, layer == 1, (1...14).contains(bitrateIndex), sampleRateIndex != 3, emphasis != 2 else {
                return nil
            }
            let isMPEG1 = version == 3
            let kbps = isMPEG1
                ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitrateIndex]
                : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][bitrateIndex]
            let baseRate = [44_100, 48_000, 32_000][sampleRateIndex]
            let sampleRate = version == 3 ? baseRate : (version == 2 ? baseRate / 2 : baseRate / 4)
            let samplesPerFrameOver8 = isMPEG1 ? 144 : 72
            length = samplesPerFrameOver8 * kbps * 1000 / sampleRate + padding
        }
    }

    /// Bounds-checked reading of a header that may be shorter than any signature.
    struct Header {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var count: Int { bytes.count }
        subscript(index: Int) -> UInt8 { bytes[index] }
        subscript(range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

        func has(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            guard offset >= 0, offset + signature.count <= bytes.count else { return false }
            return bytes[offset..<(offset + signature.count)].elementsEqual(signature)
        }

        func has(_ ascii: String, at offset: Int = 0) -> Bool {
            has(Array(ascii.utf8), at: offset)
        }

        /// Four printable-ASCII bytes as a string (brands, chunk types), or nil.
        func fourCC(at offset: Int) -> String? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            let code = bytes[offset..<(offset + 4)]
            guard code.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            return String(decoding: code, as: UTF8.self)
        }

        func uint32BigEndian(at offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }

        func uint32LittleEndian(at offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        func contains(_ ascii: String, before end: Int) -> Bool {
            contains(Array(ascii.utf8), before: end)
        }

        func contains(_ needle: [UInt8], before end: Int) -> Bool {
            let limit = min(end, bytes.count) - needle.count
            guard limit >= 0 else { return false }
            return (0...limit).contains { has(needle, at: $0) }
        }

        /// An EBML variable-length size: the count of leading zero bits gives its width. Returns (value, width).
        func ebmlSize(at offset: Int) -> (Int, Int)? {
            guard offset < bytes.count, bytes[offset] != 0 else { return nil }
            let width = bytes[offset].leadingZeroBitCount + 1
            guard offset + width <= bytes.count else { return nil }
            var value = Int(bytes[offset] & (0xFF >> width))
            for index in (offset + 1)..<(offset + width) { value = value << 8 | Int(bytes[index]) }
            return (value, width)
        }
    }
}
