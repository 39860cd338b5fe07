import MedleyKernels

/// CIColorControls: saturation, brightness and contrast. All three are affine, so the filter is
/// one colour matrix: saturation mixes each pixel with its Rec. 709 luma, brightness adds, and
/// contrast scales around mid-grey.
enum ColorControls: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorControls",
        displayName: "Color Controls",
        categories: [Category.colorAdjustment] + Category.common + [Category.xmpSerializable],
        summary: "Adjusts saturation, brightness, and contrast values.",
        reference: "Apple: saturation = mix(luma, rgb, s) with Rec. 709 luma (0.2125, 0.7154, 0.0721), "
            + "brightness = rgb + b, contrast = (rgb − 0.5)·c + 0.5, applied in that order",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputSaturation", type: .scalar, displayName: "Saturation",
                description: "The amount of saturation to apply. The larger the value, the more saturated the result.",
                defaultValue: .number(1), identity: .number(1), minimum: 0, sliderMinimum: 0, sliderMaximum: 2),
            ParameterAttributes(
                name: "inputBrightness", type: .scalar, displayName: "Brightness",
                description: "The amount of brightness to apply. The larger the value, the brighter the result.",
                defaultValue: .number(0), identity: .number(0), sliderMinimum: -1, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputContrast", type: .scalar, displayName: "Contrast",
                description: "The amount of contrast to apply. The larger the value, the more contrast in the resulting image.",
                defaultValue: .number(1), identity: .number(1), minimum: 0, sliderMinimum: 0.25, sliderMaximum: 4),
        ])

    static let luma = SIMD3<Float>(0.2125, 0.7154, 0.0721)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let s = inputs.float("inputSaturation", 1)
        let brightness = inputs.float("inputBrightness", 0)
        let c = inputs.float("inputContrast", 1)
        // saturation: out = luma·(1 − s) + rgb·s, as rows: s·I + (1 − s)·[luma; luma; luma]
        let saturation = ColorMatrix(rows: (0..<3).map { i in
            var row = luma * (1 - s)
            row[i] += s
            return row
        })
        let shift = ColorMatrix(rows: ColorMatrix.identity.rows, bias: SIMD3(repeating: brightness))
        let contrast = ColorMatrix(rows: ColorMatrix.identity.rows.map { $0 * c },
                                   bias: SIMD3(repeating: 0.5 * (1 - c)))
        return .colorMatrix(contrast.after(shift.after(saturation)), of: image)
    }
}
