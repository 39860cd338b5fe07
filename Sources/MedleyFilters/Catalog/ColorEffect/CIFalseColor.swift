import MedleyKernels

/// CIFalseColor: maps luma onto a ramp between two colours.
///
/// Apple does not publish the maths. Medley uses the linear ramp `out = mix(color0, color1, luma)`
/// with Rec. 709 luma, in the working space (linear light): affine in the pixel, so one colour
/// matrix. The colours' alpha is ignored; the image's alpha passes through.
enum FalseColor: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIFalseColor",
        displayName: "False Color",
        categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
        summary: "Maps luminance to a color ramp of two colors. False color is often used to process "
            + "astronomical and other scientific data, such as ultraviolet and x-ray images.",
        reference: "out = mix(color0, color1, luma), luma = 0.2126·r + 0.7152·g + 0.0722·b (Rec. 709), in the "
            + "working space (linear light; the colours converted into it, as Core Image colour-matches CIColor)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputColor0", type: .color, displayName: "Color 1",
                description: "The first color to use for the color ramp.",
                defaultValue: .color(red: 0.3, green: 0, blue: 0, alpha: 1)),
            ParameterAttributes(
                name: "inputColor1", type: .color, displayName: "Color 2",
                description: "The second color to use for the color ramp.",
                defaultValue: .color(red: 1, green: 0.9, blue: 0.8, alpha: 1)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        // As Core Image: no output without either colour; a missing one is clear (black).
        let color0 = inputs.color("inputColor0"), color1 = inputs.color("inputColor1")
        guard let image = inputs.image("inputImage"), color0 != nil || color1 != nil else { return nil }
        let dark = color0.map { SIMD3($0.x, $0.y, $0.z) } ?? .zero
        let light = color1.map { SIMD3($0.x, $0.y, $0.z) } ?? .zero
        // dark + luma·(light − dark)
        return .colorMatrix(ColorEffectMaths.lumaTimes(light - dark, bias: dark), of: image)
    }
}
