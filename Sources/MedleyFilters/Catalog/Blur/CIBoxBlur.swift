import MedleyKernels

/// CIBoxBlur: the mean of a (2·radius + 1)² square, separable.
enum BoxBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIBoxBlur",
        displayName: "Box Blur",
        categories: [Category.blur] + Category.common,
        summary: "Blurs an image using a box-shaped convolution kernel.",
        reference: "separable box of 2·round(inputRadius) + 1 taps per axis, premultiplied alpha, edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the blur. The larger the radius, the blurrier the result.",
                defaultValue: .number(10), minimum: 1, maximum: 100, sliderMinimum: 1, sliderMaximum: 100),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = Int(saturating: inputs.number("inputRadius") ?? 10, in: 1...100)
        return .region(BlurKernel(.box(radius: radius)), of: image)
    }
}
