import MedleyKernels

/// CIPinchDistortion: pulls the image in towards a point. Apple publishes no maths; Medley uses
/// GPUImage's pinch with a radius: inside it, with d the distance from the centre,
/// `f = 1 + scale·(r − d)/r` and the output at p shows the input at `c + (p − c)·f`.
enum PinchDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIPinchDistortion",
        displayName: "Pinch Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Creates a rectangular area that pinches source pixels inward, distorting those pixels closest to the rectangle the most.",
        reference: "GPUImage's pinch: inside the radius, source = c + (p − c)·(1 + scale·(r − d)/r), d = |p − c|",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 300, minimum: 0, sliderMaximum: 1000),
            ParameterAttributes(
                name: "inputScale", type: .scalar, displayName: "Scale",
                description: "The amount of pinching. A value of 0.0 has no effect. A value of 1.0 is the maximum pinch.",
                defaultValue: .number(0.5), identity: .number(0), minimum: 0, maximum: 2, sliderMinimum: 0, sliderMaximum: 2),
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
            let f = 1 + scale * (radius - d) / radius
            return (center.x + dx * f, center.y + dy * f)
        }
    }
}
