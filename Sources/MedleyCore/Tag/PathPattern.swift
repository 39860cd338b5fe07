import Foundation
import MedleyFilters

/// A `from_path:` pattern (docs/pipelines.md, "tag") such as `"{artist}/{albumTitle}/{albumTrackNumber} {title}"`: literal
/// text and `{property}` fields that read tag values out of an item's relative path.
///
/// Matching:
/// - The path is taken without its extension; the pattern's components are matched against the path's
///   rightmost components (a pattern of three components ignores the folders above them). A path with
///   fewer components does not match.
/// - Literal text must match exactly (by Unicode canonical equivalence, case-sensitively); `{{` and `}}`
///   are literal braces. A field never spans "/" and never matches empty text.
/// - Fields are lazy: each takes the shortest text that lets the rest of its component match, so the first
///   separator wins ("{artist} - {title}" on "A - B - C" gives "A" and "B - C") and the last field of a
///   component takes the rest ("{albumTrackNumber} {title}" on "03 Let It Be" gives 3 and "Let It Be").
/// - A field of an integer, boolean or date property only takes text that reads as that kind ("03" → 3);
///   otherwise a longer text is tried, and the path fails to match if none reads.
public struct PathPattern: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case literal([Character])
        case field(String, ItemProperties.Kind)
    }

    /// The pattern as written.
    public let text: String
    /// One list of pieces per path component; fields and literals alternate within a component.
    let components: [[Piece]]

    /// Property names the pattern sets, in order.
    public var properties: [String] {
        components.flatMap { $0.compactMap { piece in
            if case .field(let name, _) = piece { return name }
            return nil
        } }
    }

    /// Parses a pattern whose fields must be among `settable` (property names). Throws ``TemplateError``
    /// with the character offset of the problem.
    public init(_ text: String, settable: [String]) throws {
        self.text = text
        var components: [[Piece]] = []
        var pieces: [Piece] = []
        var literal: [Character] = []
        var componentStart = 0
        var seen = Set<String>()
        let characters = Array(text)
        var index = 0

        func closeComponent(at offset: Int) throws {
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = []
            guard !pieces.isEmpty else {
                throw TemplateError(message: "from_path has an empty component (a leading, trailing or doubled '/')",
                                    offset: offset)
            }
            components.append(pieces)
            pieces = []
        }

        while index < characters.count {
            let character = characters[index]
            switch character {
            case "{" where index + 1 < characters.count && characters[index + 1] == "{",
                 "}" where index + 1 < characters.count && characters[index + 1] == "}":
                literal.append(character)
                index += 2
            case "{":
                guard let close = characters[index...].firstIndex(of: "}") else {
                    throw TemplateError(message: "unclosed '{'; add a '}' (or write '{{' for a literal brace)", offset: index)
                }
                let name = String(characters[(index + 1)..<close]).trimmingCharacters(in: .whitespaces)
                if name.isEmpty { throw TemplateError(message: "empty field '{}'", offset: index) }
                if name.contains(where: { "{|:\"".contains($0) }) {
                    throw TemplateError(message: "from_path fields are plain property names like {title}, without '|', ':' or quotes",
                                        offset: index)
                }
                guard let kind = ItemProperties.kind(of: name), settable.contains(name) else {
                    if ItemProperties.kind(of: name) != nil {
                        throw TemplateError(message: "'\(name)' is read from the file and cannot be set from the path; settable: \(settable.joined(separator: ", "))",
                                            offset: index + 1)
                    }
                    throw TemplateError(message: "unknown property '\(name)'", offset: index + 1,
                                        suggestion: nearest(name, in: settable))
                }
                guard seen.insert(name).inserted else {
                    throw TemplateError(message: "'{\(name)}' appears twice in from_path", offset: index)
                }
                if !literal.isEmpty {
                    pieces.append(.literal(literal))
                    literal = []
                } else if case .field(let previous, _)? = pieces.last {
                    throw TemplateError(message: "{\(previous)} and {\(name)} need literal text between them to tell where one ends",
                                        offset: index)
                }
                pieces.append(.field(name, kind))
                index = close + 1
            case "}":
                throw TemplateError(message: "unmatched '}'; write '}}' for a literal brace", offset: index)
            case "/":
                try closeComponent(at: componentStart)
                index += 1
                componentStart = index
            default:
                literal.append(character)
                index += 1
            }
        }
        try closeComponent(at: componentStart)
        guard components.contains(where: { $0.contains { if case .field = $0 { return true } else { return false } } }) else {
            throw TemplateError(message: "from_path has no {fields}; write one like \"{artist}/{title}\"", offset: 0)
        }
        self.components = components
    }

    /// The values the pattern reads from `relativePath` (relative to the ingest root, with or without its
    /// extension: the last component's extension is dropped), or nil when the path does not fit.
    public func match(_ relativePath: String) -> [(name: String, value: TemplateValue)]? {
        var parts = Self.componentsWithoutExtension(relativePath)
        guard parts.count >= components.count else { return nil }
        parts.removeFirst(parts.count - components.count)
        var found: [(name: String, value: TemplateValue)] = []
        for (pieces, part) in zip(components, parts) {
            guard let values = Self.match(pieces[...], Array(part)[...]) else { return nil }
            found += values
        }
        return found
    }

    /// "a/b/03 Song.flac" → ["a", "b", "03 Song"]; split on the "/" byte, as the filesystem does.
    static func componentsWithoutExtension(_ path: String) -> [String] {
        var parts = path.unicodeScalars.split(separator: "/").map { String(String.UnicodeScalarView($0)) }
        if let last = parts.last {
            parts[parts.count - 1] = ItemProperties.split(fileName: last).stem
        }
        return parts
    }

    /// Backtracking match of one component, fields lazy. A (piece, position) that failed once fails
    /// again, so it is remembered: without that, a name with many separators ("a - a - a - …") makes
    /// the search try every way of cutting it, exponential in the number of fields.
    private static func match(_ pieces: ArraySlice<Piece>, _ text: ArraySlice<Character>) -> [(name: String, value: TemplateValue)]? {
        let pieces = Array(pieces), text = Array(text)
        var failed = Set<Int>()
        func match(_ piece: Int, _ position: Int) -> [(name: String, value: TemplateValue)]? {
            guard piece < pieces.count else { return position == text.count ? [] : nil }
            let key = piece * (text.count + 1) + position
            if failed.contains(key) { return nil }
            switch pieces[piece] {
            case .literal(let literal):
                if text[position...].starts(with: literal), let more = match(piece + 1, position + literal.count) {
                    return more
                }
            case .field(let name, let kind):
                let remaining = text.count - position
                if remaining > 0 {
                    let lengths = piece + 1 == pieces.count ? remaining...remaining : 1...remaining
                    for length in lengths {
                        guard let value = TagStage.value(String(text[position..<position + length]), kind: kind, lenient: false)
                        else { continue }
                        if let more = match(piece + 1, position + length) { return [(name, value)] + more }
                    }
                }
            }
            failed.insert(key)
            return nil
        }
        return match(0, 0)
    }
}
