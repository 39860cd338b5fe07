import MedleyKernels

/// CIDither: adds fine random noise, as dithering before quantisation does.
///
/// Apple publishes no maths. Medley adds uniform white noise of width `inputIntensity`
/// (`c' = c + intensity·(u − ½)`) to the sRGB-encoded red, green and blue — a perceptual space, as
/// dithering wants — with u from a hash of the pixel's position and channel (PCG hash, Jarzynski &
/// Olano 2020), so the same image always gets the same noise.
enum Dither: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIDither",
        displayName: "Dither",
        categories: [Category.colorEffect] + Category.common,
        summary: "Apply dithering to an image. This operation is usually performed in a perceptual color space.",
        reference: "uniform white noise: c' = c + intensity·(u − ½) on sRGB-encoded values, u = PCG hash of (x, y, channel) "
            + "(Jarzynski & Olano, Hash Functions for GPU Rendering, JCGT 2020)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the effect.",
                defaultValue: .number(0.1), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 5),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("inputIntensity", 0.1)
        if intensity == 0 { return image }
        return .point(DitherOperation(intensity: intensity, encoded: inputs.workingSpace == .sRGB), of: image)
    }
}
