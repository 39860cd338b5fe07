import MedleyKernels

/// CISharpenLuminance: sharpens detail in luminance only, so colours do not fringe.
enum SharpenLuminance: FilterDefinition {
    static let luma = SIMD3<Float>(0.2125, 0.7154, 0.0721)

    static let attributes = FilterAttributes(
        name: "CISharpenLuminance",
        displayName: "Sharpen Luminance",
        categories: [Category.sharpen] + Category.common,
        summary: "Increases image detail by sharpening. It operates on the luminance of the image; the chrominance of the pixels remains unaffected.",
        reference: "out = in + inputSharpness·(Y(in) − Y(G_σ(in))) on every channel, Y = Rec. 709 luma, σ = inputRadius",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputSharpness", type: .scalar, displayName: "Sharpness",
                description: "The amount of sharpening to apply. Larger values are sharper.",
                defaultValue: .number(0.4), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 2),
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The distance from the center of the effect.",
                defaultValue: .number(1.69), minimum: 0, sliderMinimum: 0, sliderMaximum: 20, limit: .gaussianRadius),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let sharpness = inputs.float("inputSharpness", 0.4)
        let radius = inputs.float("inputRadius", 1.69)
        if sharpness == 0 || radius <= 0.01 { return image }
        return .region(DetailKernel(.gaussian(sigma: radius)) { original, blurred, count, bands in
            for p in 0..<count {
                let o = original + p * bands, b = blurred + p * bands
                let detail = luma.x * (o[0] - b[0]) + luma.y * (o[1] - b[1]) + luma.z * (o[2] - b[2])
                for c in 0..<3 { b[c] = o[c] + sharpness * detail }
                if bands == 4 { b[3] = o[3] }
            }
        }, of: image)
    }
}
