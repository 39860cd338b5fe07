import MedleyKernels

/// CIUnsharpMask: `in + intensity · (in − gaussian(in, radius))`, the classic darkroom mask.
enum UnsharpMask: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIUnsharpMask",
        displayName: "Unsharp Mask",
        categories: [Category.sharpen] + Category.common,
        summary: "Increases the contrast of the edges between pixels of different colors in an image.",
        reference: "out = in + inputIntensity·(in − G_σ(in)), σ = inputRadius (linear light, alpha kept)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius around a given pixel to apply the unsharp mask. The larger the radius, the more of the image is affected.",
                defaultValue: .number(2.5), minimum: 0, sliderMinimum: 0, sliderMaximum: 100, limit: .gaussianRadius),
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the effect. The larger the value, the more contrast in the affected area.",
                defaultValue: .number(0.5), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("inputIntensity", 0.5)
        let radius = inputs.float("inputRadius", 2.5)
        if intensity == 0 || radius <= 0.01 { return image }
        return .region(DetailKernel(.gaussian(sigma: radius)) { original, blurred, count, bands in
            for i in 0..<count * bands where i % bands < 3 {
                blurred[i] = original[i] + intensity * (original[i] - blurred[i])
            }
            if bands == 4 { for i in stride(from: 3, to: count * 4, by: 4) { blurred[i] = original[i] } }
        }, of: image)
    }
}
