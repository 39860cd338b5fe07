import MedleyKernels

/// The blend-mode filters: `inputImage` (the source) over `inputBackgroundImage`, by the W3C
/// Compositing and Blending formulas (or the Photoshop formula Apple names), in the working space,
/// alpha handled by the general Porter-Duff source-over equation. One declaration per filter; the
/// families live in `SeparableBlendModes.swift`, `PhotoshopBlendModes.swift` and
/// `NonSeparableBlendModes.swift`.
protocol BlendFilter: FilterDefinition {
    static var mode: BlendMode { get }
    static var name: String { get }
    static var displayName: String { get }
    static var summary: String { get }
    static var formula: String { get }
    /// Where `formula` comes from.
    static var source: String { get }
}

extension BlendFilter {
    static var source: String { "W3C Compositing and Blending Level 1" }

    static var attributes: FilterAttributes {
        FilterAttributes(
            name: name, displayName: displayName,
            categories: [Category.compositeOperation] + Category.common,
            summary: summary,
            reference: "\(source): \(formula); co = αs(1−αb)Cs + αsαb·B(Cb,Cs) + (1−αs)αbCb",
            parameters: [.inputImage, .inputBackgroundImage])
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let foreground = inputs.image("inputImage"), let background = inputs.image("inputBackgroundImage") else {
            return nil
        }
        return .composite(BlendKernel(mode), foreground: foreground, background: background)
    }
}

enum SourceOverCompositing: BlendFilter {
    static let mode = BlendMode.normal
    static let name = "CISourceOverCompositing"
    static let displayName = "Source Over"
    static let summary = "Places the input image over the input background image."
    static let formula = "Porter-Duff source-over, B(Cb, Cs) = Cs"
}

enum MultiplyBlendMode: BlendFilter {
    static let mode = BlendMode.multiply
    static let name = "CIMultiplyBlendMode"
    static let displayName = "Multiply Blend Mode"
    static let summary = "Multiplies the input image samples with the background image samples."
    static let formula = "B(Cb, Cs) = Cb·Cs"
}

enum ScreenBlendMode: BlendFilter {
    static let mode = BlendMode.screen
    static let name = "CIScreenBlendMode"
    static let displayName = "Screen Blend Mode"
    static let summary = "Multiplies the inverse of the input image samples with the inverse of the background image samples."
    static let formula = "B(Cb, Cs) = Cb + Cs − Cb·Cs"
}

enum OverlayBlendMode: BlendFilter {
    static let mode = BlendMode.overlay
    static let name = "CIOverlayBlendMode"
    static let displayName = "Overlay Blend Mode"
    static let summary = "Either multiplies or screens the input image samples with the background image samples, depending on the background color."
    static let formula = "B(Cb, Cs) = HardLight(Cs, Cb): 2·Cs·Cb if Cb ≤ 0.5, else Screen(Cs, 2·Cb − 1)"
}
