import Foundation

/// The `where:` stage (docs/pipelines.md, "where"): conditions on an item's properties, all of which must hold, like an
/// `MPMediaQuery` with `MPMediaPropertyPredicate`s.
///
/// Semantics, by the property's kind (``ItemProperties/kind(of:)``):
/// - text compares case-insensitively (`eq`, `ne`, `in`, `contains`); `matches` is an unanchored
///   regular-expression search, case-insensitive unless the pattern says `(?-i)`.
/// - integers and numbers compare numerically (`3`, `3.0` and the text "3" are equal).
/// - booleans accept true/false, yes/no, on/off, 1/0.
/// - dates are periods (see ``DatePeriod``): `eq: 2024` holds for any instant in 2024, `lt: 2024` before
///   it, `gt: 2024` after it (from 2025), `lte`/`gte` the unions. So for any date exactly one of lt, eq,
///   gt holds. An item's own date counts as its first instant ("1999" is 1999-01-01T00:00:00Z).
/// - missing: a property the item does not have (or has as empty text) fails every predicate, `ne` and
///   `in` included, except `exists: false`, as NULL does in SQL. A value that cannot be read as the
///   property's kind (an integer property holding "abc") is present but fails every comparison.
public struct WhereClause: Sendable {
    /// One condition of a where-map.
    public enum Condition: Sendable {
        /// Every predicate holds for the property (`width: {gte: 100, lt: 200}`).
        case property(String, [WherePredicate])
        /// At least one of the where-maps matches (`any: [...]`).
        case any([WhereClause])
    }

    /// All must hold; an empty list matches every item.
    public let conditions: [Condition]

    public init(_ conditions: [Condition]) {
        self.conditions = conditions
    }

    /// Every property the clause reads, `any:` included.
    public var propertyNames: Set<String> {
        conditions.reduce(into: Set<String>()) { names, condition in
            switch condition {
            case .property(let name, _): names.insert(name)
            case .any(let clauses): names.formUnion(clauses.flatMap(\.propertyNames))
            }
        }
    }

    /// Whether an item matches. `lookup` returns the item's value for a property name, or nil when it
    /// has none; booleans may arrive as `.integer(0/1)` or text, dates as ISO 8601 text.
    public func matches(_ lookup: (String) -> TemplateValue?) -> Bool {
        conditions.allSatisfy { condition in
            switch condition {
            case .property(let name, let predicates):
                let value = Self.present(lookup(name))
                return predicates.allSatisfy { $0.holds(for: value) }
            case .any(let alternatives):
                return alternatives.contains { $0.matches(lookup) }
            }
        }
    }

    /// Empty or blank text is no value (as in name templates).
    static func present(_ value: TemplateValue?) -> TemplateValue? {
        if case .text(let text) = value, text.allSatisfy(\.isWhitespace) { return nil }
        return value
    }
}

/// How an item's value relates to an operand.
enum WhereOrder {
    case less, same, greater
}

/// A value a predicate compares with, already read as its property's kind.
public enum WhereOperand: Sendable, Equatable {
    case text(String)
    /// Integer and number properties.
    case number(Double)
    case boolean(Bool)
    case date(DatePeriod)

    /// Where `value` falls relative to this operand; nil when `value` cannot be read as this kind.
    func order(of value: TemplateValue) -> WhereOrder? {
        switch self {
        case .text(let operand):
            let text = WhereValue.text(value).lowercased(), wanted = operand.lowercased()
            return text == wanted ? .same : (text < wanted ? .less : .greater)
        case .number(let operand):
            guard let number = WhereValue.number(value) else { return nil }
            return number == operand ? .same : (number < operand ? .less : .greater)
        case .boolean(let operand):
            guard let flag = WhereValue.boolean(value) else { return nil }
            return flag == operand ? .same : (operand ? .less : .greater)
        case .date(let period):
            guard let instant = WhereValue.date(value) else { return nil }
            return period.place(of: instant)
        }
    }
}

/// One test on a property's value.
public enum WherePredicate: Sendable {
    /// Comparison operators; a bare value is `eq`.
    public enum Comparison: String, Sendable, CaseIterable {
        case eq, ne, lt, lte, gt, gte
    }

    case compare(Comparison, WhereOperand)
    /// `in: [..]`: equal to any of them.
    case oneOf([WhereOperand])
    /// `contains: s`, case-insensitive.
    case contains(String)
    /// `matches: regex`.
    case matches(WhereRegex)
    /// `exists: bool`.
    case exists(Bool)

    /// Whether the predicate holds for a value (nil: the item lacks the property).
    public func holds(for value: TemplateValue?) -> Bool {
        if case .exists(let wanted) = self { return (value != nil) == wanted }
        guard let value else { return false }
        switch self {
        case .compare(let comparison, let operand):
            guard let order = operand.order(of: value) else { return false }
            switch comparison {
            case .eq: return order == .same
            case .ne: return order != .same
            case .lt: return order == .less
            case .lte: return order != .greater
            case .gt: return order == .greater
            case .gte: return order != .less
            }
        case .oneOf(let operands):
            return operands.contains { $0.order(of: value) == .same }
        case .contains(let needle):
            return WhereValue.text(value).lowercased().contains(needle.lowercased())
        case .matches(let regex):
            return regex.matches(WhereValue.text(value))
        case .exists:
            return true
        }
    }
}

/// A regular expression compiled once, at validation.
public struct WhereRegex: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable and documented as safe to share between threads.
    public let pattern: String
    let expression: NSRegularExpression

    /// Compiles `pattern` case-insensitively (`(?-i)` turns that off).
    public init(_ pattern: String) throws {
        self.pattern = pattern
        expression = try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
    }

    /// Whether the pattern is found anywhere in `text`.
    public func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// Reading item values as a property's kind.
enum WhereValue {
    static func text(_ value: TemplateValue) -> String {
        switch value {
        case .text(let text), .path(let text): return text
        case .integer(let integer): return String(integer)
        case .number(let number): return TemplatePlaceholder.plain(number)
        }
    }

    static func number(_ value: TemplateValue) -> Double? {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number): return number.isNaN ? nil : number
        case .text(let text), .path(let text):
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
            return number
        }
    }

    static func boolean(_ value: TemplateValue) -> Bool? {
        switch value {
        case .integer(let integer): return integer != 0
        case .number(let number): return number != 0
        case .text(let text), .path(let text): return boolean(text)
        }
    }

    /// true/false, yes/no, on/off, 1/0, in any case.
    static func boolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }

    /// The first instant of the date the value names.
    static func date(_ value: TemplateValue) -> Double? {
        DatePeriod(iso8601: text(value))?.start
    }
}
