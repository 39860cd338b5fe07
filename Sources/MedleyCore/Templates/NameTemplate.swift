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


// The rules that keep a rendered path inside the export root. Everything works on Unicode scalars or UTF-8
// bytes, never on Characters: the filesystem sees bytes, and a "/" with a combining mark after it is a single
// Character that `split(separator: "/")` over Characters would not split, yet it is still a separator on disk.

/// Sanitises substituted values and normalises rendered paths.
enum TemplatePathRules {
    /// Longest path component most filesystems accept (ext4, APFS, NTFS all cap names near 255 bytes).
    static let maximumComponentBytes = 255
    /// Longest suffix (dot included) still treated as a file extension worth keeping when truncating; longer
    /// "extensions" are usually a sentence with a full stop in it, like "Vol. 2 Live at …".
    static let maximumExtensionBytes = 17

    /// Whether `scalar` is a C0 control character or DEL, which never belong in a file name.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// Whether `component` is exactly "." (compared by bytes, so look-alikes are not confused with it).
    static func isCurrentComponent(_ component: String) -> Bool {
        component.utf8.elementsEqual([0x2E])
    }

    /// Whether `component` is exactly "..", the only component that can climb out of a folder.
    static func isParentComponent(_ component: String) -> Bool {
        component.utf8.elementsEqual([0x2E, 0x2E])
    }

    /// Makes a substituted value safe as (part of) one path component.
    ///
    /// Removes control characters, turns "/" and "\" into "_", trims surrounding whitespace, and replaces a
    /// value that is exactly "." or ".." with "_". The result may be empty, which callers treat as "no value".
    static func sanitiseComponent(_ value: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where !isControl(scalar) {
            scalars.append(scalar == "/" || scalar == "\\" ? "_" : scalar)
        }
        let trimmed = String(scalars).trimmingCharacters(in: .whitespacesAndNewlines)
        if isCurrentComponent(trimmed) || isParentComponent(trimmed) { return "_" }
        return trimmed
    }

    /// Makes a `.path` value safe, keeping its "/" separators: each component is sanitised, empty components
    /// are dropped, and "." or ".." components become "_".
    static func sanitisePath(_ value: String) -> String {
        value.unicodeScalars
            .split(separator: "/", omittingEmptySubsequences: true)
            .map { sanitiseComponent(String(String.UnicodeScalarView($0))) }
            .filter { !$0.isEmpty }
            .joined(separator: "/")
    }

    /// Turns the concatenated render output into the final relative path.
    ///
    /// This is the last line of defence and holds whatever the template and values were: it splits on every
    /// "/" scalar, drops empty and "." components (they mean "this folder"), replaces ".." with "_", keeps
    /// every "/" a character of its own (see ``mergesWithSeparators``), and truncates each component to
    /// ``maximumComponentBytes``, keeping the last component's extension.
    static func normalise(_ rendered: String) -> String {
        let rawComponents = rendered.unicodeScalars
            .split(separator: "/", omittingEmptySubsequences: true)
            .map { String(String.UnicodeScalarView($0)) }
            .filter { !isCurrentComponent($0) }
        return rawComponents.enumerated().map { index, component in
            let isLast = index == rawComponents.count - 1
            let merges = mergesWithSeparators(component, followed: !isLast)
            let room = maximumComponentBytes - (merges.front ? 1 : 0) - (merges.back ? 1 : 0)
            var truncated = truncate(component, keepingExtension: isLast, limit: room)
            if merges.front { truncated = "_" + truncated }
            if merges.back { truncated += "_" }
            // Truncation cannot realistically produce "." or "..", but re-checking costs nothing.
            return isParentComponent(truncated) || isCurrentComponent(truncated) ? "_" : truncated
        }
        .joined(separator: "/")
    }

    /// Whether the "/" before a component (and, when `followed`, the one after it) would join it in one
    /// Character: a leading combining mark ("\u{0338}.." shows as "/̸..") or a trailing prepend mark. On
    /// disk the "/" still separates, but a path shown or compared as Characters reads wrong — Swift's
    /// `hasPrefix(root + "/")` is false for it. Such a component gets "_" on that side.
    static func mergesWithSeparators(_ component: String, followed: Bool) -> (front: Bool, back: Bool) {
        guard !component.isEmpty else { return (false, false) }
        return (("/" + component).first != "/", followed && (component + "/").last != "/")
    }

    /// Shortens `component` to at most `limit` UTF-8 bytes at a Character boundary, keeping a short extension
    /// (".m4a") on the end when `keepingExtension` is set and there is room for some of the name before it.
    static func truncate(_ component: String, keepingExtension: Bool, limit: Int = maximumComponentBytes) -> String {
        guard component.utf8.count > limit else { return component }
        if keepingExtension, let dot = component.lastIndex(of: "."), dot != component.startIndex {
            let fileExtension = component[dot...]
            let extensionBytes = fileExtension.utf8.count
            if extensionBytes >= 2, extensionBytes <= maximumExtensionBytes,
               !fileExtension.contains(where: { $0.isWhitespace }) {
                let stem = prefix(component[..<dot], maximumBytes: limit - extensionBytes)
                if !stem.isEmpty { return stem + fileExtension }
            }
        }
        return prefix(component[...], maximumBytes: limit)
    }

    /// The longest prefix of `text` that fits in `maximumBytes` of UTF-8, cut between Characters so that an
    /// emoji sequence or an accented letter is never split. If even the first Character is too long (a
    /// pathological stack of combining marks) the cut falls between scalars instead, which is still valid UTF-8.
    static func prefix(_ text: Substring, maximumBytes: Int) -> String {
        var bytes = 0
        var end = text.startIndex
        for character in text {
            let width = character.utf8.count
            if bytes + width > maximumBytes { break }
            bytes += width
            end = text.index(after: end)
        }
        if end != text.startIndex { return String(text[..<end]) }

        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in text.unicodeScalars {
            let width = String(scalar).utf8.count
            if bytes + width > maximumBytes { break }
            bytes += width
            scalars.append(scalar)
        }
        return String(scalars)
    }
}


extension NameTemplate {
    /// Renders as a tag value rather than a path: the same placeholders, fallbacks and format specs, but
    /// values are kept as they are ("AC/DC" stays "AC/DC") and no path rules apply. Blank text counts as
    /// missing and a `.path` value is always present, as in ``render(_:)``. The result may be empty (an empty quoted fallback, `{x|""}`).
    ///
    /// - Throws: ``TemplateError`` when a placeholder has no value and no fallback.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        try joined { try $0.renderText(lookup) }
    }
}

extension TemplatePlaceholder {
    /// The formatted text of the first alternative that has a non-blank value.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        try firstValue(lookup, path: { $0 }) { text in text.allSatisfy(\.isWhitespace) ? nil : text }
    }
}

extension NameTemplate {
    /// The value itself, not its text, when the template is one placeholder with no format spec
    /// (`{albumTrackNumber}`, `{artist|albumArtist}`) whose first alternative with a value is a
    /// property: the value `renderText` would format. Nil for anything else (literals, text
    /// around the placeholder, a format spec, a `.path` value, a fallback literal, no value),
    /// which only `renderText` renders.
    func soleValue(_ lookup: (String) -> TemplateValue?) -> TemplateValue? {
        guard segments.count == 1, case .placeholder(let placeholder) = segments[0], placeholder.format == nil else { return nil }
        for alternative in placeholder.alternatives {
            guard case .property(let name) = alternative else { return nil }
            switch lookup(name) {
            case nil: continue
            case .text(let text)? where text.allSatisfy(\.isWhitespace): continue
            case .path?: return nil
            case let value?: return value
            }
        }
        return nil
    }
}


/// A value a property supplies to a template.
///
/// Every case is sanitised before it reaches the path, so a property can never add folders or escape the export
/// root; only ``path(_:)`` keeps its "/" separators, and even then each of its components is sanitised.
public enum TemplateValue: Sendable, Equatable {
    /// Free text such as a title or an artist; "/" and "\" inside it become "_".
    case text(String)
    /// A whole number such as a track number; `{name:0N}` zero-pads it to width N.
    case integer(Int)
    /// A real number such as a duration; `{name:.Nf}` renders it with N decimals.
    case number(Double)
    /// A relative folder path whose "/" separators are kept (e.g. {relpath}); each component is still sanitised.
    ///
    /// Unlike the other cases an empty path is a present value (an item at the root of its source folder), so
    /// `"{relpath}/x.jpg"` renders `"x.jpg"` rather than falling back or failing.
    case path(String)
}

extension TemplateValue {
    /// The value as a person reads it.
    public var text: String {
        switch self {
        case .text(let s), .path(let s): return s
        case .integer(let n): return String(n)
        case .number(let n): return String(n)
        }
    }

    /// The value in JSON.
    public var json: JSONValue {
        switch self {
        case .text(let s), .path(let s): return .string(s)
        case .integer(let n): return .number(Double(n))
        case .number(let n): return .number(n)
        }
    }
}
