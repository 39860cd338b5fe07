import MedleyFilters

extension SchemaReader {
    /// `resize`'s `crop:` says which part of a covered box is kept, so it means something only with
    /// `mode: aspectFill`: named with any other mode it is an error (a crop asked for and silently not
    /// done would be a picture the user did not ask for).
    func checkResizeCrops(_ graph: ImageGraph) {
        for node in graph.nodes where node.filter == "resize" {
            // The default (centre) asks for nothing beyond what every mode does.
            guard case .text(let crop)? = node.parameters.first(where: { $0.key == "crop" })?.value,
                  crop != "centre", crop != "center" else { continue }
            var mode = ResizeMode.aspectFit.rawValue
            if case .text(let given)? = node.parameters.first(where: { $0.key == "mode" })?.value { mode = given }
            guard mode != ResizeMode.aspectFill.rawValue else { continue }
            sink.error(at: node.mark, "resize: crop: \(crop) applies only to mode: aspectFill (this resize is \(mode), which crops nothing)",
                       suggestion: "add 'mode: aspectFill', or remove 'crop'")
        }
    }
}
