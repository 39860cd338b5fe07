import MedleyKernels

/// CISmoothLinearGradient: as CILinearGradient, with the blend eased by smoothstep (Apple: "uses
/// an S-curve function to blend colors").
enum SmoothLinearGradient: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CISmoothLinearGradient",
        displayName: "Smooth Linear Gradient",
        categories: [Category.gradient] + Category.generated,
        summary: "Generates a gradient that varies along a linear axis between two defined endpoints.",
        reference: "t = smoothstep(0, 1, clamp(((p − p0)·(p1 − p0)) / |p1 − p0|², 0, 1)); out = mix(color0, color1, t) in the working space",
        parameters: LinearGradient.attributes.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        let (c0, c1) = GeneratorGroup.colors(inputs)
        return GeneratorGroup.image(LinearGradient.Operation(p0: GeneratorGroup.point(inputs, "inputPoint0", [0, 0]),
                                                             p1: GeneratorGroup.point(inputs, "inputPoint1", [200, 200]),
                                                             color0: c0, color1: c1, smooth: true))
    }
}
