import Foundation

/// How a JPEG file was encoded, read from its headers (no pixel is decoded): the quality its
/// quantisation tables stand for and its chroma subsampling. `export.quality: same` writes with them.
public struct JPEGEncoding: Sendable, Equatable {
    /// The quality (1…100) the tables were made at, estimated as ImageMagick does (`identify -format %Q`):
    /// the tables are compared with the IJG tables scaled to each quality. nil: they are nobody's scaled
    /// standard tables that the estimate can place (ImageMagick then prints 0).
    public let quality: Int?
    /// Each component's horizontal and vertical sampling factors, in frame order (as ImageMagick's
    /// `%[jpeg:sampling-factor]` lists them: 2x2,1x1,1x1 is 4:2:0).
    public let samplingFactors: [(horizontal: Int, vertical: Int)]

    public static func == (lhs: JPEGEncoding, rhs: JPEGEncoding) -> Bool {
        lhs.quality == rhs.quality && lhs.samplingFactors.elementsEqual(rhs.samplingFactors) { $0 == $1 }
    }

    /// ImageMagick's spelling of the sampling factors ("2x2,1x1,1x1").
    public var samplingText: String {
        samplingFactors.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: ",")
    }

    /// The subsampling libvips' jpegsave can write that keeps this file's: `off` (4:4:4, every component
    /// sampled alike, or one grey component), `on` (4:2:0: the first component 2×2, the others 1×1);
    /// nil for any other layout (4:2:2, 4:1:1…), which libvips cannot write.
    public var subsampling: SaveOptions.Subsampling? {
        guard let first = samplingFactors.first else { return nil }
        let rest = samplingFactors.dropFirst()
        if rest.allSatisfy({ $0 == first }) { return .off }
        if first == (2, 2) && rest.allSatisfy({ $0 == (1, 1) }) { return .on }
        return nil
    }

    /// The encoding of the JPEG file at `path`; nil when it is not a JPEG or its headers end before
    /// they say it (no quantisation table or no frame header before the first scan).
    public static func read(path: String) throws -> JPEGEncoding? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaError(.medley, "read the JPEG headers", "cannot open \(path)")
        }
        defer { try? handle.close() }
        var reader = SegmentReader(handle: handle)
        return try reader.encoding()
    }

    /// The encoding in a JPEG file's bytes (nil as for `read(path:)`).
    public static func read(bytes: [UInt8]) -> JPEGEncoding? {
        var reader = SegmentReader(bytes: bytes)
        return try? reader.encoding()
    }

    // MARK: ImageMagick's estimate

    /// ImageMagick's estimate (coders/jpeg.c): with a luminance and a chrominance table, four entries
    /// (luminance at natural positions 2 and 53, chrominance at 0 and 63) and the sum of every table's
    /// entries, against the same of the IJG tables scaled to each quality 1…100; with one table, its
    /// entries 2 and 53 and its sum against the luminance table's. The first quality whose values the
    /// file's do not both fall below is the estimate when both are at most that quality's (exact), or
    /// from quality 51 on (approximate).
    static func estimate(tables: [Int: [Int]]) -> Int? {
        guard let luminance = tables[0] else { return nil }
        let sum = tables.values.reduce(0) { $0 + $1.reduce(0, +) }
        let chrominance = tables[1]
        let value = chrominance.map { luminance[2] + luminance[53] + $0[0] + $0[63] } ?? luminance[2] + luminance[53]
        for quality in 1...100 {
            let scaledLuminance = scaled(standardLuminance, quality: quality)
            var reference = scaledLuminance[2] + scaledLuminance[53]
            var referenceSum = scaledLuminance.reduce(0, +)
            if chrominance != nil {
                let scaledChrominance = scaled(standardChrominance, quality: quality)
                reference += scaledChrominance[0] + scaledChrominance[63]
                referenceSum += scaledChrominance.reduce(0, +)
            }
            if value < reference && sum < referenceSum { continue }
            return (value <= reference && sum <= referenceSum) || quality > 50 ? quality : nil
        }
        return nil
    }

    /// A standard table scaled to `quality` as libjpeg's `jpeg_set_quality` does for baseline files:
    /// 5000/q percent below 50, 200 − 2q from 50, each entry rounded and kept in 1…255.
    static func scaled(_ table: [Int], quality: Int) -> [Int] {
        let percent = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return table.map { min(max(($0 * percent + 50) / 100, 1), 255) }
    }

    /// ITU-T T.81 Annex K tables K.1 (luminance) and K.2 (chrominance), in natural (row) order.
    static let standardLuminance = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let standardChrominance: [Int] = (0..<64).map { index in
        let row = index / 8, column = index % 8
        let corner = [[17, 18, 24, 47], [18, 21, 26, 66], [24, 26, 56, 99], [47, 66, 99, 99]]
        return row < 4 && column < 4 ? corner[row][column] : 99
    }

    /// The natural (row-major) position of each zig-zag position: DQT segments list entries in zig-zag order.
    static let naturalOrder: [Int] = {
        var order: [Int] = []
        for diagonal in 0..<15 {
            let rows = max(0, diagonal - 7)...min(diagonal, 7)
            // Even diagonals run up and to the right (row falling), odd ones down and to the left.
            let walk = diagonal % 2 == 0 ? Array(rows.reversed()) : Array(rows)
            order += walk.map { $0 * 8 + (diagonal - $0) }
        }
        return order
    }()
}

/// Walks a JPEG's marker segments up to the first scan, from a file or from bytes.
private struct SegmentReader {
    private var handle: FileHandle?
    private var bytes: [UInt8] = []
    private var offset = 0

    init(handle: FileHandle) { self.handle = handle }
    init(bytes: [UInt8]) { self.bytes = bytes }

    /// `count` bytes from the current position (fewer at the end).
    private mutating func take(_ count: Int) throws -> [UInt8] {
        if let handle {
            let data = try handle.read(upToCount: count) ?? Data()
            offset += data.count
            return [UInt8](data)
        }
        let end = min(bytes.count, offset + count)
        defer { offset = end }
        return Array(bytes[min(offset, end)..<end])
    }

    private mutating func skip(_ count: Int) throws {
        offset += count
        if let handle { try handle.seek(toOffset: UInt64(offset)) }
    }

    mutating func encoding() throws -> JPEGEncoding? {
        guard try take(2) == [0xFF, 0xD8] else { return nil }
        var tables: [Int: [Int]] = [:]
        var sampling: [(horizontal: Int, vertical: Int)]?
        while true {
            // A marker: 0xFF, any fill 0xFFs, then its code.
            guard try take(1) == [0xFF] else { return nil }
            var code = try take(1)
            while code == [0xFF] { code = try take(1) }
            guard let marker = code.first else { return nil }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            if marker == 0xDA || marker == 0xD9 { break }  // first scan or end: the headers are read
            let lengthBytes = try take(2)
            guard lengthBytes.count == 2 else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else { return nil }
            let isFrame = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF].contains(marker)
            guard marker == 0xDB || isFrame else { try skip(length - 2); continue }
            let payload = try take(length - 2)
            guard payload.count == length - 2 else { return nil }
            if marker == 0xDB {
                guard let read = Self.quantisationTables(payload) else { return nil }
                tables.merge(read) { $1 }
            } else {
                guard payload.count >= 6 else { return nil }
                let components = Int(payload[5])
                guard components > 0, payload.count >= 6 + 3 * components else { return nil }
                sampling = (0..<components).map { index in
                    let factors = payload[6 + 3 * index + 1]
                    return (Int(factors >> 4), Int(factors & 0x0F))
                }
            }
        }
        guard let sampling, !tables.isEmpty else { return nil }
        return JPEGEncoding(quality: JPEGEncoding.estimate(tables: tables), samplingFactors: sampling)
    }

    /// The tables of one DQT segment by id (0–3), in natural order; nil when it is malformed.
    private static func quantisationTables(_ payload: [UInt8]) -> [Int: [Int]]? {
        var tables: [Int: [Int]] = [:]
        var index = 0
        while index < payload.count {
            let wide = payload[index] >> 4 != 0, id = Int(payload[index] & 0x0F)
            index += 1
            let size = wide ? 128 : 64
            guard id < 4, index + size <= payload.count else { return nil }
            var table = [Int](repeating: 0, count: 64)
            for position in 0..<64 {
                let value = wide ? Int(payload[index + 2 * position]) << 8 | Int(payload[index + 2 * position + 1])
                                 : Int(payload[index + position])
                table[JPEGEncoding.naturalOrder[position]] = value
            }
            tables[id] = table
            index += size
        }
        return tables
    }
}
