import MedleyFilters
// Parses template text into segments, validating every piece of literal text.
//
// The parser walks Unicode scalars rather than Characters: a "/" followed by a combining mark is one Character
// but still a "/" byte on disk, and scanning Characters would let it slip past the ".." and separator checks.

/// Turns template text into ``TemplateSegment``s or throws a ``TemplateError`` pointing at the problem.
struct TemplateParser {
    /// Largest accepted `:0N` width; wider padding is certainly a typo and would waste filename bytes.
    static let maximumPadWidth = 64
    /// Largest accepted `:.Nf` precision; a Double has no more meaningful digits than this.
    static let maximumDecimals = 15

    private let text: String
    private let scalars: [Unicode.Scalar]
    private let knownProperties: Set<String>
    private var position = 0
    private var segments: [TemplateSegment] = []
    private var pendingLiteral = String.UnicodeScalarView()

    // The path component being scanned, to reject a literal ".." component. A component that contains a
    // placeholder is not checked here: its content is only known at render time, where it is checked again.
    private var componentText = String.UnicodeScalarView()
    private var componentStart = 0
    private var componentHasPlaceholder = false

    init(text: String, knownProperties: Set<String>) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
        self.knownProperties = knownProperties
    }

    /// Parses the whole template.
    mutating func parse() throws -> [TemplateSegment] {
        if scalars.first == "/" {
            throw error("a template must be a relative path; remove the leading '/'", at: 0)
        }
        while position < scalars.count {
            let scalar = scalars[position]
            switch scalar {
            case "{" where peek(1) == "{":
                try appendLiteral("{", at: position)
                position += 2
            case "{":
                flushLiteral()
                segments.append(.placeholder(try parsePlaceholder()))
                componentHasPlaceholder = true
            case "}" where peek(1) == "}":
                try appendLiteral("}", at: position)
                position += 2
            case "}":
                throw error("unmatched '}'; write '}}' for a literal brace", at: position)
            default:
                try appendLiteral(scalar, at: position)
                position += 1
            }
        }
        flushLiteral()
        try closeComponent()
        return segments
    }

    // MARK: Literal text

    private mutating func appendLiteral(_ scalar: Unicode.Scalar, at offset: Int) throws {
        try validateLiteralScalar(scalar, at: offset)
        if scalar == "/" {
            try closeComponent()
            componentText = String.UnicodeScalarView()
            componentStart = offset + 1
            componentHasPlaceholder = false
        } else {
            componentText.append(scalar)
        }
        pendingLiteral.append(scalar)
    }

    private mutating func flushLiteral() {
        guard !pendingLiteral.isEmpty else { return }
        segments.append(.literal(String(pendingLiteral)))
        pendingLiteral = String.UnicodeScalarView()
    }

    private func closeComponent() throws {
        if !componentHasPlaceholder && TemplatePathRules.isParentComponent(String(componentText)) {
            throw error("'..' would leave the export folder", at: componentStart)
        }
    }

    /// Rejects characters that must never come from template text: "\" (a separator on other systems and a
    /// classic traversal trick) and control characters (NUL truncates C paths; newlines break logs and shells).
    private func validateLiteralScalar(_ scalar: Unicode.Scalar, at offset: Int) throws {
        if scalar == "\\" {
            throw error("'\\' is not allowed in a template; use '/' to separate folders", at: offset)
        }
        if scalar.value == 0 {
            throw error("a NUL character is not allowed in a template", at: offset)
        }
        if TemplatePathRules.isControl(scalar) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            throw error("control character U+\(padded) is not allowed in a template", at: offset)
        }
    }

    // MARK: Placeholders

    /// The raw text of one alternative before it is classified as a property or a literal.
    private enum AlternativeToken {
        case bare(String)
        case quoted(String)
    }

    private mutating func parsePlaceholder() throws -> TemplatePlaceholder {
        let start = position
        position += 1 // the "{"
        var tokens: [(token: AlternativeToken, offset: Int)] = []
        var format: TemplateFormat?

        alternatives: while true {
            skipWhitespace()
            let tokenStart = position
            guard position < scalars.count else { throw unclosed(start) }

            if scalars[position] == "\"" {
                tokens.append((.quoted(try readQuoted(placeholderStart: start)), tokenStart))
                skipWhitespace()
            } else {
                tokens.append((.bare(try readBare(placeholderStart: start)), tokenStart))
            }

            guard position < scalars.count else { throw unclosed(start) }
            switch scalars[position] {
            case "|":
                position += 1
            case ":":
                position += 1
                format = try readFormat(placeholderStart: start)
                break alternatives
            case "}":
                position += 1
                break alternatives
            default:
                throw error("unexpected text after a quoted literal; separate alternatives with '|'", at: position)
            }
        }

        if tokens.count == 1, case .bare("") = tokens[0].token {
            throw error("empty placeholder; write a property name such as {title}, or '{{' for a literal brace", at: start)
        }
        let alternatives = try tokens.enumerated().map { index, entry in
            try classify(entry.token, at: entry.offset, isTrailing: index == tokens.count - 1, isOnly: tokens.count == 1)
        }
        return TemplatePlaceholder(alternatives: alternatives, format: format, offset: characterOffset(start))
    }

    /// Reads a `"…"` literal; quotes allow "|", ":" and braces that a bare literal cannot contain.
    private mutating func readQuoted(placeholderStart: Int) throws -> String {
        let openingQuote = position
        position += 1
        var literal = String.UnicodeScalarView()
        while position < scalars.count, scalars[position] != "\"" {
            try validateLiteralScalar(scalars[position], at: position)
            literal.append(scalars[position])
            position += 1
        }
        guard position < scalars.count else {
            throw error("unterminated quoted literal; add the closing '\"'", at: openingQuote)
        }
        position += 1 // the closing quote
        try validateFallbackComponents(literal, startingAt: openingQuote + 1)
        return String(literal)
    }

    /// Reads a property name or an unquoted literal, up to the next "|", ":" or "}", trimming surrounding spaces.
    private mutating func readBare(placeholderStart: Int) throws -> String {
        var token = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == "|" || scalar == ":" || scalar == "}" { break }
            if scalar == "{" {
                throw error("unclosed '{' (another '{' comes before its '}')", at: placeholderStart)
            }
            if scalar == "\"" {
                throw error("a quoted literal must be a whole alternative, like {artist|\"Various Artists\"}", at: position)
            }
            token.append(scalar)
            position += 1
        }
        // Control characters are left in place so that validation rejects them instead of trimming them away.
        while let last = token.last, last.properties.isWhitespace, !TemplatePathRules.isControl(last) {
            token.removeLast()
        }
        return String(token)
    }

    private mutating func readFormat(placeholderStart: Int) throws -> TemplateFormat {
        let specStart = position
        var spec = ""
        while position < scalars.count, scalars[position] != "}" {
            if scalars[position] == "{" {
                throw error("unclosed '{' (another '{' comes before its '}')", at: placeholderStart)
            }
            spec.unicodeScalars.append(scalars[position])
            position += 1
        }
        guard position < scalars.count else { throw unclosed(placeholderStart) }
        position += 1 // the "}"

        if let format = Self.parseFormat(spec) { return format }
        if spec.contains("|") {
            throw error("the format spec must come after the last alternative, like {albumTrackNumber|trackNumber:02}", at: specStart)
        }
        throw error("bad format spec '\(spec)'; use ':0N' to zero-pad integers (e.g. ':02'), ':.Nf' for fixed decimals (e.g. ':.2f') or a date like ':yyyy' or ':yyyy-MM-dd'", at: specStart)
    }

    /// Parses `0N` or `.Nf`; anything else is rejected so that typos do not silently render unformatted.
    static func parseFormat(_ spec: String) -> TemplateFormat? {
        let isDigits: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        if spec.hasPrefix("0") {
            let widthText = spec.dropFirst()
            guard isDigits(widthText), widthText.count <= 3, let width = Int(widthText),
                  (1...maximumPadWidth).contains(width) else { return nil }
            return .zeroPad(width: width)
        }
        if spec.hasPrefix("."), spec.hasSuffix("f"), spec.count >= 3 {
            let decimalsText = spec.dropFirst().dropLast()
            guard isDigits(decimalsText), decimalsText.count <= 2, let decimals = Int(decimalsText),
                  decimals <= maximumDecimals else { return nil }
            return .fixed(decimals: decimals)
        }
        return parseDateFormat(spec)
    }

    /// `yyyy`, `yy`, `MM`, `dd`, `HH`, `mm`, `ss` joined by `-`, `.`, `:`, `_` or spaces; at least one field.
    static func parseDateFormat(_ spec: String) -> TemplateFormat? {
        let tokens: [(String, TemplateDateField)] = [("yyyy", .year), ("yy", .shortYear), ("MM", .month), ("dd", .day),
                                                     ("HH", .hour), ("mm", .minute), ("ss", .second)]
        var rest = Substring(spec), fields: [TemplateDateField] = []
        while let first = rest.first {
            if let (text, field) = tokens.first(where: { rest.hasPrefix($0.0) }) {
                fields.append(field)
                rest = rest.dropFirst(text.count)
            } else if "-.:_ ".contains(first) {
                fields.append(.literal(first))
                rest = rest.dropFirst()
            } else {
                return nil
            }
        }
        guard fields.count <= 32, fields.contains(where: { if case .literal = $0 { return false } else { return true } }) else { return nil }
        return .date(fields)
    }

    /// Decides whether an alternative names a property or is literal fallback text.
    private func classify(_ token: AlternativeToken, at offset: Int, isTrailing: Bool, isOnly: Bool) throws -> TemplateAlternative {
        switch token {
        case .quoted(let literal):
            return .literal(literal)
        case .bare(let name):
            if name.isEmpty {
                throw error("empty alternative between '|' separators", at: offset)
            }
            // Without a property list every plausible name is trusted as a property; literals must be quoted.
            if knownProperties.isEmpty {
                if Self.looksLikePropertyName(name) { return .property(name) }
            } else if isKnownProperty(name) {
                return .property(name)
            }

            // Only the last of several alternatives may be an unquoted literal, as in {albumArtist|artist|Unknown}.
            if isTrailing && !isOnly {
                if let property = knownProperties.first(where: { $0.lowercased() == name.lowercased() }) {
                    // {artist|Title} is far more likely a wrong capitalisation than the literal word.
                    throw error("'\(name)' is not a property; write '\(property)', or quote it (\"\(name)\") to use it as literal text",
                                at: offset, suggestion: property)
                }
                try validateFallbackComponents(name.unicodeScalars, startingAt: offset)
                for (index, scalar) in name.unicodeScalars.enumerated() {
                    try validateLiteralScalar(scalar, at: offset + index)
                }
                return .literal(name)
            }
            if knownProperties.isEmpty {
                throw error("'\(name)' is not a valid property name; quote literal text, like {artist|\"\(name)\"}", at: offset)
            }
            throw error("unknown property '\(name)'", at: offset,
                        suggestion: nearest(name, in: knownProperties.filter { !$0.hasSuffix(".*") }))
        }
    }

    /// A listed name, or a name inside a listed namespace: "exif.*" admits "exif.Make".
    private func isKnownProperty(_ name: String) -> Bool {
        if knownProperties.contains(name) { return true }
        guard let dot = name.firstIndex(of: "."), name.index(after: dot) < name.endIndex else { return false }
        return knownProperties.contains(String(name[...dot]) + "*")
    }

    /// A fallback literal may contain "/" (it is template text) but none of its own components may be "..".
    private func validateFallbackComponents(_ literal: String.UnicodeScalarView, startingAt offset: Int) throws {
        var componentOffset = offset
        for component in literal.split(separator: "/", omittingEmptySubsequences: false) {
            if TemplatePathRules.isParentComponent(String(String.UnicodeScalarView(component))) {
                throw error("'..' would leave the export folder", at: componentOffset)
            }
            componentOffset += component.count + 1
        }
    }

    /// Property names are ASCII identifiers, optionally dotted or dashed (e.g. `exif.Make`).
    static func looksLikePropertyName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first,
              first.isASCII, first.properties.isAlphabetic || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "." || scalar == "-")
        }
    }

    // MARK: Helpers

    private func peek(_ distance: Int) -> Unicode.Scalar? {
        position + distance < scalars.count ? scalars[position + distance] : nil
    }

    private mutating func skipWhitespace() {
        while position < scalars.count, scalars[position].properties.isWhitespace,
              !TemplatePathRules.isControl(scalars[position]) {
            position += 1
        }
    }

    private func unclosed(_ start: Int) -> TemplateError {
        error("unclosed '{'; add a '}' (or write '{{' for a literal brace)", at: start)
    }

    /// Builds an error, converting the scalar offset the parser works in to the character offset users see.
    private func error(_ message: String, at scalarOffset: Int, suggestion: String? = nil) -> TemplateError {
        TemplateError(message: message, offset: characterOffset(scalarOffset), suggestion: suggestion)
    }

    /// The index of the Character that contains the scalar at `scalarOffset`.
    private func characterOffset(_ scalarOffset: Int) -> Int {
        var scalarsSeen = 0
        var characters = 0
        for character in text {
            let width = character.unicodeScalars.count
            if scalarsSeen + width > scalarOffset { return characters }
            scalarsSeen += width
            characters += 1
        }
        return characters
    }
}
