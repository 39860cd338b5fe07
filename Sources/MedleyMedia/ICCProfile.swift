/// Just enough of the ICC profile format (ICC.1:2010 §7) to tell whether an embedded profile is
/// sRGB, so the common case skips a colour-management transform that would change nothing.
public enum ICCProfile {
    /// The profile's description text ('desc' tag, as `desc` or `mluc` type), if readable.
    public static func description(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 132 else { return nil }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        guard let count = u32(128), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = 132 + index * 12
            guard let signature = u32(entry), let offset = u32(entry + 4), let size = u32(entry + 8),
                  signature == 0x6465_7363 /* 'desc' */, offset + size <= bytes.count, size >= 12 else { continue }
            let type = u32(offset)
            if type == 0x6465_7363, let length = u32(offset + 8), offset + 12 + length <= bytes.count {
                // textDescriptionType: ASCII, NUL-terminated.
                let text = bytes[(offset + 12)..<(offset + 12 + length)].prefix { $0 != 0 }
                return String(decoding: text, as: UTF8.self)
            }
            if type == 0x6D6C_7563 /* 'mluc' */, let records = u32(offset + 8), records > 0,
               let length = u32(offset + 20), let start = u32(offset + 24),
               offset + start + length <= bytes.count {
                // multiLocalizedUnicodeType: the first record, UTF-16BE.
                var units: [UInt16] = []
                var i = offset + start
                while i + 1 < offset + start + length {
                    units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                    i += 2
                }
                return String(decoding: units, as: UTF16.self)
            }
        }
        return nil
    }

    /// Whether the profile describes itself as sRGB (the IEC 61966-2-1 profiles all do).
    public static func isSRGB(_ bytes: [UInt8]) -> Bool {
        guard let text = description(bytes) else { return false }
        return text.range(of: "sRGB", options: .caseInsensitive) != nil
    }
}

extension ICCProfile {
    /// The header's colour space signature ('RGB ', 'GRAY', 'CMYK', …), or nil for no ICC profile.
    public static func colourSpace(_ bytes: [UInt8]) -> String? {
        guard problem(bytes) == nil else { return nil }
        return String(decoding: bytes[16..<20], as: UTF8.self)
    }

    /// Nil when the bytes have an ICC profile's header (ICC.1:2010 §7.2: the 'acsp' signature, a
    /// declared size the bytes hold, a tag table inside it); else what is wrong, in a few words.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 132 else { return "\(bytes.count) bytes, shorter than an ICC profile's 128-byte header and tag count" }
        guard bytes[36..<40].elementsEqual("acsp".utf8) else { return "no 'acsp' signature at byte 36: not an ICC profile" }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard declared >= 132, declared <= bytes.count else {
            return "the header says \(declared) bytes, the file has \(bytes.count)"
        }
        let tags = Int(bytes[128]) << 24 | Int(bytes[129]) << 16 | Int(bytes[130]) << 8 | Int(bytes[131])
        guard 132 + tags * 12 <= declared else { return "its tag table (\(tags) tags) runs past the profile's end" }
        return nil
    }

    /// Display P3 as Apple defines it: the DCI-P3 primaries (red 0.680, 0.320; green 0.265, 0.690;
    /// blue 0.150, 0.060), the D65 white point and the sRGB tone curve (IEC 61966-2-1), as an ICC
    /// v4 matrix/TRC display profile. The colorants are adapted to the D50 connection space with
    /// the Bradford transform (ICC.1:2010 Annex E), which the `chad` tag records. No Debian package
    /// ships a Display P3 profile (icc-profiles-free and colord-data have none), so it is built here.
    public static let displayP3: [UInt8] = matrixProfile(
        description: "Display P3", red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
        white: (0.3127, 0.3290))

    /// An ICC v4 RGB display profile of three primaries and a white point (xy chromaticities) with
    /// the sRGB tone curve (parametric curve type 3).
    static func matrixProfile(description: String, red: (Double, Double), green: (Double, Double),
                              blue: (Double, Double), white: (Double, Double)) -> [UInt8] {
        typealias Vector = (Double, Double, Double)
        func xyz(_ xy: (Double, Double)) -> Vector { (xy.0 / xy.1, 1, (1 - xy.0 - xy.1) / xy.1) }
        func multiply(_ m: [[Double]], _ v: Vector) -> Vector {
            (m[0][0] * v.0 + m[0][1] * v.1 + m[0][2] * v.2, m[1][0] * v.0 + m[1][1] * v.1 + m[1][2] * v.2,
             m[2][0] * v.0 + m[2][1] * v.1 + m[2][2] * v.2)
        }
        func product(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        func inverse(_ m: [[Double]]) -> [[Double]] {
            let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
            return (0..<3).map { i in (0..<3).map { j in
                let rows = [0, 1, 2].filter { $0 != j }, cols = [0, 1, 2].filter { $0 != i }
                let minor = m[rows[0]][cols[0]] * m[rows[1]][cols[1]] - m[rows[0]][cols[1]] * m[rows[1]][cols[0]]
                return ((i + j) % 2 == 0 ? minor : -minor) / det
            } }
        }
        // RGB → XYZ: the primaries' XYZ scaled so that RGB 1,1,1 is the white point (Y = 1).
        let (r, g, b, w) = (xyz(red), xyz(green), xyz(blue), xyz(white))
        let primaries = [[r.0, g.0, b.0], [r.1, g.1, b.1], [r.2, g.2, b.2]]
        let scale = multiply(inverse(primaries), w)
        let toXYZ = primaries.map { [$0[0] * scale.0, $0[1] * scale.1, $0[2] * scale.2] }
        // Bradford: white → D50 (the PCS illuminant of ICC.1:2010, 0.9642 1 0.8249).
        let bradford = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let d50: Vector = (0.9642, 1.0, 0.8249)
        let source = multiply(bradford, w), target = multiply(bradford, d50)
        let gain = [[target.0 / source.0, 0, 0], [0, target.1 / source.1, 0], [0, 0, target.2 / source.2]]
        let adaptation = product(inverse(bradford), product(gain, bradford))
        let adapted = product(adaptation, toXYZ)

        func u32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func s15(_ v: Double) -> [UInt8] { u32(Int(Int32(truncatingIfNeeded: Int((v * 65536).rounded()))) & 0xFFFF_FFFF) }
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        func mluc(_ s: String) -> [UInt8] {
            let units = Array(s.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            return text("mluc") + u32(0) + u32(1) + u32(12) + text("enUS") + u32(units.count) + u32(28) + units
        }
        func xyzTag(_ v: Vector) -> [UInt8] { text("XYZ ") + u32(0) + s15(v.0) + s15(v.1) + s15(v.2) }
        let curve = text("para") + u32(0) + [0, 3, 0, 0]
            + s15(2.4) + s15(1 / 1.055) + s15(0.055 / 1.055) + s15(1 / 12.92) + s15(0.04045)
        let chad = text("sf32") + u32(0) + adaptation.flatMap { $0.flatMap(s15) }
        let column = { (i: Int) -> Vector in (adapted[0][i], adapted[1][i], adapted[2][i]) }
        let tags: [(String, [UInt8])] = [
            ("desc", mluc(description)), ("cprt", mluc("No copyright, use freely")), ("wtpt", xyzTag(d50)),
            ("chad", chad), ("rXYZ", xyzTag(column(0))), ("gXYZ", xyzTag(column(1))), ("bXYZ", xyzTag(column(2))),
            ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var table: [UInt8] = u32(tags.count), data: [UInt8] = []
        let start = 128 + 4 + tags.count * 12
        for (signature, bytes) in tags {
            table += text(signature) + u32(start + data.count) + u32(bytes.count)
            data += bytes
            while data.count % 4 != 0 { data.append(0) }
        }
        let size = start + data.count
        var header = u32(size) + u32(0) + [4, 0x30, 0, 0] + text("mntr") + text("RGB ") + text("XYZ ")
        header += [0x07, 0xE8, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]  // 2024-01-01 00:00:00
        header += text("acsp") + u32(0) + u32(0) + u32(0) + u32(0) + [UInt8](repeating: 0, count: 8) + u32(0)
        header += s15(d50.0) + s15(d50.1) + s15(d50.2) + u32(0)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return header + table + data
    }
}

/// How a profile conversion maps colours one space cannot show into the other (ICC.1:2010 §6.2),
/// numbered as libvips' `VipsIntent`.
public enum RenderingIntent: Int32, Sendable, CaseIterable {
    /// The whole gamut compressed into the destination's, keeping how colours relate: the profile's
    /// perceptual tables (CMYK profiles have them; matrix RGB profiles fall back to colorimetric).
    case perceptual = 0
    /// Colours inside both gamuts kept exactly (white mapped to white), the others clipped.
    case relative = 1
    /// Vivid colours kept vivid (charts, logos).
    case saturation = 2
    /// Colours kept exactly, the source's white included (proofing).
    case absolute = 3

    /// The name a pipeline writes (`export.intent`).
    public var name: String {
        switch self {
        case .perceptual: return "perceptual"
        case .relative: return "relative"
        case .saturation: return "saturation"
        case .absolute: return "absolute"
        }
    }

    /// The intent a conversion of an image stored as `interpretation` gets when the job names none:
    /// perceptual for CMYK (as sharp and Photoshop convert print files for the screen), relative otherwise.
    public static func `default`(for interpretation: String) -> RenderingIntent {
        interpretation == "cmyk" ? .perceptual : .relative
    }
}
