import MedleyKernels

/// CIWhitePointAdjust: scales each channel by the given colour — a diagonal colour matrix, so
/// white becomes that colour and every other colour follows.
///
/// Apple does not publish the maths; `out = in · color` per channel (colour alpha ignored) is the
/// von Kries-style diagonal scaling, applied in the working space with the colour's components
/// taken as working-space values.
enum WhitePointAdjust: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIWhitePointAdjust",
        displayName: "White Point Adjust",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Adjusts the reference white point for an image and maps all colors in the source using the new reference.",
        reference: "diagonal (von Kries-style) scaling: out.rgb = in.rgb · inputColor.rgb, in the working space",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputColor", type: .color, displayName: "Color",
                description: "A color to use as the white point.",
                defaultValue: .color(red: 1, green: 1, blue: 1, alpha: 1),
                identity: .color(red: 1, green: 1, blue: 1, alpha: 1)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let color = inputs.color("inputColor") ?? SIMD4(1, 1, 1, 1)
        return .colorMatrix(ColorMatrix(rows: [SIMD3(color.x, 0, 0), SIMD3(0, color.y, 0), SIMD3(0, 0, color.z)]),
                            of: image)
    }
}
