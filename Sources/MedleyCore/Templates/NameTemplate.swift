import MedleyFilters
import Foundation

/// An export `name:` template (like a beets path format) that turns an item's properties into a relative
/// output path, e.g. `"{artist}/{albumTitle}/{albumTrackNumber:02} {title}.m4a"`.
///
/// Syntax:
/// - `{name}` substitutes a property; `{{` and `}}` are literal braces.
/// - `{a|b|c}` tries alternatives left to right. The last of several alternatives may be literal text when it is
///   not a known property (`{albumArtist|artist|Unknown}`); a literal may also be quoted anywhere
///   (`{artist|"Various Artists"}`), which is required for text containing "|", ":" or braces.
/// - `{name:0N}` zero-pads an integer to width N; `{name:.Nf}` renders a number with N decimals. The spec applies to
///   whichever alternative is used; text values ignore it.
///
/// Security: no item, whatever its values, can make the rendered path absolute or leave the export root.
/// Literal template text is validated when parsing; substituted values are sanitised when rendering; and the
/// final path is normalised component by component.
public struct NameTemplate: Sendable, Equatable {
    /// The template exactly as written.
    public let text: String
    /// The parsed form, kept so that rendering many items does not re-parse.
    let segments: [TemplateSegment]

    /// Parses the template. `knownProperties` says which names are properties: it tells property names from a
    /// trailing literal fallback and lets unknown names be rejected with a did-you-mean suggestion. An entry ending
    /// in ".*" names a namespace: "exif.*" admits "exif.Make", "exif.DateTimeOriginal" and so on.
    /// Rejects: unbalanced braces (use "{{" and "}}" for literal braces), empty placeholders, unknown property names
    /// (when knownProperties is non-empty) with the nearest one as suggestion (see ``nearest(_:in:)``: a
    /// case-insensitive match, or Levenshtein ≤ max(2, length / 3)), bad format specs, and literal text that would
    /// escape or be absolute: a leading "/", a ".." component, "\", NUL or another control character.
    ///
    /// With an empty `knownProperties` every identifier-like alternative (`[A-Za-z_][A-Za-z0-9_.-]*`) is taken as
    /// a property, so literal fallbacks must be quoted. A trailing unquoted fallback that differs from a known
    /// property only in case (`{artist|Title}`) is rejected as a likely typo; quote it to mean the literal word.
    ///
    /// - Throws: ``TemplateError`` with the character offset of the problem.
    public init(_ text: String, knownProperties: Set<String>) throws {
        var parser = TemplateParser(text: text, knownProperties: knownProperties)
        self.segments = try parser.parse()
        self.text = text
    }

    /// Property names the template refers to (in order, without duplicates).
    public var properties: [String] {
        var seen = Set<String>()
        var names: [String] = []
        for case .placeholder(let placeholder) in segments {
            for case .property(let name) in placeholder.alternatives where seen.insert(name).inserted {
                names.append(name)
            }
        }
        return names
    }

    /// Renders with the item's values. `lookup` returns nil when the item lacks the property (or it is empty).
    /// Returns a relative path: "/"-separated components, no empty components (they collapse: "{relpath}/x.jpg" with
    /// relpath "" gives "x.jpg"), no "." or ".." components, every component ≤ 255 bytes of UTF-8 (truncate at a
    /// character boundary keeping the extension of the last component when possible).
    /// Throws TemplateError when a placeholder has no value and no fallback, or when the result is empty.
    ///
    /// A `.text` value that sanitises to nothing (e.g. only control characters or spaces) counts as missing, so
    /// the next alternative is tried. A `.path` value is always present, even when empty.
    public func render(_ lookup: (String) -> TemplateValue?) throws -> String {
        let rendered = try joined { try $0.render(lookup) }
        let path = TemplatePathRules.normalise(rendered)
        guard !path.isEmpty else {
            throw TemplateError(message: "the template rendered an empty path for this item", offset: 0)
        }
        return path
    }
}

extension NameTemplate {
    /// The literal segments and each placeholder's text, in order.
    func joined(_ placeholder: (TemplatePlaceholder) throws -> String) rethrows -> String {
        var rendered = ""
        for segment in segments {
            switch segment {
            case .literal(let literal): rendered += literal
            case .placeholder(let field): rendered += try placeholder(field)
            }
        }
        return rendered
    }
}

extension TemplatePlaceholder {
    /// The sanitised text of the first alternative that has a value.
    func render(_ lookup: (String) -> TemplateValue?) throws -> String {
        try firstValue(lookup, path: TemplatePathRules.sanitisePath) { text in
            let sanitised = TemplatePathRules.sanitiseComponent(text)
            return sanitised.isEmpty ? nil : sanitised
        }
    }

    /// The first alternative with a value: a literal as written, a `.path` value shaped by `path`,
    /// any other value formatted and passed to `text`, which returns nil to try the next.
    func firstValue(_ lookup: (String) -> TemplateValue?, path: (String) -> String,
                    text: (String) -> String?) throws -> String {
        for alternative in alternatives {
            switch alternative {
            case .literal(let literal):
                return literal
            case .property(let name):
                guard let value = lookup(name) else { continue }
                if case .path(let folder) = value { return path(folder) }
                if let shaped = text(Self.format(value, with: format)) { return shaped }
            }
        }
        throw missingValueError()
    }

    func missingValueError() -> TemplateError {
        let names = alternatives.compactMap { alternative -> String? in
            if case .property(let name) = alternative { return name }
            return nil
        }
        let example = names.first.map { "{\($0)|\"Unknown\"}" } ?? "{name|\"Unknown\"}"
        let subject = names.count == 1
            ? "the item has no value for '\(names[0])'"
            : "the item has no value for any of " + names.map { "'\($0)'" }.joined(separator: ", ")
        return TemplateError(message: "\(subject); add a literal fallback such as \(example)", offset: offset)
    }

    /// Formats a non-path value according to the spec, before sanitising.
    static func format(_ value: TemplateValue, with format: TemplateFormat?) -> String {
        switch (value, format) {
        case (_, .date(let fields)?):
            // Not a date: "" counts as missing, so the next alternative is tried.
            return TemplateDate(parsing: Self.format(value, with: nil))?.formatted(fields) ?? ""
        case (.text(let text), _), (.path(let text), _):
            return text
        case (.integer(let integer), .zeroPad(let width)?):
            return zeroPadded(integer, width: width)
        case (.integer(let integer), .fixed(let decimals)?):
            return fixed(Double(integer), decimals: decimals)
        case (.integer(let integer), nil):
            return String(integer)
        case (.number(let number), .zeroPad(let width)?):
            // A whole number stored as a Double (common in tag data) pads like an integer.
            if let integer = wholeNumber(number) { return zeroPadded(integer, width: width) }
            return plain(number)
        case (.number(let number), .fixed(let decimals)?):
            return fixed(number, decimals: decimals)
        case (.number(let number), nil):
            return plain(number)
        }
    }

    /// printf `%0Nd` semantics: the sign counts towards the width.
    static func zeroPadded(_ integer: Int, width: Int) -> String {
        let digits = String(integer.magnitude)
        let sign = integer < 0 ? "-" : ""
        let zeros = String(repeating: "0", count: max(0, width - sign.count - digits.count))
        return sign + zeros + digits
    }

    static func fixed(_ number: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", number)
    }

    /// Whole numbers without a trailing ".0" (a file named "Take 3.0" surprises people); others in Swift's
    /// shortest round-tripping form.
    static func plain(_ number: Double) -> String {
        if let integer = wholeNumber(number) { return String(integer) }
        return String(describing: number)
    }

    /// `number` as an Int when it is whole and small enough to be printed exactly.
    static func wholeNumber(_ number: Double) -> Int? {
        guard number.isFinite, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int(number)
    }
}
