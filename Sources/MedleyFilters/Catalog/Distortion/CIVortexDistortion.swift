import MedleyKernels

/// CIVortexDistortion: rotates pixels around a point to simulate a vortex. Apple publishes no maths; Medley uses a swirl with a cubic falloff (Medley's): inside the
/// radius, with t = (r − d)/r (d the distance from the centre), the output at p shows the input at
/// p rotated about the centre by θ = angle·t³.
enum VortexDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIVortexDistortion",
        displayName: "Vortex Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Rotates pixels around a point to simulate a vortex.",
        reference: "a swirl with a cubic falloff (Medley's): inside the radius, source = p rotated about c by angle·((r − d)/r)³, d = |p − c|",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 300, minimum: 0, sliderMaximum: 800),
            ParameterAttributes(
                name: "inputAngle", type: .angle, displayName: "Angle",
                description: "The angle (in radians) of the vortex.",
                defaultValue: .number(56.55), identity: .number(0), sliderMinimum: -94.25, sliderMaximum: 94.25),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 56.55, radius = inputs.number("inputRadius") ?? 300
        if angle == 0 || radius == 0 { return image }
        return DistortionGroup.warp(DistortionGroup.Swirl(center: DistortionGroup.center(inputs), radius: radius, angle: angle, power: 3),
                                    of: image, name: attributes.name)
    }
}
