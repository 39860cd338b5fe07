import CYAML

/// Reads YAML text with libyaml into `YAMLNode`s. The only file that imports libyaml.
public enum YAMLReader {
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
            var document = yaml_document_t()
            guard yaml_parser_load(&parser, &document) == 1 else {
                throw syntaxError(parser)
            }
            defer { yaml_document_delete(&document) }
            guard let root = yaml_document_get_root_node(&document) else {
                return .mapping([], mark: SourceMark(line: 1, column: 1))
            }
            var building = Set<Int>()
            return try convert(root, in: &document, building: &building)
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

    /// How deep collections may nest.
    public static let maximumDepth = 256

    /// Walks libyaml's node graph. `building` holds the nodes on the current path, because an
    /// alias may point at its own ancestor and the tree would be infinite.
    private static func convert(_ node: UnsafeMutablePointer<yaml_node_t>,
                                in document: inout yaml_document_t,
                                building: inout Set<Int>) throws -> YAMLNode {
        let mark = SourceMark(line: Int(node.pointee.start_mark.line) + 1,
                              column: Int(node.pointee.start_mark.column) + 1)
        let identity = Int(bitPattern: node)
        // `building` is the path from the root: its length is the nesting depth, which the readers of the tree
        // walk recursively too. Pipelines nest a handful of levels; thousands would overflow the stack.
        guard building.count < maximumDepth else {
            throw YAMLSyntaxError(message: "the YAML nests more than \(maximumDepth) levels deep", mark: mark)
        }
        guard building.insert(identity).inserted else {
            throw YAMLSyntaxError(message: "an alias refers to a node that contains it", mark: mark)
        }
        defer { building.remove(identity) }

        switch node.pointee.type {
        case YAML_SCALAR_NODE:
            let scalar = node.pointee.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length),
                              as: UTF8.self)
            return .scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, mark: mark)
        case YAML_SEQUENCE_NODE:
            var items: [YAMLNode] = []
            var item = node.pointee.data.sequence.items.start
            while let current = item, current != node.pointee.data.sequence.items.top {
                if let child = yaml_document_get_node(&document, current.pointee) {
                    items.append(try convert(child, in: &document, building: &building))
                }
                item = current + 1
            }
            return .sequence(items, mark: mark)
        case YAML_MAPPING_NODE:
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            var pair = node.pointee.data.mapping.pairs.start
            while let current = pair, current != node.pointee.data.mapping.pairs.top {
                if let key = yaml_document_get_node(&document, current.pointee.key),
                   let value = yaml_document_get_node(&document, current.pointee.value) {
                    pairs.append((try convert(key, in: &document, building: &building),
                                  try convert(value, in: &document, building: &building)))
                }
                pair = current + 1
            }
            return .mapping(pairs, mark: mark)
        default:
            return .scalar("", plain: true, mark: mark)
        }
    }
}
