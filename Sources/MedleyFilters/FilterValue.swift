import MedleyKernels

/// A value a filter parameter holds: what `CIFilter.setValue(_:forKey:)` accepts.
public enum FilterValue: Sendable, Equatable, CustomStringConvertible {
    /// NSNumber: scalars, distances, angles, counts.
    case number(Double)
    /// Booleans (NSNumber in Core Image, kept apart here so validation can name the type).
    case boolean(Bool)
    /// CIVector: positions, offsets, rectangles, tone-curve points.
    case vector([Double])
    /// CIColor: red, green, blue, alpha in 0…1.
    case color(red: Double, green: Double, blue: Double, alpha: Double)
    /// CIImage: a recipe for pixels.
    case image(FilterImage)
    /// One word of a `.choice` parameter (Medley's own filters).
    case text(String)
    /// A lookup table read from a file the pipeline names (a `.file` parameter).
    case lookupTable(ColorLookupTable)

    /// Values compare by content; images are recipes and never compare equal.
    public static func == (lhs: FilterValue, rhs: FilterValue) -> Bool {
        switch (lhs, rhs) {
        case let (.number(a), .number(b)): return a == b
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.vector(a), .vector(b)): return a == b
        case let (.color(r1, g1, b1, a1), .color(r2, g2, b2, a2)): return [r1, g1, b1, a1] == [r2, g2, b2, a2]
        case let (.text(a), .text(b)): return a == b
        case let (.lookupTable(a), .lookupTable(b)): return a == b
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .number(let n): return Self.format(n)
        case .boolean(let b): return b ? "true" : "false"
        case .vector(let v): return "[" + v.map(Self.format).joined(separator: " ") + "]"
        case .color(let r, let g, let b, let a):
            return "(" + [r, g, b, a].map(Self.format).joined(separator: " ") + ")"
        case .image: return "<image>"
        case .text(let word): return word
        case .lookupTable(let table):
            return table.shape == .cube ? "<\(table.size)³ cube>" : "<\(table.size)-entry curves>"
        }
    }

    /// Numbers as a person writes them: 1, 0.5, 3.14159.
    public static func format(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 1e15 { return String(Int(n)) }
        return String(n)
    }

    /// The JSON form `filters describe --json` prints.
    public var jsonValue: JSONValue {
        switch self {
        case .number(let n): return .number(n)
        case .boolean(let b): return .bool(b)
        case .vector(let v): return .array(v.map { .number($0) })
        case .color(let r, let g, let b, let a): return .array([r, g, b, a].map { .number($0) })
        case .image, .lookupTable: return .null
        case .text(let word): return .string(word)
        }
    }
}

/// A minimal JSON value, enough for describing filters and writing events without Foundation's
/// dictionary ordering (keys keep the order they were written in).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }

    /// Compact JSON text (one line), or indented by two spaces when `pretty`.
    public func rendered(pretty: Bool = false, indent: Int = 0) -> String {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? String(repeating: "  ", count: indent) : ""
        let newline = pretty ? "\n" : ""
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n):
            guard n.isFinite else { return "null" }
            return FilterValue.format(n)
        case .string(let s): return Self.quote(s)
        case .array(let items):
            if items.isEmpty { return "[]" }
            let inner = items.map { pad + $0.rendered(pretty: pretty, indent: indent + 1) }
            return "[" + newline + inner.joined(separator: "," + newline) + newline + close + "]"
        case .object(let pairs):
            if pairs.isEmpty { return "{}" }
            let separator = pretty ? ": " : ":"
            let inner = pairs.map { pad + Self.quote($0.0) + separator + $0.1.rendered(pretty: pretty, indent: indent + 1) }
            return "{" + newline + inner.joined(separator: "," + newline) + newline + close + "}"
        }
    }

    /// A JSON string literal; control characters (C0, DEL and C1, which a terminal showing the JSON
    /// would obey) and invalid text are escaped, never dropped; so is every scalar `alsoEscaping`
    /// names (the report's page escapes `<`, `>`, `&` so that no text can close its script).
    public static func quote(_ s: String, alsoEscaping extra: (Unicode.Scalar) -> Bool = { _ in false }) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || extra(scalar) {
                    // As UTF-16 units: a scalar past U+FFFF is a surrogate pair, \uD83C\uDFB5.
                    for unit in String(scalar).utf16 {
                        let digits = String(unit, radix: 16)
                        out += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
