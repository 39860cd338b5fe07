import MedleyFilters
import MedleyKernels
import MedleyYAML

/// Filters wired into a graph: named nodes whose image inputs name other nodes or `input`
/// (the ingested image). A chain of filters is a graph whose nodes each feed the next.
public struct ImageGraph: Sendable {
    public struct Node: Sendable {
        public let name: String
        public let filter: String
        /// Non-image parameters, already checked against the filter's attributes.
        public let parameters: [(key: String, value: FilterValue)]
        /// Image parameter → the node (or "input") that feeds it.
        public let imageInputs: [(key: String, source: String)]
        public let mark: SourceMark
        /// An image node (`logo: { image: logos/logo.png }`): the file's bytes, decoded once per job
        /// (`filter` is then `ImageGraph.imageNodeFilter` and there are no parameters).
        public var asset: AssetFile? = nil
    }

    /// The `filter` of an image node, which reads a file instead of running a filter.
    public static let imageNodeFilter = "image"
    /// The recipe source of an image node, by its name: `.source("asset:logo")`.
    public static func assetSource(_ node: String) -> String { "asset:" + node }
    /// The recipe source of a text node (CITextImageGenerator), drawn per item: `.source("text:caption")`.
    public static func textSource(_ node: String) -> String { "text:" + node }
    public static let textFilter = "CITextImageGenerator"

    /// The name of the ingested image inside a graph.
    public static let inputName = "input"
    /// The most filter steps a chain or graph may run, a node counted once per node it feeds
    /// (the recipe is a tree: a node used twice is rendered twice). The optimiser and renderer walk
    /// the recipe recursively, so this bounds their depth as well as the work per image.
    public static let maximumSteps = 1000

    public let nodes: [Node]
    /// The node whose output is exported.
    public let output: String

    /// Builds the Core Image recipe, as `CIFilter` would be used: create by name,
    /// `setDefaults()`, set each keyed value, wire the image inputs, read `outputImage`.
    public func recipe(workingSpace: Transfer = .sRGB) throws -> FilterImage {
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var built: [String: FilterImage] = [Self.inputName: .source(Self.inputName)]
        func image(of name: String) throws -> FilterImage {
            if let done = built[name] { return done }
            if let node = byName[name], node.asset != nil || node.filter == Self.textFilter {
                let source = FilterImage.source(node.asset != nil ? Self.assetSource(name) : Self.textSource(name))
                built[name] = source
                return source
            }
            guard let node = byName[name], let filter = Filter(name: node.filter) else {
                throw FilterError.unknownFilter(name, suggestion: nil)
            }
            filter.workingSpace = workingSpace
            filter.qrEncoder = QRCodeAdapter()
            filter.setDefaults()
            for (key, value) in node.parameters { try filter.setValue(value, forKey: key) }
            for (key, source) in node.imageInputs { try filter.setValue(.image(image(of: source)), forKey: key) }
            guard let output = filter.outputImage else {
                throw FilterError.wrongType(filter: node.filter, key: "inputImage", expected: .image, got: "nothing")
            }
            built[name] = output
            return output
        }
        return try image(of: output)
    }
}
