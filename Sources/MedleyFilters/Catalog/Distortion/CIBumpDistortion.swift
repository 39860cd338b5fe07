import MedleyKernels

/// CIBumpDistortion: a bulge (scale > 0) or dent (scale < 0) within a radius. Apple publishes no
/// maths; Medley uses GPUImage's bulge: inside the radius, with d the distance from the centre,
/// `f = (1 − scale·(r − d)/r)²` and the output at p shows the input at `c + (p − c)·f`.
enum BumpDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIBumpDistortion",
        displayName: "Bump Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Creates a concave or convex bump that originates at a specified point in the image.",
        reference: "GPUImage's bulge: inside the radius, source = c + (p − c)·(1 − scale·(r − d)/r)², d = |p − c|",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 300, minimum: 0, sliderMaximum: 600),
            ParameterAttributes(
                name: "inputScale", type: .scalar, displayName: "Scale",
                description: "The scale of the effect determines the curvature of the bump. A value of 0.0 has no effect. Positive values create an outward bump; negative values create an inward bump.",
                defaultValue: .number(0.5), identity: .number(0), sliderMinimum: -1, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let scale = inputs.number("inputScale") ?? 0.5, radius = inputs.number("inputRadius") ?? 300
        if scale == 0 || radius == 0 { return image }
        return DistortionGroup.warp(Map(center: DistortionGroup.center(inputs), radius: radius, scale: scale),
                                    of: image, name: attributes.name)
    }

    struct Map: WarpMap {
        let center: (x: Double, y: Double)
        let radius: Double
        let scale: Double

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            let dx = x - center.x, dy = y - center.y
            let d = (dx * dx + dy * dy).squareRoot()
            guard d < radius else { return (x, y) }
            let f = 1 - scale * (radius - d) / radius
            return (center.x + dx * f * f, center.y + dy * f * f)
        }
    }
}
