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
