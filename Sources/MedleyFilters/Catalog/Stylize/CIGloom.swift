import MedleyKernels

/// CIGloom: dulls the highlights, from a blurred copy multiplied into the image.
enum Gloom: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIGloom",
        displayName: "Gloom",
        categories: [Category.stylize] + Category.common + [Category.highDynamicRange],
        summary: "Dulls the highlights of an image.",
        reference: "out = mix(in, in·G_σ(in), inputIntensity), the blurred copy multiply-blended into the image "
            + "(σ = inputRadius, linear light, alpha kept)",
        parameters: GlowParameters.list)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        GlowParameters.output(inputs) { o, g, t in o + t * (o * g - o) }
    }
}
