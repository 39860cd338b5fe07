/// A shell-style pattern over relative paths, matched case-insensitively (photo folders are full of IMG_0001.JPG).
/// `*` any run of characters within one path component, `?` one character, `[abc]`/`[a-z]`/`[!a]` a class,
/// `**` as a whole component: zero or more components. A pattern without "/" is matched against the file name only
/// ("*.jpg" matches "a/b/c.JPG"); a pattern with "/" against the whole relative path ("**/thumbs/**" matches
/// "thumbs/x.jpg" and "a/thumbs/b/x.jpg", not "thumbsup/x.jpg").
///
/// A backslash makes the next character literal ("\*" matches a "*"). `[^a]` is accepted as a synonym of `[!a]`.
/// A leading "/" anchors nothing extra (patterns with "/" already match from the root) and is ignored.
public struct Glob: Sendable, Equatable {
    /// The pattern exactly as written.
    public let pattern: String
    /// The pattern split at "/", already lower-cased.
    let segments: [Segment]
    /// True when the pattern contains "/" and so is matched against the whole relative path.
    let matchesWholePath: Bool

    /// Parses `pattern`. Throws `IngestError.badPattern(pattern, reason)` on an unclosed "[", a reversed range,
    /// a trailing backslash, an empty component, or "**" glued to other characters.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        guard !pattern.isEmpty else { throw IngestError.badPattern(pattern, reason: "it is empty") }
        // Case-insensitivity is done by lower-casing both sides, once, rather than comparing case-folded
        // characters one at a time.
        var body = Substring(pattern.lowercased())
        matchesWholePath = body.contains("/")
        if body.hasPrefix("/") { body = body.dropFirst() }
        segments = try body.split(separator: "/", omittingEmptySubsequences: false).map { component in
            try Segment(parsing: component, in: pattern)
        }
    }

    /// Whether the "/"-separated `relativePath` matches (ignoring case).
    public func matches(_ relativePath: String) -> Bool {
        matches(Subject(relativePath))
    }

    /// Whether a string contains glob metacharacters (* ? [) — used to tell a glob from a plain path in `from:`.
    public static func isPattern(_ text: String) -> Bool {
        text.contains { $0 == "*" || $0 == "?" || $0 == "[" }
    }

    // MARK: - Matching prepared paths

    /// A relative path prepared once for matching against several globs: lower-cased and split into components.
    struct Subject {
        let components: [[Character]]

        init(_ relativePath: String) {
            components = relativePath.lowercased()
                .split(separator: "/", omittingEmptySubsequences: true)
                .map(Array.init)
        }

        init(components: [[Character]]) {
            self.components = components
        }
    }

    /// Matches a prepared path: the file name only, or the whole path if the pattern contains "/".
    func matches(_ subject: Subject) -> Bool {
        if matchesWholePath { return Self.match(segments[...], subject.components[...]) }
        guard let name = subject.components.last else { return false }
        return Self.match(segments[...], [name][...])
    }

    /// Matches the whole prepared path even if the pattern has no "/" (used for the pattern part of a glob root,
    /// where "*.jpg" means "directly in the root", not "anywhere").
    func matchesWholePath(_ subject: Subject) -> Bool {
        Self.match(segments[...], subject.components[...])
    }

    /// Whether some file below the folder `directory` (a prepared relative path) could still match the whole-path
    /// pattern — false lets enumeration skip the folder without listing it.
    func mayMatchBelow(_ directory: Subject) -> Bool {
        for (index, component) in directory.components.enumerated() {
            guard index < segments.count else { return false }   // the pattern is shorter than this path
            guard case .component(let tokens) = segments[index] else { return true }  // "**": anything may follow
            if !Self.match(tokens, component) { return false }
        }
        return directory.components.count < segments.count      // room left for at least a file name
    }

    /// Whether this whole-path pattern matches every file below `directory` — true for "a/**" or "**/thumbs/**"
    /// at "x/thumbs" — so an exclude can skip the folder without listing it.
    func matchesEverythingBelow(_ directory: Subject) -> Bool {
        guard matchesWholePath, let last = segments.last, last == .globstar else { return false }
        return Self.match(segments.dropLast(), directory.components[...])
    }

    // MARK: - Pattern model

    /// One "/"-separated part of the pattern.
    enum Segment: Equatable, Sendable {
        /// "**": zero or more whole path components.
        case globstar
        /// Anything else: matched against exactly one path component.
        case component([Token])

        init(parsing text: Substring, in pattern: String) throws {
            if text == "**" { self = .globstar; return }
            guard !text.isEmpty else {
                throw IngestError.badPattern(pattern, reason: "it has an empty path component (\"//\" or a trailing \"/\")")
            }
            let characters = Array(text)
            var tokens: [Token] = []
            var index = 0
            while index < characters.count {
                let character = characters[index]
                switch character {
                case "*":
                    if tokens.last == .anyRun {
                        throw IngestError.badPattern(pattern, reason: "\"**\" must be a whole path component, as in \"**/*.jpg\"")
                    }
                    tokens.append(.anyRun)
                    index += 1
                case "?":
                    tokens.append(.anyOne)
                    index += 1
                case "[":
                    let (characterClass, end) = try CharacterClass.parse(characters, openingAt: index, in: pattern)
                    tokens.append(.oneOf(characterClass))
                    index = end
                case "\\":
                    guard index + 1 < characters.count else {
                        throw IngestError.badPattern(pattern, reason: "it ends a component with a lone \"\\\"")
                    }
                    tokens.append(.literal(characters[index + 1]))
                    index += 2
                default:
                    tokens.append(.literal(character))
                    index += 1
                }
            }
            self = .component(tokens)
        }
    }

    /// One position inside a component pattern.
    enum Token: Equatable, Sendable {
        case literal(Character)
        case anyOne
        case anyRun
        case oneOf(CharacterClass)

        func accepts(_ character: Character) -> Bool {
            switch self {
            case .literal(let expected): return character == expected
            case .anyOne: return true
            case .anyRun: return true
            case .oneOf(let characterClass): return characterClass.contains(character)
            }
        }
    }

    /// A bracket expression such as `[a-z0-9_]` or `[!.]`.
    struct CharacterClass: Equatable, Sendable {
        let negated: Bool
        let singles: [Character]
        let ranges: [ClosedRange<Character>]

        func contains(_ character: Character) -> Bool {
            let listed = singles.contains(character) || ranges.contains { $0.contains(character) }
            return listed != negated
        }

        /// Parses from the "[" at `start`; returns the class and the index just past its "]".
        static func parse(_ characters: [Character], openingAt start: Int, in pattern: String) throws -> (CharacterClass, Int) {
            var index = start + 1
            var negated = false
            if index < characters.count, characters[index] == "!" || characters[index] == "^" {
                negated = true
                index += 1
            }
            var singles: [Character] = []
            var ranges: [ClosedRange<Character>] = []
            var isFirst = true  // a "]" right after "[" or "[!" is a literal, as in the shell
            while index < characters.count {
                var character = characters[index]
                if character == "]" && !isFirst {
                    return (CharacterClass(negated: negated, singles: singles, ranges: ranges), index + 1)
                }
                isFirst = false
                if character == "\\", index + 1 < characters.count {
                    index += 1
                    character = characters[index]
                }
                if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]" {
                    let upper = characters[index + 2]
                    guard character <= upper else {
                        throw IngestError.badPattern(pattern, reason: "the range \"\(character)-\(upper)\" runs backwards")
                    }
                    ranges.append(character...upper)
                    index += 3
                } else {
                    singles.append(character)
                    index += 1
                }
            }
            throw IngestError.badPattern(
                pattern,
                reason: "a \"[\" is never closed by \"]\" (a class cannot span a \"/\"; write \"\\[\" for a literal bracket)")
        }
    }

    // MARK: - Matching algorithm

    /// Characters of one component against its tokens: "*" is the star.
    static func match(_ tokens: [Token], _ text: [Character]) -> Bool {
        wildcardMatch(tokens[...], text[...], isStar: { $0 == .anyRun }, accepts: { $0.accepts($1) })
    }

    /// The same algorithm one level up: "**" plays the part of "*", components the part of characters.
    static func match(_ segments: ArraySlice<Segment>, _ components: ArraySlice<[Character]>) -> Bool {
        wildcardMatch(segments, components, isStar: { $0 == .globstar }, accepts: { segment, component in
            if case .component(let tokens) = segment { return match(tokens, component) }
            return false
        })
    }

    /// Wildcard matching with a single backtrack point: on a mismatch, let the most recent star swallow one more
    /// element. Linear in practice and never exponential, unlike naive recursion on "*a*a*a*b".
    static func wildcardMatch<P, T>(_ pattern: ArraySlice<P>, _ text: ArraySlice<T>, isStar: (P) -> Bool,
                                    accepts: (P, T) -> Bool) -> Bool {
        let pattern = Array(pattern), text = Array(text)
        var patternIndex = 0, textIndex = 0
        var starPattern = -1, starText = 0
        while textIndex < text.count {
            if patternIndex < pattern.count, isStar(pattern[patternIndex]) {
                starPattern = patternIndex
                starText = textIndex
                patternIndex += 1
            } else if patternIndex < pattern.count, accepts(pattern[patternIndex], text[textIndex]) {
                patternIndex += 1
                textIndex += 1
            } else if starPattern >= 0 {
                patternIndex = starPattern + 1
                starText += 1
                textIndex = starText
            } else {
                return false
            }
        }
        while patternIndex < pattern.count, isStar(pattern[patternIndex]) { patternIndex += 1 }
        return patternIndex == pattern.count
    }
}
