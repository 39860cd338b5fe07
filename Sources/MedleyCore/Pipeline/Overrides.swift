import MedleyYAML

/// `--set job.key.path=value`: changes one value of one job before validation, so the same
/// pipeline can be run with another quality or output folder without editing it.
enum Overrides {
    static func apply(_ assignment: String, to root: YAMLNode, sink: DiagnosticSink) -> YAMLNode {
        let origin = SourceMark(line: 1, column: 1)
        guard let equals = assignment.firstIndex(of: "=") else {
            sink.error(at: origin, "--set \(assignment): expected job.key=value")
            return root
        }
        let path = assignment[..<equals].split(separator: ".").map(String.init)
        let value = String(assignment[assignment.index(after: equals)...])
        guard path.count >= 2 else {
            sink.error(at: origin, "--set \(assignment): name the job and the key, e.g. my-job.export.quality=90")
            return root
        }
        // The path becomes nested mappings: no deeper than a file may nest them.
        guard path.count <= YAMLReader.maximumDepth / 2 else {
            sink.error(at: origin, "--set: a key path of \(path.count) parts is longer than any pipeline key",
                       suggestion: "a key path has at most \(YAMLReader.maximumDepth / 2) parts, like my-job.export.quality")
            return root
        }
        guard case .mapping(var top, let topMark) = root,
              let jobsIndex = top.firstIndex(where: { $0.key.scalarText == "jobs" }),
              case .sequence(var jobs, let jobsMark) = top[jobsIndex].value,
              let jobIndex = jobs.firstIndex(where: { job in
                  guard case .mapping(let fields, _) = job else { return false }
                  return fields.contains { $0.key.scalarText == "name" && $0.value.scalarText == path[0] }
              })
        else {
            sink.error(at: origin, "--set \(assignment): there is no job named '\(path[0])'")
            return root
        }
        jobs[jobIndex] = replacing(Array(path.dropFirst()), in: jobs[jobIndex], with: value)
        top[jobsIndex].value = .sequence(jobs, mark: jobsMark)
        return .mapping(top, mark: topMark)
    }

    /// The node with the value at `path` replaced (or added, creating mappings on the way).
    private static func replacing(_ path: [String], in node: YAMLNode, with value: String) -> YAMLNode {
        guard let key = path.first else { return .scalar(value, plain: true, mark: node.mark) }
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        if case .mapping(let existing, _) = node { pairs = existing }
        if let index = pairs.firstIndex(where: { $0.key.scalarText == key }) {
            pairs[index].value = replacing(Array(path.dropFirst()), in: pairs[index].value, with: value)
        } else {
            let empty = YAMLNode.mapping([], mark: node.mark)
            pairs.append((.scalar(key, plain: true, mark: node.mark),
                          replacing(Array(path.dropFirst()), in: empty, with: value)))
        }
        return .mapping(pairs, mark: node.mark)
    }
}
