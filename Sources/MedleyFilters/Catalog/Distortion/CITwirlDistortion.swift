import MedleyKernels

/// CITwirlDistortion: rotates pixels around a point to give a twirling effect. Apple publishes no maths; Medley uses GPUImage's swirl: inside the
/// radius, with t = (r − d)/r (d the distance from the centre), the output at p shows the input at
/// p rotated about the centre by θ = angle·t².
enum TwirlDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CITwirlDistortion",
        displayName: "Twirl Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Rotates pixels around a point to give a twirling effect.",
        reference: "GPUImage's swirl: inside the radius, source = p rotated about c by angle·((r − d)/r)², d = |p − c|",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 300, minimum: 0, sliderMaximum: 500),
            ParameterAttributes(
                name: "inputAngle", type: .angle, displayName: "Angle",
                description: "The angle (in radians) of the twirl. Values can be positive or negative.",
                defaultValue: .number(3.141592653589793), identity: .number(0), sliderMinimum: -12.566370614359172, sliderMaximum: 12.566370614359172),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 3.141592653589793, radius = inputs.number("inputRadius") ?? 300
        if angle == 0 || radius == 0 { return image }
        return DistortionGroup.warp(DistortionGroup.Swirl(center: DistortionGroup.center(inputs), radius: radius, angle: angle, power: 2),
                                    of: image, name: attributes.name)
    }
}
