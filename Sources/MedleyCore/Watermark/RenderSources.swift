import MedleyFilters
import MedleyKernels
import MedleyMedia

/// The images a graph reads besides its input: image nodes' files, decoded once per job, and text
/// nodes (CITextImageGenerator), drawn per item from the item's properties. The renderer asks for
/// a recipe source (`.source("asset:logo")`, `.source("text:caption")`) by name.
struct RenderSources: GraphImageSources {
    /// Image node → its file as 8-bit sRGB + alpha.
    private var assets: [String: VipsImage] = [:]
    /// Text node → what to draw.
    private var texts: [String: TextImage] = [:]

    init(graph: ImageGraph?) throws {
        for node in graph?.nodes ?? [] {
            if let asset = node.asset {
                assets[ImageGraph.assetSource(node.name)] = try AssetImages.rgba(asset)
            } else if node.filter == ImageGraph.textFilter {
                texts[ImageGraph.textSource(node.name)] = try Self.text(of: node)
            }
        }
    }

    /// A CITextImageGenerator node's inputs as a text to draw (they were checked at validation).
    private static func text(of node: ImageGraph.Node) throws -> TextImage {
        func value(_ key: String) -> FilterValue? {
            node.parameters.first { $0.key == key }?.value
                ?? FilterRegistry.attributes(of: ImageGraph.textFilter)?.parameter(key)?.defaultValue
        }
        func number(_ key: String) -> Double {
            if case .number(let n)? = value(key) { return n }
            return 1
        }
        var text = "", font = "HelveticaNeue"
        if case .text(let t)? = value("inputText") { text = t }
        if case .text(let f)? = value("inputFontName") { font = f }
        var color = SIMD4<Double>(0, 0, 0, 1)
        if case .color(let r, let g, let b, let a)? = value("inputColor") { color = SIMD4(r, g, b, a) }
        let template = try NameTemplate(text, knownProperties: ItemProperties.templateNames)
        return TextImage(template: template, font: font, pixelSize: number("inputFontSize") * number("inputScaleFactor"),
                         color: color)
    }

    /// The source `name` as float samples in the working space with `like`'s bands (RGB or RGBA),
    /// and the item's warnings; nil when no such source exists.
    func image(_ name: String, like input: VipsImage, workingSpace: Transfer,
               property: (String) -> TemplateValue?, warnings: inout [String]) throws -> VipsImage? {
        var image: VipsImage
        if let asset = assets[name] {
            image = asset
        } else if let text = texts[name] {
            let drawn = try text.draw(property)
            image = drawn.image
            warnings += drawn.warnings
        } else {
            return nil
        }
        if input.bands == 3 { image = try image.bands(0, count: 3) }
        return try image.mapRows(DecodeKernel(transfer: workingSpace), to: .float)
    }
}
