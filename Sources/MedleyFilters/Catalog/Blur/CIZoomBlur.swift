import MedleyKernels

/// CIZoomBlur: streaks towards a centre, as zooming the lens during the exposure.
enum ZoomBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIZoomBlur",
        displayName: "Zoom Blur",
        categories: [Category.blur] + Category.common,
        summary: "Simulates the effect of zooming the camera while capturing the image.",
        reference: "mean of samples one pixel apart (bilinear, premultiplied) on the segment from each pixel towards "
            + "inputCenter, of length inputAmount % of its distance to the centre, at most \(ZoomBlurKernel.maximumReach) pixels "
            + "(Medley's bound, so a tile's margin is bounded); edges extended",
        parameters: [
            .inputImage,
            .inputCenter,
            ParameterAttributes(
                name: "inputAmount", type: .distance, displayName: "Amount",
                description: "The zoom-in amount. Larger values result in more zooming in.",
                defaultValue: .number(20), identity: .number(0), sliderMinimum: 0, sliderMaximum: 200),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let amount = inputs.float("inputAmount", 20)
        if amount <= 0 { return image }
        let centre = inputs.vector("inputCenter") ?? [150, 150]
        return .region(ZoomBlurKernel(centreX: Float(centre[0]), centreY: Float(centre[1]), amount: amount), of: image)
    }
}
