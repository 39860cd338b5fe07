import MedleyKernels

/// CIVignette: darkens towards the edges, around the image centre.
///
/// Apple does not publish the maths. Medley uses a smooth radial falloff: with d the distance
/// from the centre divided by half the image diagonal (0 at the centre, 1 at a corner),
/// `out = in · (1 − intensity · smoothstep(0.5·radius, radius + 0.5, d))` — radius moves the
/// start of the darkening outwards, intensity sets how dark the corners get; negative
/// intensity brightens them.
enum Vignette: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIVignette",
        displayName: "Vignette",
        categories: [Category.colorEffect] + Category.common,
        summary: "Applies a vignette shading to the corners of an image.",
        reference: "smooth radial falloff: out = in·(1 − intensity·smoothstep(0.5·radius, radius + 0.5, d)), "
            + "d = distance from centre / half diagonal",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the effect.",
                defaultValue: .number(0), identity: .number(0), minimum: -1, maximum: 1,
                sliderMinimum: -1, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "The distance from the center of the effect.",
                defaultValue: .number(1), minimum: 0, maximum: 2, sliderMinimum: 0, sliderMaximum: 2),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("inputIntensity", 0)
        if intensity == 0 { return image }
        return .point(Operation(intensity: intensity, radius: inputs.float("inputRadius", 1)), of: image)
    }

    struct Operation: PointOperation {
        let intensity: Float
        let radius: Float

        func apply(_ block: PixelBlock) {
            let cx = Float(block.imageWidth) / 2, cy = Float(block.imageHeight) / 2
            let halfDiagonal = (cx * cx + cy * cy).squareRoot()
            let dy = Float(block.y) + 0.5 - cy
            block.forEachVectorWithX { x, r, g, b, _ in
                let dx = x + 0.5 - cx
                let d = (dx * dx + dy * dy).squareRoot() / halfDiagonal
                let factor = 1 - intensity * VectorMath.smoothstep(0.5 * radius, radius + 0.5, d)
                r *= factor
                g *= factor
                b *= factor
            }
        }
    }
}
