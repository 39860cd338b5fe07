import Foundation
/// A place in a YAML file, 1-based, as a person counts lines and columns.
public struct SourceMark: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public var description: String { "\(line):\(column)" }
}

/// A YAML node that remembers where it was written, so every validation message can point
/// at FILE:LINE:COL.
public indirect enum YAMLNode: Sendable, Equatable {
    /// A scalar. `plain` is false for quoted and block scalars: `"1"` is the text "1",
    /// while plain `1` may be read as a number.
    case scalar(String, plain: Bool, mark: SourceMark)
    case sequence([YAMLNode], mark: SourceMark)
    /// Key/value pairs in file order (duplicates kept, so a validator can report them).
    case mapping([(key: YAMLNode, value: YAMLNode)], mark: SourceMark)

    public var mark: SourceMark {
        switch self {
        case .scalar(_, _, let mark), .sequence(_, let mark), .mapping(_, let mark): return mark
        }
    }

    /// The text of a scalar; nil for collections.
    public var scalarText: String? {
        if case .scalar(let text, _, _) = self { return text }
        return nil
    }

    /// Whether this is a plain `~`, `null` or empty scalar.
    public var isNull: Bool {
        if case .scalar(let text, true, _) = self { return ["", "~", "null", "Null", "NULL"].contains(text) }
        return false
    }

    /// The node as one line of text without source positions: two nodes that say the same
    /// thing in the same order give the same text (hashed to notice changed job settings).
    public var canonicalText: String {
        switch self {
        case .scalar(let text, let plain, _):
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return (plain ? "" : "'") + "\"" + escaped + "\""
        case .sequence(let items, _):
            return "[" + items.map(\.canonicalText).joined(separator: ",") + "]"
        case .mapping(let pairs, _):
            return "{" + pairs.map { $0.key.canonicalText + ":" + $0.value.canonicalText }.joined(separator: ",") + "}"
        }
    }

    /// A word for error messages: "a mapping", "a list", "the text 'x'".
    public var kindDescription: String {
        switch self {
        case .scalar(let text, _, _): return isNull ? "nothing" : "'\(text)'"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    public static func == (lhs: YAMLNode, rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case let (.scalar(a, pa, ma), .scalar(b, pb, mb)): return a == b && pa == pb && ma == mb
        case let (.sequence(a, ma), .sequence(b, mb)): return a == b && ma == mb
        case let (.mapping(a, ma), .mapping(b, mb)):
            return ma == mb && a.count == b.count
                && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}

/// A YAML syntax error, with the place libyaml found it.
public struct YAMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let mark: SourceMark
    /// How to fix it, when there is more to say than the message.
    public let suggestion: String?
    public init(message: String, mark: SourceMark, suggestion: String? = nil) {
        self.message = message
        self.mark = mark
        self.suggestion = suggestion
    }
    public var description: String { "\(mark): \(message)" + (suggestion.map { "; \($0)" } ?? "") }
}
