import MedleyKernels

/// CIDiscBlur: the mean over a disc, like an out-of-focus lens with a round aperture.
enum DiscBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIDiscBlur",
        displayName: "Disc Blur",
        categories: [Category.blur] + Category.common,
        summary: "Smooths an image using a disc-shaped convolution kernel.",
        reference: "mean over the pixels with dx² + dy² ≤ inputRadius² (uniform disc), premultiplied alpha, edges extended; "
            + "computed from running sums along rows",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the blur. The larger the radius, the blurrier the result.",
                defaultValue: .number(8), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 100, limit: .blurReach),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = inputs.number("inputRadius") ?? 8
        if radius < 1 { return image }
        return .region(DiscBlurKernel(radius: radius), of: image)
    }
}
