/// Reading one field of a manifest line without decoding the record: a watch's refresh needs only
/// the `input` of every line of the last manifest, and decoding 100,000 whole records with
/// `JSONDecoder` was most of a refresh.
extension ManifestRecord {
    /// The `input` of a line as `line` writes it — `{"job":…,"item":…,"input":"…",…` — or nil when
    /// it is not there (the caller then decodes the line whole). The key is found as `,"input":"`:
    /// inside a JSON string every quote is escaped, and a string's closing quote is followed by
    /// `,`, `:` or `}`, so that text can only be the key; `job` and `item`, written before it,
    /// hold no key of their own.
    static func input<Line: Collection<UInt8>>(ofLine line: Line) -> String? {
        let bytes = Array(line)
        let key = Array(#","input":""#.utf8)
        guard bytes.count > key.count, let start = (0...(bytes.count - key.count)).first(where: { at in
            bytes[at] == key[0] && bytes[at..<(at + key.count)].elementsEqual(key)
        }) else { return nil }
        var text: [UInt8] = []
        var at = start + key.count
        while at < bytes.count {
            let byte = bytes[at]
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard at + 1 < bytes.count else { return nil }
                at += 1
                switch bytes[at] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(bytes[at])
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hexUnit(bytes, at + 1) else { return nil }
                    at += 4
                    var value = UInt32(unit)
                    if (0xD800..<0xDC00).contains(unit) {
                        // A high surrogate must be followed by a low one: \uD83D\uDE00.
                        guard at + 6 < bytes.count, bytes[at + 1] == UInt8(ascii: "\\"), bytes[at + 2] == UInt8(ascii: "u"),
                              let low = hexUnit(bytes, at + 3), (0xDC00..<0xE000).contains(low) else { return nil }
                        value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                        at += 6
                    }
                    guard let scalar = Unicode.Scalar(value) else { return nil }
                    text.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    return nil
                }
            case 0..<0x20:
                return nil  // a raw control character: not a JSON string
            default:
                text.append(byte)
            }
            at += 1
        }
        return nil
    }

    /// Four hex digits at `at`, as one UTF-16 unit.
    private static func hexUnit(_ bytes: [UInt8], _ at: Int) -> UInt16? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[at..<(at + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
