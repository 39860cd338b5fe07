import MedleyKernels

/// CIVibrance: changes saturation by an amount that depends on how colourful a pixel already is.
///
/// Apple does not publish the maths. Medley uses GPUImage's vibrance (GPUImageVibranceFilter):
/// `average = (r + g + b)/3, mx = max(r, g, b), amt = (mx − average)·(−3·amount),
/// rgb = mix(rgb, mx, amt)` — not affine, so it is a point operation, run in linear light.
enum Vibrance: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIVibrance",
        displayName: "Vibrance",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Adjusts the saturation of an image while keeping pleasing skin tones.",
        reference: "GPUImage vibrance: average = (r+g+b)/3, mx = max(r,g,b), amt = (mx − average)·(−3·inputAmount), "
            + "rgb = mix(rgb, mx, amt), in linear light",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputAmount", type: .scalar, displayName: "Amount",
                description: "The amount to adjust the saturation.",
                defaultValue: .number(0), identity: .number(0), minimum: -1, maximum: 1,
                sliderMinimum: -1, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let amount = inputs.float("inputAmount", 0)
        if amount == 0 { return image }
        return .point(Operation(amount: amount), of: image)
    }

    struct Operation: PointOperation {
        let amount: Float

        func apply(_ block: PixelBlock) {
            let scale = -3 * amount
            block.forEachVector { r, g, b, _ in
                let average = (r + g + b) / 3
                let mx = pointwiseMax(pointwiseMax(r, g), b)
                let amt = (mx - average) * scale
                r = VectorMath.mix(r, mx, amt)
                g = VectorMath.mix(g, mx, amt)
                b = VectorMath.mix(b, mx, amt)
            }
        }
    }
}
