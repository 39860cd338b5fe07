import MedleyKernels

/// CIColorMonochrome: each pixel's luma times one colour, blended with the original by intensity.
///
/// Apple does not publish the maths. Medley uses the plain tint: `out = mix(in, luma · color,
/// intensity)` with Rec. 709 luma, in the working space (linear light). It is affine, so it is
/// one colour matrix and fuses with its neighbours. So white becomes the colour as written.
enum ColorMonochrome: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorMonochrome",
        displayName: "Color Monochrome",
        categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
        summary: "Remaps colors so they fall within shades of a single color.",
        reference: "out = mix(in, luma·color, inputIntensity), luma = 0.2126·r + 0.7152·g + 0.0722·b (Rec. 709), "
            + "in the working space (linear light; inputColor converted into it, as Core Image colour-matches CIColor)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputColor", type: .opaqueColor, displayName: "Color",
                description: "The monochrome color to apply to the image.",
                defaultValue: .color(red: 0.6, green: 0.45, blue: 0.3, alpha: 1)),
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the monochrome effect. A value of 1.0 creates a monochrome image "
                    + "using the supplied color. A value of 0.0 has no effect on the image.",
                defaultValue: .number(1), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        // Core Image gives no output without a colour.
        guard let image = inputs.image("inputImage"), let color = inputs.color("inputColor") else { return nil }
        let tint = SIMD3(color.x, color.y, color.z)
        let intensity = inputs.float("inputIntensity", 1)
        return .colorMatrix(ColorMatrix.identity.mixed(with: ColorEffectMaths.lumaTimes(tint), amount: intensity),
                            of: image)
    }
}
