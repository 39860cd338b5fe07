import MedleyFilters
import MedleyYAML

/// The filters `autoAdjust:` chose, as nodes of the job's graph.
extension AutoAdjustment {
    /// The three filters as graph nodes, fed by `input`, each feeding the next; named so no node of `graph` shares a name.
    func nodes(avoiding graph: ImageGraph?) -> [ImageGraph.Node] {
        let taken = Set(graph?.nodes.map(\.name) ?? [])
        func name(_ filter: String) -> String {
            var name = "autoAdjust:" + filter
            while taken.contains(name) { name += "'" }
            return name
        }
        let filters: [(String, [(key: String, value: FilterValue)])] = [
            ("CIVibrance", [("inputAmount", .number(vibranceAmount))]),
            ("CIToneCurve", toneCurve.enumerated().map { ("inputPoint\($0.offset)", .vector($0.element)) }),
            ("CIHighlightShadowAdjust", [("inputShadowAmount", .number(shadowAmount)),
                                                     ("inputHighlightAmount", .number(highlightAmount))]),
        ]
        var previous = ImageGraph.inputName
        return filters.map { filter, parameters in
            let node = ImageGraph.Node(name: name(filter), filter: filter, parameters: parameters,
                                       imageInputs: [("inputImage", previous)], mark: SourceMark(line: 0, column: 0))
            previous = node.name
            return node
        }
    }

    /// The job's graph (or none) with the three filters before it: every image input that took
    /// the ingested image takes the adjusted one.
    func prefixing(_ graph: ImageGraph?) -> ImageGraph {
        let added = nodes(avoiding: graph)
        let adjusted = added.last?.name ?? ImageGraph.inputName
        guard let graph else { return ImageGraph(nodes: added, output: adjusted) }
        let rewired = graph.nodes.map { node in
            ImageGraph.Node(name: node.name, filter: node.filter, parameters: node.parameters,
                            imageInputs: node.imageInputs.map { ($0.key, $0.source == ImageGraph.inputName ? adjusted : $0.source) },
                            mark: node.mark)
        }
        return ImageGraph(nodes: added + rewired, output: graph.output == ImageGraph.inputName ? adjusted : graph.output)
    }

}
