import MedleyKernels

/// CIHighlightShadowAdjust: lifts shadows and pulls down highlights, weighted by luminance.
///
/// Apple does not publish the maths. Medley: with m the pixel's Rec. 709 luma in linear light
/// (or, when inputRadius > 0, the luma of a Gaussian-blurred copy, so local areas move together),
/// `out = in · (1 + shadow·(1 − m)² − (1 − highlight)·m²)`: shadowAmount 0 and highlightAmount 1
/// change nothing.
enum HighlightShadowAdjust: FilterDefinition {
    static let luma = SIMD3<Float>(0.2125, 0.7154, 0.0721)

    static let attributes = FilterAttributes(
        name: "CIHighlightShadowAdjust",
        displayName: "Highlight and Shadow Adjust",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Adjust the tonal mapping of an image while preserving spatial detail.",
        reference: "out = in·(1 + inputShadowAmount·(1 − m)² − (1 − inputHighlightAmount)·m²), "
            + "m = Rec. 709 luma of G_radius(in) (of in when inputRadius = 0)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "Shadow Highlight Radius.",
                defaultValue: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 10, limit: .gaussianRadius),
            ParameterAttributes(
                name: "inputShadowAmount", type: .scalar, displayName: "Shadow Amount",
                description: "The amount of adjustment to the shadows of the image.",
                defaultValue: .number(0), identity: .number(0), minimum: -1, maximum: 1, sliderMinimum: -1, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputHighlightAmount", type: .scalar, displayName: "Highlight Amount",
                description: "The amount of adjustment to the highlights of the image.",
                defaultValue: .number(1), identity: .number(1), minimum: 0, maximum: 1, sliderMinimum: 0.3, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let shadow = inputs.float("inputShadowAmount", 0)
        let highlight = inputs.float("inputHighlightAmount", 1)
        let radius = inputs.float("inputRadius", 0)
        if shadow == 0 && highlight == 1 { return image }
        @Sendable func gain(_ m: Float) -> Float { 1 + shadow * (1 - m) * (1 - m) - (1 - highlight) * m * m }
        if radius <= 0.01 {
            return .point(PointGain(gain: gain), of: image)
        }
        return .region(DetailKernel(.gaussian(sigma: radius)) { original, blurred, count, bands in
            for p in 0..<count {
                let o = original + p * bands, b = blurred + p * bands
                let factor = gain(luma.x * b[0] + luma.y * b[1] + luma.z * b[2])
                for c in 0..<3 { b[c] = o[c] * factor }
                if bands == 4 { b[3] = o[3] }
            }
        }, of: image)
    }

    struct PointGain: PointOperation {
        let gain: @Sendable (Float) -> Float
        func apply(_ block: PixelBlock) {
            for i in 0..<block.count {
                let m = luma.x * block.red[i] + luma.y * block.green[i] + luma.z * block.blue[i]
                let factor = gain(m)
                block.red[i] *= factor
                block.green[i] *= factor
                block.blue[i] *= factor
            }
        }
    }
}
