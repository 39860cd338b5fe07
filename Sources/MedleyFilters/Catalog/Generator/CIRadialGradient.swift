import MedleyKernels

/// CIRadialGradient: colour 0 inside radius 0, colour 1 beyond radius 1, blended between in the
/// working space.
enum RadialGradient: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIRadialGradient",
        displayName: "Radial Gradient",
        categories: [Category.gradient] + Category.generated,
        summary: "Generates a gradient that varies radially between two circles having the same center.",
        reference: "t = clamp((|p − center| − radius0) / (radius1 − radius0), 0, 1); out = mix(color0, color1, t) in the working space",
        parameters: [
            .inputCenter,
            ParameterAttributes(
                name: "inputRadius0", type: .distance, displayName: "Radius 1",
                description: "The radius of the starting circle to use in the gradient.",
                defaultValue: .number(5), minimum: 0, sliderMinimum: 0, sliderMaximum: 800),
            ParameterAttributes(
                name: "inputRadius1", type: .distance, displayName: "Radius 2",
                description: "The radius of the ending circle to use in the gradient.",
                defaultValue: .number(100), minimum: 0, sliderMinimum: 0, sliderMaximum: 800),
        ] + GeneratorGroup.colorParameters("The first color to use in the gradient.", "The second color to use in the gradient."))

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        let (c0, c1) = GeneratorGroup.colors(inputs)
        return GeneratorGroup.image(Operation(center: GeneratorGroup.point(inputs, "inputCenter", [150, 150]),
                                              r0: inputs.number("inputRadius0") ?? 5, r1: inputs.number("inputRadius1") ?? 100,
                                              color0: c0, color1: c1))
    }

    struct Operation: PointOperation {
        let center: SIMD2<Double>
        let r0: Double
        let r1: Double
        let color0: SIMD4<Float>
        let color1: SIMD4<Float>

        func apply(_ block: PixelBlock) {
            block.forEachVectorWithX { x, r, g, b, a in
                for lane in 0..<8 {
                    let d = GeneratorGroup.position(block, x, lane) - center
                    let distance = (d * d).sum().squareRoot()
                    let t = r1 != r0 ? min(max((distance - r0) / (r1 - r0), 0), 1) : (distance < r0 ? 0 : 1)
                    GeneratorGroup.store(color0 + (color1 - color0) * Float(t), lane, &r, &g, &b, &a)
                }
            }
        }
    }
}
