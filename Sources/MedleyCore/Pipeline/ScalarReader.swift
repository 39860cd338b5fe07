import Foundation
import MedleyYAML

/// The scalar helpers every stage reader uses: typed scalars, lists, mappings with known keys,
/// paths resolved against the pipeline's folder, and marks inside a scalar.
extension SchemaReader {
    /// The value of `key` in a mapping node, if it is one and has it.
    static func field(_ key: String, of node: YAMLNode) -> YAMLNode? {
        guard case .mapping(let pairs, _) = node else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }

    /// A mapping's fields by key. Unknown keys (when `keys` is given) and duplicates are errors.
    func mapping(_ node: YAMLNode, keys: [String]?, what: String) -> [String: YAMLNode]? {
        guard case .mapping(let pairs, _) = node else {
            sink.error(node, "\(what) must be a mapping of keys to values, found \(node.kindDescription)")
            return nil
        }
        var fields: [String: YAMLNode] = [:]
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else {
                sink.error(keyNode, "keys in \(what) must be plain names, found \(keyNode.kindDescription)")
                continue
            }
            if let keys, !keys.contains(key) {
                sink.error(keyNode, "unknown key '\(key)' in \(what)",
                           suggestion: DiagnosticSink.didYouMean(key, in: keys)
                               ?? "known keys: \(keys.joined(separator: ", "))")
                continue
            }
            if fields[key] != nil {
                sink.error(keyNode, "'\(key)' is given twice in \(what)")
                continue
            }
            fields[key] = value
        }
        return fields
    }

    func string(_ node: YAMLNode, what: String) -> String? {
        guard case .scalar(let text, _, _) = node, !node.isNull else {
            sink.error(node, "\(what) must be text, found \(node.kindDescription)")
            return nil
        }
        return text
    }

    func integer(_ node: YAMLNode, what: String) -> Int? {
        guard case .scalar(let text, true, _) = node, let n = Int(text) else {
            sink.error(node, "\(what) must be a whole number, found \(node.kindDescription)")
            return nil
        }
        return n
    }

    func boolean(_ node: YAMLNode, what: String) -> Bool? {
        guard case .scalar(let text, true, _) = node, let b = Self.bool(text) else {
            sink.error(node, "\(what) must be true or false, found \(node.kindDescription)")
            return nil
        }
        return b
    }

    /// A scalar or a list of scalars, each with its node (for messages).
    func stringList(_ node: YAMLNode, what: String) -> [(String, YAMLNode)] {
        switch node {
        case .scalar(let text, _, _) where !node.isNull:
            return [(text, node)]
        case .sequence(let items, _) where !items.isEmpty:
            return items.compactMap { item in string(item, what: what).map { ($0, item) } }
        default:
            sink.error(node, "\(what) must be text or a list of text, found \(node.kindDescription)")
            return []
        }
    }

    static func number(_ text: String) -> Double? {
        guard let n = Double(text), n.isFinite else { return nil }
        return n
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }

    func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let absolute = expanded.hasPrefix("/") ? expanded : directory + "/" + expanded
        // Normalise "a/./b" and "a/../b" without resolving links (the enumerator decides on links).
        var parts: [Substring] = []
        for component in absolute.split(separator: "/") {
            if component == "." { continue }
            if component == "..", !parts.isEmpty, !Glob.isPattern(String(parts.last!)) { parts.removeLast(); continue }
            parts.append(component)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Where inside a scalar a character offset falls (for template errors). Plain and quoted
    /// single-line scalars only; otherwise the scalar's start.
    static func mark(in node: YAMLNode, offset: Int) -> SourceMark {
        guard case .scalar(let text, let plain, let mark) = node, !text.contains("\n") else { return node.mark }
        return SourceMark(line: mark.line, column: mark.column + offset + (plain ? 0 : 1))
    }
}
