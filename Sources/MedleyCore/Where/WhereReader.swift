import Foundation
import MedleyYAML

/// Reading `where:`: every property, operator and operand is checked against the property's kind, so
/// `genre: {gt: 3}` or `albumTrackNumber: abc` are reported before anything runs.
extension SchemaReader {
    /// Operators and the kinds they apply to.
    static let whereOperators: [(name: String, kinds: Set<ItemProperties.Kind>)] = [
        ("eq", [.text, .integer, .number, .boolean, .date]),
        ("ne", [.text, .integer, .number, .boolean, .date]),
        ("lt", [.integer, .number, .date]),
        ("lte", [.integer, .number, .date]),
        ("gt", [.integer, .number, .date]),
        ("gte", [.integer, .number, .date]),
        ("in", [.text, .integer, .number, .boolean, .date]),
        ("contains", [.text]),
        ("matches", [.text]),
        ("exists", [.text, .integer, .number, .boolean, .date]),
    ]

    /// A where-map (the stage itself, or one element of `any:`).
    func whereClause(_ node: YAMLNode) -> WhereClause? {
        guard case .mapping(let pairs, _) = node else {
            sink.error(node, "where must be a mapping of properties to conditions, found \(node.kindDescription)",
                       suggestion: "write 'where: { genre: Rock }'")
            return nil
        }
        var conditions: [WhereClause.Condition] = []
        var seen = Set<String>()
        var ok = true
        for (keyNode, value) in pairs {
            guard let name = keyNode.scalarText, !keyNode.isNull else {
                sink.error(keyNode, "keys in where must be property names, found \(keyNode.kindDescription)")
                ok = false
                continue
            }
            guard seen.insert(name).inserted else {
                sink.error(keyNode, "'\(name)' is given twice in where",
                           suggestion: name == "any" ? "put every alternative in one 'any' list" : "give several operators in one mapping, like { gte: 1, lt: 10 }")
                ok = false
                continue
            }
            if name == "any" {
                guard let alternatives = anyList(value) else { ok = false; continue }
                conditions.append(.any(alternatives))
                continue
            }
            guard let kind = ItemProperties.kind(of: name), name != "exif.", name != "tag." else {
                sink.error(keyNode, "unknown property '\(name)' in where",
                           suggestion: DiagnosticSink.didYouMean(name, in: ItemProperties.names))
                ok = false
                continue
            }
            guard let predicates = wherePredicates(value, property: name, kind: kind) else { ok = false; continue }
            conditions.append(.property(name, predicates))
        }
        return ok ? WhereClause(conditions) : nil
    }

    /// `any: [ {...}, {...} ]`: a non-empty list of where-maps.
    private func anyList(_ node: YAMLNode) -> [WhereClause]? {
        guard case .sequence(let items, _) = node, !items.isEmpty else {
            sink.error(node, "where.any takes a list of where-maps, found \(node.kindDescription)",
                       suggestion: "write 'any: [ { genre: Rock }, { genre: Pop } ]'")
            return nil
        }
        let clauses = items.map(whereClause)
        return clauses.contains { $0 == nil } ? nil : clauses.compactMap { $0 }
    }

    /// A property's condition: a bare value (`eq`) or a mapping of operators, all of which must hold.
    private func wherePredicates(_ node: YAMLNode, property: String, kind: ItemProperties.Kind) -> [WherePredicate]? {
        switch node {
        case .scalar where node.isNull:
            sink.error(node, "where.\(property) has no condition",
                       suggestion: "give a value, or { exists: false } for items without \(property)")
            return nil
        case .scalar:
            return whereOperand(node, property: property, kind: kind).map { [.compare(.eq, $0)] }
        case .sequence:
            sink.error(node, "where.\(property): a list is not a condition",
                       suggestion: "to accept any of several values write { in: [...] }")
            return nil
        case .mapping(let pairs, _):
            guard !pairs.isEmpty else {
                sink.error(node, "where.\(property) has no condition",
                           suggestion: "give a value or an operator, like { eq: ... }")
                return nil
            }
            var predicates: [WherePredicate] = []
            var seen = Set<String>()
            var ok = true
            for (keyNode, value) in pairs {
                guard let predicate = wherePredicate(keyNode, value, property: property, kind: kind, seen: &seen) else {
                    ok = false
                    continue
                }
                predicates.append(predicate)
            }
            return ok ? predicates : nil
        }
    }

    private func wherePredicate(_ keyNode: YAMLNode, _ value: YAMLNode, property: String, kind: ItemProperties.Kind,
                                seen: inout Set<String>) -> WherePredicate? {
        let names = Self.whereOperators.map(\.name)
        guard let name = keyNode.scalarText, let entry = Self.whereOperators.first(where: { $0.name == name }) else {
            let text = keyNode.scalarText ?? ""
            sink.error(keyNode, "unknown operator '\(text)' in where.\(property)",
                       suggestion: DiagnosticSink.didYouMean(text, in: names) ?? "operators: \(names.joined(separator: ", "))")
            return nil
        }
        guard seen.insert(name).inserted else {
            sink.error(keyNode, "'\(name)' is given twice in where.\(property)")
            return nil
        }
        guard entry.kinds.contains(kind) else {
            let usable = Self.whereOperators.filter { $0.kinds.contains(kind) }.map(\.name)
            sink.error(value, "where.\(property): '\(name)' does not apply to \(property), which is \(Self.kindPhrase(kind))",
                       suggestion: "\(property) takes a bare value or \(usable.joined(separator: ", "))")
            return nil
        }
        switch name {
        case "in":
            guard case .sequence(let items, _) = value, !items.isEmpty else {
                sink.error(value, "where.\(property): 'in' takes a list of values, found \(value.kindDescription)",
                           suggestion: "write { in: [a, b] }")
                return nil
            }
            let operands = items.map { whereOperand($0, property: property, kind: kind) }
            return operands.contains { $0 == nil } ? nil : .oneOf(operands.compactMap { $0 })
        case "contains":
            guard let text = string(value, what: "where.\(property).contains") else { return nil }
            return .contains(text)
        case "matches":
            guard let pattern = string(value, what: "where.\(property).matches") else { return nil }
            do {
                return .matches(try WhereRegex(pattern))
            } catch {
                sink.error(value, "where.\(property): '\(pattern)' is not a valid regular expression",
                           suggestion: "check the brackets and escapes; a literal '\\' is written '\\\\'")
                return nil
            }
        case "exists":
            guard case .scalar(let text, _, _) = value, let flag = WhereValue.boolean(text) else {
                sink.error(value, "where.\(property): 'exists' takes true or false, found \(value.kindDescription)")
                return nil
            }
            return .exists(flag)
        default:
            let comparison = WherePredicate.Comparison(rawValue: name)!
            return whereOperand(value, property: property, kind: kind).map { .compare(comparison, $0) }
        }
    }

    /// A scalar read as the property's kind; a mismatch is an error at the value.
    private func whereOperand(_ node: YAMLNode, property: String, kind: ItemProperties.Kind) -> WhereOperand? {
        guard case .scalar(let text, _, _) = node, !node.isNull else {
            sink.error(node, "where.\(property) compares with a single value, found \(node.kindDescription)")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .text:
            return .text(text)
        case .integer:
            if let integer = Int(trimmed) { return .number(Double(integer)) }
            sink.error(node, "where.\(property): '\(text)' is not a whole number",
                       suggestion: "\(property) is compared as a whole number, like 3")
        case .number:
            if let number = Double(trimmed), number.isFinite { return .number(number) }
            sink.error(node, "where.\(property): '\(text)' is not a number",
                       suggestion: "\(property) is compared as a number, like 3600 or 29.97")
        case .boolean:
            if let flag = WhereValue.boolean(trimmed) { return .boolean(flag) }
            sink.error(node, "where.\(property): '\(text)' is not true or false",
                       suggestion: "\(property) is compared as true or false")
        case .date:
            if let period = DatePeriod(iso8601: trimmed) { return .date(period) }
            sink.error(node, "where.\(property): '\(text)' is not a date",
                       suggestion: "write a year, month, day or time: 2024, 2024-05, 2024-05-01 or 2024-05-01T10:00:00Z")
        }
        return nil
    }

    static func kindPhrase(_ kind: ItemProperties.Kind) -> String {
        switch kind {
        case .text: return "text"
        case .integer: return "a whole number"
        case .number: return "a number"
        case .boolean: return "true or false"
        case .date: return "a date"
        }
    }
}
