import CYAML

/// Reads YAML text with libyaml into `YAMLNode`s. The only file that imports libyaml.
///
/// The tree is built from libyaml's event stream with an explicit stack, not from its document
/// API by recursion, so that the two ways a small file can make a huge tree are stopped while it
/// is read: nesting (50,000 `[` would overflow the stack of any recursive walk downstream) and
/// aliases (ten aliases of ten aliases of … — "billion laughs" — expand 700 bytes into 10⁹ nodes).
public enum YAMLReader {
    /// How deep collections may nest. A pipeline needs about ten levels (a `where` with nested
    /// `any:` a few more); every recursive walk over the tree is bounded by this.
    public static let maximumDepth = 64

    /// How many nodes the document may have once every alias is expanded (each alias counts the
    /// nodes it copies, as PyYAML's and Go's safe loaders count them). A pipeline has hundreds.
    public static let maximumNodes = 1_000_000

    /// Parses one YAML document. An empty document is an empty mapping at 1:1.
    public static func parse(_ text: String) throws -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(message: "libyaml could not start", mark: SourceMark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }

        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer -> YAMLNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError(parser) }
                defer { yaml_event_delete(&event) }
                if let root = try builder.take(&event) { return root }
            }
        }
    }

    private static func syntaxError(_ parser: yaml_parser_t) -> YAMLSyntaxError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        let mark = parser.problem_mark
        let message = context.map { "\(problem) (\($0))" } ?? problem
        return YAMLSyntaxError(
            message: "YAML syntax error: \(message)",
            mark: SourceMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1))
    }
}

/// Builds the first document of an event stream, as libyaml's loader would (aliases resolved,
/// an undefined or repeated anchor an error), counting and limiting as it goes.
private struct TreeBuilder {
    /// A collection being read: its items so far (keys and values alternate in a mapping).
    struct Open {
        let isMapping: Bool
        let mark: SourceMark
        let anchor: String?
        var items: [YAMLNode] = []
        /// Nodes in this collection after expansion, itself included.
        var nodes = 1
    }

    private var open: [Open] = []
    /// Completed anchored nodes, with their expanded node counts.
    private var anchors: [String: (node: YAMLNode, nodes: Int)] = [:]
    private var total = 0
    private var root: YAMLNode?

    /// Takes one event; returns the document's root once the document is complete.
    mutating func take(_ event: inout yaml_event_t) throws -> YAMLNode? {
        let mark = SourceMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return root ?? .mapping([], mark: SourceMark(line: 1, column: 1))
        case YAML_DOCUMENT_END_EVENT:
            // Only the first document is read (as yaml_parser_load does).
            return root ?? .mapping([], mark: SourceMark(line: 1, column: 1))
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let anchor = try newAnchor(scalar.anchor, at: mark)
            try count(1, at: mark)
            add(.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark: mark), nodes: 1, anchor: anchor)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = try newAnchor(isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor, at: mark)
            guard open.count < YAMLReader.maximumDepth else {
                throw YAMLSyntaxError(
                    message: "lists and mappings nest more than \(YAMLReader.maximumDepth) levels deep here",
                    mark: mark, suggestion: "a pipeline needs about ten levels; look for unclosed '[' or '{'")
            }
            try count(1, at: mark)
            open.append(Open(isMapping: isMapping, mark: mark, anchor: anchor))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let done = open.popLast() else { return nil }
            let node: YAMLNode
            if done.isMapping {
                var pairs: [(key: YAMLNode, value: YAMLNode)] = []
                pairs.reserveCapacity(done.items.count / 2)
                var index = 0
                while index + 1 < done.items.count {
                    pairs.append((done.items[index], done.items[index + 1]))
                    index += 2
                }
                node = .mapping(pairs, mark: done.mark)
            } else {
                node = .sequence(done.items, mark: done.mark)
            }
            add(node, nodes: done.nodes, anchor: done.anchor)
        case YAML_ALIAS_EVENT:
            let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
            if open.contains(where: { $0.anchor == name }) {
                throw YAMLSyntaxError(message: "the alias *\(name) refers to a node that contains it", mark: mark)
            }
            guard let target = anchors[name] else {
                throw YAMLSyntaxError(message: "the alias *\(name) refers to no anchor &\(name) written before it",
                                      mark: mark)
            }
            try count(target.nodes, at: mark, alias: name)
            add(target.node, nodes: target.nodes, anchor: nil)
        default:
            break  // stream and document starts
        }
        return nil
    }

    /// The anchor a node defines, which must be new (libyaml's loader refuses a second one too).
    private func newAnchor(_ pointer: UnsafeMutablePointer<yaml_char_t>?, at mark: SourceMark) throws -> String? {
        guard let pointer else { return nil }
        let name = String(cString: pointer)
        if anchors[name] != nil || open.contains(where: { $0.anchor == name }) {
            throw YAMLSyntaxError(message: "the anchor &\(name) is defined twice", mark: mark)
        }
        return name
    }

    /// Adds `nodes` to the document's expanded size, refusing to pass the limit.
    private mutating func count(_ nodes: Int, at mark: SourceMark, alias: String? = nil) throws {
        total += nodes
        guard total > YAMLReader.maximumNodes else { return }
        let limit = "more than \(YAMLReader.maximumNodes.formatted) nodes"
        throw YAMLSyntaxError(
            message: alias.map { "the alias *\($0) (\(nodes.formatted) nodes) makes the file expand to \(limit)" }
                ?? "the file has \(limit)",
            mark: mark,
            suggestion: alias == nil ? "split it into several pipelines"
                : "aliases of aliases grow exponentially; write the repeated part once per use, or alias it fewer times")
    }

    /// Puts a finished node into its parent (or makes it the root).
    private mutating func add(_ node: YAMLNode, nodes: Int, anchor: String?) {
        if let anchor { anchors[anchor] = (node, nodes) }
        if open.isEmpty {
            if root == nil { root = node }
        } else {
            open[open.count - 1].items.append(node)
            open[open.count - 1].nodes += nodes
        }
    }
}

private extension Int {
    /// 1000000 → "1,000,000".
    var formatted: String {
        let digits = String(self.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (self < 0 ? "-" : "") + grouped
    }
}
