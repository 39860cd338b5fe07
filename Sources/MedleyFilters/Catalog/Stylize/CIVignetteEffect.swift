import MedleyKernels

/// CIVignetteEffect: darkens outside a circle around a chosen centre.
///
/// Apple does not publish the maths. Medley: with d the distance from inputCenter (Core Image
/// coordinates, origin bottom-left), `out = in · (1 − intensity · smoothstep(r·(1 − falloff), r, d))`
/// for radius r: untouched inside r·(1 − falloff), fully darkened (by intensity) beyond r.
enum VignetteEffect: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIVignetteEffect",
        displayName: "Vignette Effect",
        categories: [Category.colorEffect] + Category.common,
        summary: "Modifies the brightness of an image around the periphery of a specified region.",
        reference: "out = in·(1 − inputIntensity·smoothstep(inputRadius·(1 − inputFalloff), inputRadius, d)), "
            + "d = distance to inputCenter (origin bottom-left)",
        parameters: [
            .inputImage,
            .inputCenter,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The distance from the center of the effect.",
                defaultValue: .number(150), minimum: 0, sliderMinimum: 0, sliderMaximum: 2000),
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the effect.",
                defaultValue: .number(1), identity: .number(0), minimum: -1, maximum: 1, sliderMinimum: -1, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputFalloff", type: .scalar, displayName: "Falloff",
                description: "The falloff of the effect.",
                defaultValue: .number(0.5), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("inputIntensity", 1)
        if intensity == 0 { return image }
        let center = inputs.vector("inputCenter") ?? [150, 150]
        return .point(Operation(centerX: Float(center[0]), centerYFromBottom: Float(center[1]),
                                radius: inputs.float("inputRadius", 150), intensity: intensity,
                                falloff: inputs.float("inputFalloff", 0.5)), of: image)
    }

    struct Operation: PointOperation {
        let centerX, centerYFromBottom, radius, intensity, falloff: Float

        func apply(_ block: PixelBlock) {
            // Pixel centres in Core Image coordinates: x + 0.5, height − y − 0.5.
            let dy = Float(block.imageHeight - block.y) - 0.5 - centerYFromBottom
            let inner = radius * (1 - falloff)
            block.forEachVectorWithX { x, r, g, b, _ in
                let dx = x + 0.5 - centerX
                let d = (dx * dx + dy * dy).squareRoot()
                let shade: SIMD8<Float>
                if radius <= inner + 1e-6 {
                    shade = SIMD8<Float>(repeating: 0).replacing(with: 1, where: d .>= radius)
                } else {
                    shade = VectorMath.smoothstep(inner, radius, d)
                }
                let factor = 1 - intensity * shade
                r *= factor
                g *= factor
                b *= factor
            }
        }
    }
}
