import MedleyKernels

/// CIGaussianBlur: a separable Gaussian whose standard deviation is `inputRadius`, on
/// premultiplied linear light.
enum GaussianBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIGaussianBlur",
        displayName: "Gaussian Blur",
        categories: [Category.blur] + Category.common,
        summary: "Spreads source pixels by an amount specified by a Gaussian distribution.",
        reference: "Gaussian, σ = inputRadius, premultiplied alpha, edges extended: exact separable taps to ±3σ for σ ≤ 3; "
            + "above, three running-sum boxes of nearly the same variance (Kovesi 2010), within 0.002 of the exact result "
            + "on smooth content and ~1.5 % of the step at hard edges",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the blur. The larger the radius, the blurrier the result.",
                defaultValue: .number(10), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 100, limit: .gaussianRadius),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = inputs.float("inputRadius", 10)
        if radius <= 0.01 { return image }
        return .region(GaussianBlurKernel(sigma: radius), of: image)
    }
}
