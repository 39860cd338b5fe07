import MedleyKernels

/// CILineOverlay: the image's edges as black lines, the rest transparent: noise reduction, then
/// an edge detector, a threshold and a contrast.
enum LineOverlay: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CILineOverlay",
        displayName: "Line Overlay",
        categories: [Category.builtIn, Category.stillImage, Category.video, Category.stylize],
        summary: "Creates a sketch that outlines the edges of an image in black, leaving the non-outlined portions of the image transparent.",
        reference: "CINoiseReduction(inputNRNoiseLevel, inputNRSharpness), then alpha m = clamp((inputEdgeIntensity·|Sobel ∇Y| − "
            + "inputThreshold)·inputContrast, 0, 1) on black, Y = Rec. 709 luma. An image without an alpha band stays opaque: "
            + "the lines are drawn over white (rgb = 1 − m)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputNRNoiseLevel", type: .scalar, displayName: "NR Noise Level",
                description: "The noise level of the image (used with camera data) that gets removed before tracing the edges of the image. Increasing the noise level helps to clean up the traced edges of the image.",
                defaultValue: .number(0.07), minimum: 0, sliderMinimum: 0, sliderMaximum: 0.1),
            ParameterAttributes(
                name: "inputNRSharpness", type: .scalar, displayName: "NR Sharpness",
                description: "The amount of sharpening done when removing noise in the image before tracing the edges of the image. This improves the edge acquisition.",
                defaultValue: .number(0.71), minimum: 0, sliderMinimum: 0, sliderMaximum: 2),
            ParameterAttributes(
                name: "inputEdgeIntensity", type: .scalar, displayName: "Edge Intensity",
                description: "The accentuation factor of the Sobel gradient information when tracing the edges of the image. Higher values find more edges, although typically a low value (such as 1.0) is used.",
                defaultValue: .number(1), minimum: 0, sliderMinimum: 0, sliderMaximum: 200),
            ParameterAttributes(
                name: "inputThreshold", type: .scalar, displayName: "Threshold",
                description: "This value determines edge visibility. Larger values thin out the edges.",
                defaultValue: .number(0.1), minimum: 0, sliderMinimum: 0, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputContrast", type: .scalar, displayName: "Contrast",
                description: "The amount of anti-aliasing to use on the edges produced by this filter. Higher values produce higher contrast edges (they are less anti-aliased).",
                defaultValue: .number(50), minimum: 0.25, sliderMinimum: 0.25, sliderMaximum: 200),
        ])

    /// The noise-reduced image the lines are traced on (CINoiseReduction's own recipe).
    static func denoised(_ image: FilterImage, level: Double, sharpness: Double, _ inputs: FilterInputs) -> FilterImage {
        NoiseReduction.outputImage(FilterInputs(
            values: ["inputImage": .image(image), "inputNoiseLevel": .number(level), "inputSharpness": .number(sharpness)],
            workingSpace: inputs.workingSpace)) ?? image
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let clean = denoised(image, level: inputs.number("inputNRNoiseLevel") ?? 0.07,
                             sharpness: inputs.number("inputNRSharpness") ?? 0.71, inputs)
        return .region(LineKernel(intensity: inputs.float("inputEdgeIntensity", 1), threshold: inputs.float("inputThreshold", 0.1),
                                  contrast: inputs.float("inputContrast", 50), output: .overlay), of: clean)
    }
}
