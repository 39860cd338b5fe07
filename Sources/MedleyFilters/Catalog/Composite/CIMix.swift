import MedleyKernels

/// CIMix: interpolates between `inputBackgroundImage` and `inputImage` by `inputAmount`, on
/// premultiplied pixels; Apple: 0 or less gives the background, 1 or more the image.
enum Mix: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMix",
        displayName: "Mix",
        categories: [Category.compositeOperation] + Category.common,
        summary: "Uses an amount parameter to interpolate between an image and a background image. When value is 0.0 "
            + "or less, the result is the background image. When the value is 1.0 or more, the result is the image.",
        reference: "Apple: R = D + (S − D)·clamp(inputAmount, 0, 1) on premultiplied RGBA (S the input image, D the background)",
        parameters: [
            .inputImage,
            .inputBackgroundImage,
            ParameterAttributes(
                name: "inputAmount", type: .scalar, displayName: "Amount",
                description: "The amount of the effect.",
                defaultValue: .number(1), sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"), let background = inputs.image("inputBackgroundImage") else {
            return nil
        }
        let amount = inputs.float("inputAmount", 1).clampedToUnit
        return .composite(CompositeKernel(.mix(amount)), foreground: image, background: background)
    }
}
