import MedleyKernels

/// CISepiaTone: maps colours to a warm brown monochrome, blended with the original by intensity.
///
/// Apple does not publish the maths; this is the open formulation GPUImage and Harbeth use:
/// `out = mix(in, M · in, intensity)`, applied in the working (linear) colour space.
enum SepiaTone: FilterDefinition {
    static let sepiaMatrix = ColorMatrix(rows: [
        SIMD3(0.3588, 0.7044, 0.1368),
        SIMD3(0.2990, 0.5870, 0.1140),
        SIMD3(0.2392, 0.4696, 0.0912),
    ])

    static let attributes = FilterAttributes(
        name: "CISepiaTone",
        displayName: "Sepia Tone",
        categories: [Category.colorEffect] + Category.common + [Category.xmpSerializable],
        summary: "Maps the colors of an image to various shades of brown.",
        reference: "out = mix(in, M·in, inputIntensity), M = [[.3588 .7044 .1368] [.2990 .5870 .1140] "
            + "[.2392 .4696 .0912]] (GPUImage / Harbeth sepia matrix), in linear light",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the sepia effect. A value of 1.0 creates a monochrome "
                    + "sepia image. A value of 0.0 has no effect on the image.",
                defaultValue: .number(1), identity: .number(0),
                minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = Float(inputs.number("inputIntensity") ?? 1)
        return .colorMatrix(ColorMatrix.identity.mixed(with: sepiaMatrix, amount: intensity), of: image)
    }
}
