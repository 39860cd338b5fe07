import MedleyKernels

/// CIEdgeWork: a black-and-white rendering like a woodblock cut: white strokes where the image is
/// darker than its surroundings.
enum EdgeWork: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIEdgeWork",
        displayName: "Edge Work",
        categories: [Category.stylize] + Category.common,
        summary: "Produces a stylized black-and-white rendition of an image that looks similar to a woodblock cutout.",
        reference: "thresholded difference of Gaussians (after Winnemöller's XDoG, 2011): d = Y(G_σ(in)) − Y(in), σ = inputRadius, "
            + "Y = Rec. 709 luma; out = smoothstep(0.005, 0.02, d) as grey (white strokes on black), alpha kept",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The thickness of the edges. The larger the value, the thicker the edges.",
                defaultValue: .number(3), minimum: 0, sliderMinimum: 0, sliderMaximum: 20, limit: .gaussianRadius),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .region(GaussianCombineKernel(sigma: inputs.float("inputRadius", 3)) { original, blurred, count, bands in
            for p in 0..<count {
                let o = original + p * bands, b = blurred + p * bands
                let d = (0.2126 * (b[0] - o[0]) + 0.7152 * (b[1] - o[1]) + 0.0722 * (b[2] - o[2]))
                let t = ((d - 0.005) / 0.015).unitClamped
                let v = t * t * (3 - 2 * t)
                b[0] = v; b[1] = v; b[2] = v
                if bands == 4 { b[3] = o[3] }
            }
        }, of: image)
    }
}
