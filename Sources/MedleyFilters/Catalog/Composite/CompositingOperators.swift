import MedleyKernels

/// Core Image's …Compositing filters other than source-over: per-component operators on the
/// premultiplied pixels of `inputImage` (S) and `inputBackgroundImage` (D), alpha included, as
/// Apple describes them (addition, maximum, minimum, multiply), and the Porter-Duff operators
/// (source atop, in, out). One declaration per filter below.
protocol CompositingFilter: FilterDefinition {
    static var operation: CompositeOperator { get }
    static var name: String { get }
    static var displayName: String { get }
    static var summary: String { get }
    static var formula: String { get }
}

extension CompositingFilter {
    static var attributes: FilterAttributes {
        FilterAttributes(
            name: name, displayName: displayName,
            categories: [Category.compositeOperation] + Category.common,
            summary: summary,
            reference: "\(formula), on premultiplied RGBA (S the input image, D the background); "
                + "alpha over 1 is clipped to 1",
            parameters: [.inputImage, .inputBackgroundImage])
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let foreground = inputs.image("inputImage"), let background = inputs.image("inputBackgroundImage") else {
            return nil
        }
        return .composite(CompositeKernel(operation), foreground: foreground, background: background)
    }
}

enum AdditionCompositing: CompositingFilter {
    static let operation = CompositeOperator.addition
    static let name = "CIAdditionCompositing"
    static let displayName = "Addition"
    static let summary = "Adds color components to achieve a brightening effect. This filter is typically used to add "
        + "highlights and lens flare effects."
    static let formula = "Apple: R = S + D per component"
}

enum MaximumCompositing: CompositingFilter {
    static let operation = CompositeOperator.maximum
    static let name = "CIMaximumCompositing"
    static let displayName = "Maximum"
    static let summary = "Computes the maximum value, by color component, of two input images and creates an output "
        + "image using the maximum values. This is similar to dodging."
    static let formula = "Apple: R = max(S, D) per component"
}

enum MinimumCompositing: CompositingFilter {
    static let operation = CompositeOperator.minimum
    static let name = "CIMinimumCompositing"
    static let displayName = "Minimum"
    static let summary = "Computes the minimum value, by color component, of two input images and creates an output "
        + "image using the minimum values. This is similar to burning."
    static let formula = "Apple: R = min(S, D) per component"
}

enum MultiplyCompositing: CompositingFilter {
    static let operation = CompositeOperator.multiply
    static let name = "CIMultiplyCompositing"
    static let displayName = "Multiply"
    static let summary = "Multiplies the color component of two input images and creates an output image using the "
        + "multiplied values. This filter is typically used to add a spotlight or similar lighting effect to an image."
    static let formula = "Apple: R = S · D per component"
}

enum SourceAtopCompositing: CompositingFilter {
    static let operation = CompositeOperator.sourceAtop
    static let name = "CISourceAtopCompositing"
    static let displayName = "Source Atop"
    static let summary = "Places the input image over the background image, then uses the luminance of the background "
        + "image to determine what to show. The composite shows the background image and only those portions of the "
        + "source image that are over visible parts of the background."
    static let formula = "Porter-Duff source-atop: R = S·Da + D·(1 − Sa), Ra = Da"
}

enum SourceInCompositing: CompositingFilter {
    static let operation = CompositeOperator.sourceIn
    static let name = "CISourceInCompositing"
    static let displayName = "Source In"
    static let summary = "Uses the background image to define what to leave in the input image, effectively cropping "
        + "the input image."
    static let formula = "Porter-Duff source-in: R = S·Da"
}

enum SourceOutCompositing: CompositingFilter {
    static let operation = CompositeOperator.sourceOut
    static let name = "CISourceOutCompositing"
    static let displayName = "Source Out"
    static let summary = "Uses the background image to define what to take out of the input image."
    static let formula = "Porter-Duff source-out: R = S·(1 − Da)"
}
