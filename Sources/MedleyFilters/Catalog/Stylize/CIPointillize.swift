import MedleyKernels

/// CIPointillize: round dots of the image's colours on white, as a pointillist paints.
enum Pointillize: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIPointillize",
        displayName: "Pointillize",
        categories: [Category.stylize] + Category.common,
        summary: "Renders the source image in a pointillistic style.",
        reference: "dots of radius inputRadius around seeds one per 2·inputRadius grid cell anchored at inputCenter (placed by "
            + "a fixed integer hash); a pixel within a dot takes the colour of the pixel under its nearest seed, others are white",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius of the circles in the resulting pattern.",
                defaultValue: .number(20), minimum: 1, sliderMinimum: 1, sliderMaximum: 100, limit: .cellSize),
            .inputCenter,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = max(1, inputs.float("inputRadius", 20))
        let centre = inputs.vector("inputCenter") ?? [150, 150]
        let cx = Float(centre[0]), cy = Float(centre[1])
        // A pixel in a dot is within one radius of its seed.
        let margin = Int(saturating: Double(radius), in: 0...100_000, rounding: .up) + 1
        return .region(CellSampleKernel(margin: margin) { x, y in
            let (seed, distance) = CellLayout.nearestSeed(x, y, size: 2 * radius, centreX: cx, centreY: cy)
            return distance <= radius * radius ? seed : nil
        }, of: image)
    }
}
