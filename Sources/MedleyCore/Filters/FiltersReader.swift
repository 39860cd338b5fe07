import MedleyFilters
import MedleyMedia
import MedleyYAML

/// Reading `filters:` (a chain) and `graph:` (named nodes) into an `ImageGraph`, each filter
/// and parameter checked against the registry's attribute declarations.
extension SchemaReader {
    /// `filters:` — a list whose entries are `- CISepiaTone: { inputIntensity: 0.8 }` or a bare name.
    func chain(_ node: YAMLNode) -> ImageGraph? {
        guard case .sequence(let steps, _) = node else {
            sink.error(node, "'filters' must be a list of filters, found \(node.kindDescription)",
                       suggestion: "write '- CISepiaTone: { inputIntensity: 0.8 }'")
            return nil
        }
        if steps.count > ImageGraph.maximumSteps {
            sink.error(steps[ImageGraph.maximumSteps], "'filters' has \(steps.count) filters, more than the \(ImageGraph.maximumSteps) a chain may have",
                       suggestion: "split the work into several jobs, one exporting into the next one's ingest folder")
            return nil
        }
        var nodes: [ImageGraph.Node] = []
        var previous = ImageGraph.inputName
        var ok = true
        for (index, step) in steps.enumerated() {
            let name = "step\(index + 1)"
            let filterName: String, nameNode: YAMLNode, parameters: YAMLNode?
            switch step {
            case .scalar(let text, _, _):
                (filterName, nameNode, parameters) = (text, step, nil)
            case .mapping(let pairs, _) where pairs.count == 1:
                guard let text = string(pairs[0].key, what: "filter name") else { ok = false; continue }
                (filterName, nameNode, parameters) = (text, pairs[0].key, pairs[0].value)
            default:
                sink.error(step, "each filter is one 'Name: { parameters }' entry, found \(step.kindDescription)",
                           suggestion: "split it into one list entry per filter")
                ok = false
                continue
            }
            guard let node = filterNode(name: name, filter: filterName, filterMark: nameNode,
                                        parameters: parameters, defaultInput: previous, graphNames: nil)
            else { ok = false; continue }
            nodes.append(node)
            previous = name
        }
        guard ok else { return nil }
        guard !nodes.isEmpty else {
            sink.error(node, "'filters' is empty", suggestion: "list at least one filter, or remove 'filters'")
            return nil
        }
        return ImageGraph(nodes: nodes, output: previous)
    }

    /// `graph:` — named nodes: `toned: { filter: CISepiaTone, inputImage: input, inputIntensity: 0.9 }`.
    func graph(_ node: YAMLNode) -> ImageGraph? {
        guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
            sink.error(node, "'graph' must map node names to filters, found \(node.kindDescription)")
            return nil
        }
        if pairs.count > ImageGraph.maximumSteps {
            sink.error(pairs[ImageGraph.maximumSteps].key, "'graph' has \(pairs.count) nodes, more than the \(ImageGraph.maximumSteps) a graph may have",
                       suggestion: "split the work into several jobs, one exporting into the next one's ingest folder")
            return nil
        }
        let names = pairs.compactMap(\.key.scalarText)
        var nodes: [ImageGraph.Node] = []
        var ok = true
        for (key, value) in pairs {
            guard let name = string(key, what: "graph node name") else { ok = false; continue }
            if name == ImageGraph.inputName {
                sink.error(key, "'input' is the ingested image and cannot be a node name"); ok = false; continue
            }
            guard let fields = mapping(value, keys: nil, what: "graph node '\(name)'") else { ok = false; continue }
            if let imageNode = fields["image"] {
                guard let built = self.imageNode(name: name, imageNode, fields: value) else { ok = false; continue }
                nodes.append(built)
                continue
            }
            guard let filterNode = fields["filter"], let filterName = string(filterNode, what: "filter") else {
                if fields["filter"] == nil {
                    sink.error(value, "graph node '\(name)' has no 'filter'", suggestion: "add 'filter: CISepiaTone'")
                }
                ok = false
                continue
            }
            var rest = value
            if case .mapping(let all, let mark) = value {
                rest = .mapping(all.filter { $0.key.scalarText != "filter" }, mark: mark)
            }
            guard let built = self.filterNode(name: name, filter: filterName, filterMark: filterNode, parameters: rest,
                                              defaultInput: nil, graphNames: names)
            else { ok = false; continue }
            nodes.append(built)
        }
        guard checkAcyclic(ImageGraph(nodes: nodes, output: "")), ok else { return nil }
        let output: String
        if names.contains("output") {
            output = "output"
        } else {
            let fed = Set(nodes.flatMap { $0.imageInputs.map(\.source) })
            let sinks = nodes.map(\.name).filter { !fed.contains($0) }
            guard sinks.count == 1 else {
                sink.error(node, "the graph has \(sinks.count) end nodes (\(sinks.joined(separator: ", "))); which one is exported?",
                           suggestion: "name the final node 'output'")
                return nil
            }
            output = sinks[0]
        }
        return ImageGraph(nodes: nodes, output: output)
    }

    /// Reports the first cycle, and a graph whose recipe would have more than
    /// `ImageGraph.maximumSteps` steps (each node counted once per use: `size` of a node is one plus
    /// the sizes of the nodes feeding it). Depth-first with an explicit stack: no recursion over
    /// user-written structure.
    func checkAcyclic(_ graph: ImageGraph) -> Bool {
        let byName = Dictionary(graph.nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var size: [String: Int] = [:]  // done, with its size (capped just above the limit)
        var visiting = Set<String>()
        for start in graph.nodes where size[start.name] == nil {
            // (node, index of the next input to look at)
            var stack: [(node: ImageGraph.Node, next: Int)] = [(start, 0)]
            visiting.insert(start.name)
            while let (node, next) = stack.last {
                if next < node.imageInputs.count {
                    stack[stack.count - 1].next += 1
                    let source = node.imageInputs[next].source
                    guard let child = byName[source], size[source] == nil else { continue }
                    if visiting.contains(source) {
                        let path = stack.map(\.node.name)
                        let cycle = (path.drop { $0 != source } + [source]).joined(separator: " → ")
                        sink.error(at: child.mark, "the graph has a cycle: \(cycle)",
                                   suggestion: "feed one of these nodes from 'input' or another node")
                        return false
                    }
                    visiting.insert(source)
                    stack.append((child, 0))
                    continue
                }
                stack.removeLast()
                visiting.remove(node.name)
                let total = node.imageInputs.reduce(1) { sum, input in
                    min(sum + (size[input.source] ?? 0), ImageGraph.maximumSteps + 1)
                }
                size[node.name] = total
                if total > ImageGraph.maximumSteps {
                    sink.error(at: node.mark, "node '\(node.name)' would run more than \(ImageGraph.maximumSteps) filter steps: a node that feeds several others is rendered once for each",
                               suggestion: "use fewer nodes that feed the same node twice, or split the work into several jobs")
                    return false
                }
            }
        }
        return true
    }

    /// Sizes known before any image is read: a `resize` that fills or covers a whole box makes
    /// images of exactly that box, which must be within the job's pixel limit.
    func checkOutputSizes(_ graph: ImageGraph, maxPixels: Int) {
        for node in graph.nodes where node.filter == "resize" {
            func number(_ key: String) -> Double? {
                if case .number(let n)? = node.parameters.first(where: { $0.key == key })?.value { return n }
                return nil
            }
            guard case .text(let mode)? = node.parameters.first(where: { $0.key == "mode" })?.value,
                  mode == ResizeMode.fill.rawValue || mode == ResizeMode.aspectFill.rawValue,
                  let width = number("width"), let height = number("height"), width > 0, height > 0,
                  width * height > Double(maxPixels) else { continue }
            sink.error(at: node.mark, String(format: "resize to %.0f × %.0f (%@) makes images of %.0f MP, over the %.0f MP limit (limits.maxPixels)",
                                             width, height, mode, width * height / 1e6, Double(maxPixels) / 1e6),
                       suggestion: "a smaller box, or a higher limits.maxPixels")
        }
    }

    /// `logo: { image: logos/logo.png }`: a file read once (`assetFile`), usable wherever an image
    /// input goes. That it decodes as an image within the pixel limit is checked with the job's
    /// limit (`checkAssetImages`).
    func imageNode(name: String, _ imageNode: YAMLNode, fields: YAMLNode) -> ImageGraph.Node? {
        if case .mapping(let pairs, _) = fields, let extra = pairs.first(where: { $0.key.scalarText != "image" }) {
            sink.error(extra.key, "graph node '\(name)' reads an image file and takes only 'image'",
                       suggestion: "feed it into a filter node: 'inputBackgroundImage: \(name)'")
            return nil
        }
        guard let asset = assetFile(imageNode, what: "graph node '\(name)'.image") else { return nil }
        var node = ImageGraph.Node(name: name, filter: ImageGraph.imageNodeFilter, parameters: [], imageInputs: [],
                                   mark: imageNode.mark)
        node.asset = asset
        return node
    }

    /// Every image file a graph names decodes (its header, read from the bytes) to an image within
    /// the job's pixel limit.
    func checkAssetImages(_ graph: ImageGraph, maxPixels: Int) {
        for node in graph.nodes {
            guard let asset = node.asset else { continue }
            checkAssetImage(asset, at: node.mark, what: "graph node '\(node.name)'.image", maxPixels: maxPixels)
        }
    }

    /// One image file's header decoded from its bytes, within `maxPixels`; a diagnostic at `mark` otherwise.
    @discardableResult
    func checkAssetImage(_ asset: AssetFile, at mark: SourceMark, what: String, maxPixels: Int) -> Bool {
        let size: (width: Int, height: Int)
        do {
            size = try VipsImage.headerSize(bytes: asset.bytes)
        } catch {
            sink.error(at: mark, "\(what): '\(asset.path)' is not an image libvips can decode (\(error))",
                       suggestion: "name a PNG, JPEG, WebP, TIFF or another image file")
            return false
        }
        // It is decoded whole into memory once per job: a file of a few MB must not become gigabytes.
        let limit = min(maxPixels, AssetImages.maximumPixels)
        let pixels = size.width.multipliedReportingOverflow(by: size.height)
        if pixels.overflow || pixels.partialValue > limit || size.width <= 0 || size.height <= 0 {
            sink.error(at: mark, String(format: "%@: '%@' is %d × %d pixels, over the %.0f MP limit (%@)",
                                        what, asset.path, size.width, size.height, Double(limit) / 1e6,
                                        limit == maxPixels ? "limits.maxPixels" : "Medley's limit for a pipeline's own images"),
                       suggestion: "a smaller image")
            return false
        }
        return true
    }

    /// One filter with its parameters checked against its declared attributes.
    func filterNode(name: String, filter: String, filterMark: YAMLNode, parameters: YAMLNode?,
                    defaultInput: String?, graphNames: [String]?) -> ImageGraph.Node? {
        guard let attributes = FilterRegistry.attributes(of: filter) else {
            sink.error(filterMark, "unknown filter '\(filter)'",
                       suggestion: FilterRegistry.suggestion(for: filter).map { "did you mean '\($0)'?" }
                           ?? "'medley filters list' shows the filters there are")
            return nil
        }
        var values: [(String, FilterValue)] = []
        var images: [(String, String)] = []
        var wired = Set<String>()  // image keys given, even when what they name is wrong
        var ok = true
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        if let parameters, !parameters.isNull {
            guard case .mapping(let given, _) = parameters else {
                sink.error(parameters, "parameters of \(filter) must be a mapping like { inputIntensity: 0.8 }, found \(parameters.kindDescription)")
                return nil
            }
            pairs = given
        }
        var seen = Set<String>()
        for (keyNode, valueNode) in pairs {
            guard let key = string(keyNode, what: "parameter name") else { ok = false; continue }
            guard seen.insert(key).inserted else {
                sink.error(keyNode, "\(filter).\(key) is given twice"); ok = false; continue
            }
            guard let parameter = attributes.parameter(key) else {
                let suggestion = nearest(key, in: attributes.parameters.map(\.name))
                sink.error(keyNode, "\(filter) has no parameter '\(key)'",
                           suggestion: suggestion.map { "did you mean '\($0)'?" }
                               ?? "'medley filters describe \(filter)' lists its parameters")
                ok = false
                continue
            }
            if parameter.type == .image {
                wired.insert(key)
                guard let source = string(valueNode, what: key) else { ok = false; continue }
                guard let graphNames else {
                    sink.error(valueNode, "in a 'filters' chain each filter's \(key) is the previous result",
                               suggestion: "use 'graph:' to wire images by name")
                    ok = false
                    continue
                }
                if source != ImageGraph.inputName && !graphNames.contains(source) {
                    sink.error(valueNode, "\(name).\(key) refers to '\(source)', which is not a node of this graph",
                               suggestion: DiagnosticSink.didYouMean(source, in: graphNames + [ImageGraph.inputName])
                                   ?? "use 'input' for the ingested image")
                    ok = false
                } else if source == name {
                    sink.error(valueNode, "the graph has a cycle: \(name) → \(name)"); ok = false
                } else {
                    images.append((key, source))
                }
                continue
            }
            if filter == ImageGraph.textFilter, key == "inputText", textTemplate(valueNode, what: "\(filter).inputText") == nil {
                ok = false
                continue
            }
            if filter == ImageGraph.textFilter, key == "inputFontName", fontName(valueNode, what: "\(filter).inputFontName") == nil {
                ok = false
                continue
            }
            if parameter.type == .file {
                guard let table = lookupTableFile(valueNode, what: "\(filter).\(key)") else { ok = false; continue }
                values.append((key, .lookupTable(table)))
                continue
            }
            guard let value = filterValue(valueNode, for: parameter, filter: filter) else { ok = false; continue }
            do {
                values.append((key, try Filter.checked(value, forKey: key, of: attributes)))
            } catch {
                var hint: String?
                if let low = parameter.sliderMinimum, let high = parameter.sliderMaximum,
                   low != parameter.minimum || high != parameter.maximum {
                    hint = "useful values are \(FilterValue.format(low))…\(FilterValue.format(high))"
                }
                sink.error(valueNode, "\(error)", suggestion: hint)
                ok = false
            }
        }
        for key in attributes.imageKeys where !wired.contains(key) {
            if key == "inputImage", let defaultInput {
                images.append((key, defaultInput))
            } else {
                sink.error(filterMark, "\(filter) in node '\(name)' needs '\(key)'",
                           suggestion: "add '\(key): input' or the name of another node")
                ok = false
            }
        }
        if ok, let problem = Filter.problem(filter: filter, values: values) {
            sink.error(filterMark, "\(filter) in node '\(name)': \(problem)")
            ok = false
        }
        return ok ? ImageGraph.Node(name: name, filter: filter, parameters: values, imageInputs: images,
                                    mark: filterMark.mark) : nil
    }

    /// A YAML value as a filter value of the parameter's kind.
    func filterValue(_ node: YAMLNode, for parameter: ParameterAttributes, filter: String) -> FilterValue? {
        switch node {
        case .scalar(let text, let plain, _):
            if parameter.type == .choice || parameter.type == .text { return .text(text) }
            if plain, let n = Self.number(text) { return .number(n) }
            if plain, let b = Self.bool(text) { return .boolean(b) }
        case .sequence(let items, _):
            let numbers = items.compactMap { item -> Double? in
                if case .scalar(let t, true, _) = item { return Self.number(t) }
                return nil
            }
            if numbers.count == items.count { return .vector(numbers) }
        case .mapping:
            break
        }
        sink.error(node, "\(filter).\(parameter.name) takes \(FilterError.article(parameter.type)), not \(node.kindDescription)")
        return nil
    }
}
