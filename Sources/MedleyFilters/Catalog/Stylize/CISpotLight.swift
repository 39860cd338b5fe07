import MedleyKernels

/// CISpotLight: lights the image, lying flat at z = 0, with a directional spotlight.
enum SpotLight: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CISpotLight",
        displayName: "Spot Light",
        categories: [Category.stylize] + Category.common,
        summary: "Applies a directional spotlight effect to an image.",
        reference: "SVG 1.1 feSpotLight with diffuse lighting of a flat surface (N = (0, 0, 1)): with L = unit(light − P) and "
            + "S = unit(pointsAt − light), out = in·color·brightness·max(N·L, 0)·max(−L·S, 0)^concentration "
            + "(Core Image coordinates, origin bottom-left; alpha kept)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputLightPosition", type: .position3, displayName: "Light Position",
                description: "The x and y position of the spotlight.",
                defaultValue: .vector([400, 600, 150])),
            ParameterAttributes(
                name: "inputLightPointsAt", type: .position3, displayName: "Light Points At",
                description: "The x and y position that the light points at.",
                defaultValue: .vector([200, 200, 0])),
            ParameterAttributes(
                name: "inputBrightness", type: .distance, displayName: "Brightness",
                description: "The brightness of the spotlight.",
                defaultValue: .number(3), minimum: 0, sliderMinimum: 0, sliderMaximum: 10),
            ParameterAttributes(
                name: "inputConcentration", type: .scalar, displayName: "Concentration",
                description: "The spotlight size. The smaller the value, the more tightly focused the light beam.",
                defaultValue: .number(0.1), minimum: 0.001, sliderMinimum: 0.001, sliderMaximum: 1.5),
            ParameterAttributes(
                name: "inputColor", type: .opaqueColor, displayName: "Color",
                description: "The color of the spotlight.",
                defaultValue: .color(red: 1, green: 1, blue: 1, alpha: 1)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let light = (inputs.vector("inputLightPosition") ?? [400, 600, 150]).map { Float($0) }
        let target = (inputs.vector("inputLightPointsAt") ?? [200, 200, 0]).map { Float($0) }
        let colour = inputs.color("inputColor") ?? SIMD4(1, 1, 1, 1)
        var axis = SIMD3(target[0] - light[0], target[1] - light[1], target[2] - light[2])
        let length = (axis * axis).sum().squareRoot()
        axis = length > 0 ? axis / length : SIMD3(0, 0, -1)
        return .point(Operation(light: SIMD3(light[0], light[1], light[2]), axis: axis,
                                colour: SIMD3(colour.x, colour.y, colour.z) * inputs.float("inputBrightness", 3),
                                concentration: inputs.float("inputConcentration", 0.1)), of: image)
    }

    struct Operation: PointOperation {
        let light: SIMD3<Float>
        let axis: SIMD3<Float>
        /// Colour × brightness.
        let colour: SIMD3<Float>
        let concentration: Float

        func apply(_ block: PixelBlock) {
            // Pixel centres in Core Image coordinates: x + 0.5, height − y − 0.5, z = 0.
            let py = Float(block.imageHeight - block.y) - 0.5
            block.forEachVectorWithX { x, r, g, b, _ in
                let lx = SIMD8(repeating: light.x) - (x + 0.5), ly = SIMD8(repeating: light.y - py)
                let lz = SIMD8<Float>(repeating: light.z)
                let length = (lx * lx + ly * ly + lz * lz).squareRoot()
                let inverse = (1 / length).replacing(with: 0, where: length .<= 0)
                let nl = VectorMath.clamp(lz * inverse, 0, .greatestFiniteMagnitude)
                let cone = VectorMath.clamp(-(lx * axis.x + ly * axis.y + lz * axis.z) * inverse, 0, 1)
                let shade = nl * VectorMath.pow(cone, concentration)
                r *= shade * colour.x
                g *= shade * colour.y
                b *= shade * colour.z
            }
        }
    }
}
