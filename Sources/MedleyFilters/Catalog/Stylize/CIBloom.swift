import MedleyKernels

/// CIBloom: a soft glow around the bright parts, from a blurred copy screened over the image.
enum Bloom: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIBloom",
        displayName: "Bloom",
        categories: [Category.stylize] + Category.common + [Category.highDynamicRange],
        summary: "Softens edges and applies a pleasant glow to an image.",
        reference: "out = mix(in, 1 − (1 − in)·(1 − G_σ(in)), inputIntensity), the blurred copy screen-blended over the "
            + "image (σ = inputRadius, linear light, alpha kept)",
        parameters: GlowParameters.list)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        GlowParameters.output(inputs) { o, g, t in o + t * ((1 - (1 - o) * (1 - g)) - o) }
    }
}

/// What bloom and gloom share: their two parameters and the blur-and-combine recipe.
enum GlowParameters {
    static let list: [ParameterAttributes] = [
        .inputImage,
        ParameterAttributes(
            name: "inputRadius", type: .distance, displayName: "Radius",
            description: "The radius determines how many pixels are used to create the effect. The larger the radius, the greater the effect.",
            defaultValue: .number(10), minimum: 0, sliderMinimum: 0, sliderMaximum: 100, limit: .gaussianRadius),
        ParameterAttributes(
            name: "inputIntensity", type: .scalar, displayName: "Intensity",
            description: "The intensity of the effect. A value of 0.0 is no effect. A value of 1.0 is the maximum effect.",
            defaultValue: .number(0.5), identity: .number(0), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
    ]

    static func output(_ inputs: FilterInputs,
                       _ blend: @escaping @Sendable (_ original: Float, _ glow: Float, _ intensity: Float) -> Float) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("inputIntensity", 0.5), radius = inputs.float("inputRadius", 10)
        if intensity == 0 || radius <= 0.01 { return image }
        return .region(GaussianCombineKernel(sigma: radius) { original, blurred, count, bands in
            for p in 0..<count {
                for c in 0..<3 { blurred[p * bands + c] = blend(original[p * bands + c], blurred[p * bands + c], intensity) }
                if bands == 4 { blurred[p * 4 + 3] = original[p * 4 + 3] }
            }
        }, of: image)
    }
}
