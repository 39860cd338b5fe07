import MedleyKernels

/// CIColorThreshold: each colour channel becomes 1 above the threshold, 0 at or below it.
///
/// Apple: "the red, green and blue channels of the resulting image will be one if its value is
/// greater than the threshold and zero otherwise", compared in the working space; alpha is kept.
enum ColorThreshold: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorThreshold",
        displayName: "Color Threshold",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Produces a binarized image from an image and a threshold value. The red, green and blue channels of "
            + "the resulting image will be one if its value is greater than the threshold and zero otherwise.",
        reference: "Apple: c' = c > inputThreshold ? 1 : 0 per colour channel, in the working space",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputThreshold", type: .scalar, displayName: "Threshold",
                description: "The threshold value that governs if the RGB channels of the resulting image will be zero or one.",
                defaultValue: .number(0.5), sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(threshold: inputs.float("inputThreshold", 0.5)), of: image)
    }

    struct Operation: PointOperation {
        let threshold: Float

        func apply(_ block: PixelBlock) {
            let zero = SIMD8<Float>(repeating: 0)
            block.forEachVector { r, g, b, _ in
                r = zero.replacing(with: 1, where: r .> threshold)
                g = zero.replacing(with: 1, where: g .> threshold)
                b = zero.replacing(with: 1, where: b .> threshold)
            }
        }
    }
}
