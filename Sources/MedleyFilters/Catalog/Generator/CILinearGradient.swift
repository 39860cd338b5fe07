import MedleyKernels

/// CILinearGradient: colour 0 at point 0 to colour 1 at point 1, constant beyond both, blended in
/// the working space (linear light by default, as Core Image's is).
enum LinearGradient: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CILinearGradient",
        displayName: "Linear Gradient",
        categories: [Category.gradient] + Category.generated,
        summary: "Generates a gradient that varies along a linear axis between two defined endpoints.",
        reference: "t = clamp(((p − p0)·(p1 − p0)) / |p1 − p0|², 0, 1); out = mix(color0, color1, t) in the working space",
        parameters: [
            ParameterAttributes(
                name: "inputPoint0", type: .position, displayName: "Point 0",
                description: "The starting position of the gradient -- where the first color begins.",
                defaultValue: .vector([0, 0])),
            ParameterAttributes(
                name: "inputPoint1", type: .position, displayName: "Point 1",
                description: "The ending position of the gradient -- where the second color begins.",
                defaultValue: .vector([200, 200])),
        ] + GeneratorGroup.colorParameters("The first color to use in the gradient.", "The second color to use in the gradient."))

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        let (c0, c1) = GeneratorGroup.colors(inputs)
        return GeneratorGroup.image(Operation(p0: GeneratorGroup.point(inputs, "inputPoint0", [0, 0]),
                                              p1: GeneratorGroup.point(inputs, "inputPoint1", [200, 200]),
                                              color0: c0, color1: c1, smooth: false))
    }

    /// Also CISmoothLinearGradient's, with `smooth`: t goes through smoothstep.
    struct Operation: PointOperation {
        let p0: SIMD2<Double>
        let p1: SIMD2<Double>
        let color0: SIMD4<Float>
        let color1: SIMD4<Float>
        let smooth: Bool

        func apply(_ block: PixelBlock) {
            let axis = p1 - p0
            let length2 = (axis * axis).sum()
            block.forEachVectorWithX { x, r, g, b, a in
                for lane in 0..<8 {
                    let d = GeneratorGroup.position(block, x, lane) - p0
                    var t = length2 > 0 ? min(max((d * axis).sum() / length2, 0), 1) : 0
                    if smooth { t = t * t * (3 - 2 * t) }
                    let c = color0 + (color1 - color0) * Float(t)
                    GeneratorGroup.store(c, lane, &r, &g, &b, &a)
                }
            }
        }
    }
}
