import MedleyKernels

/// CINoiseReduction: smooths small differences (noise) and keeps large ones (edges), then
/// sharpens what was kept.
enum NoiseReduction: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CINoiseReduction",
        displayName: "Noise Reduction",
        categories: [Category.blur] + Category.common,
        summary: "Reduces noise using a threshold value to define what is considered noise.",
        reference: "detail d = in − G_1(in); soft threshold: d' = sign(d)·max(|d| − inputNoiseLevel, 0); "
            + "out = G_1(in) + d'·(1 + inputSharpness) (wavelet-style shrinkage on a Gaussian split)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputNoiseLevel", type: .scalar, displayName: "Noise Level",
                description: "The amount of noise reduction. The larger the value, the more noise reduction.",
                defaultValue: .number(0.02), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 0.1),
            ParameterAttributes(
                name: "inputSharpness", type: .scalar, displayName: "Sharpness",
                description: "The sharpness of the final image. The larger the value, the sharper the result.",
                defaultValue: .number(0.4), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 2),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let level = inputs.float("inputNoiseLevel", 0.02)
        let sharpness = inputs.float("inputSharpness", 0.4)
        if level == 0 && sharpness == 0 { return image }
        return .region(DetailKernel(.gaussian(sigma: 1)) { original, blurred, count, bands in
            for i in 0..<count * bands where i % bands < 3 {
                let detail = original[i] - blurred[i]
                let kept = detail > level ? detail - level : (detail < -level ? detail + level : 0)
                blurred[i] += kept * (1 + sharpness)
            }
            if bands == 4 { for i in stride(from: 3, to: count * 4, by: 4) { blurred[i] = original[i] } }
        }, of: image)
    }
}
