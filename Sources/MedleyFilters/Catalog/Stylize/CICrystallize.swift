import MedleyKernels

/// CICrystallize: Voronoi cells, each the colour of the pixel at its seed.
enum Crystallize: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICrystallize",
        displayName: "Crystallize",
        categories: [Category.stylize] + Category.common,
        summary: "Creates polygon-shaped color blocks by aggregating source pixel-color values.",
        reference: "Voronoi cells: one seed per inputRadius × inputRadius grid cell anchored at inputCenter, placed in its cell by "
            + "a fixed integer hash (the same layout on every run); each pixel takes the colour of the pixel under the nearest seed",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the effect. The larger the radius, the larger the resulting crystals.",
                defaultValue: .number(20), minimum: 1, sliderMinimum: 1, sliderMaximum: 100, limit: .cellSize),
            .inputCenter,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let size = max(1, inputs.float("inputRadius", 20))
        let centre = inputs.vector("inputCenter") ?? [150, 150]
        let cx = Float(centre[0]), cy = Float(centre[1])
        // The nearest seed lies in the 3 × 3 cells around the pixel: within 2√2 cells.
        let margin = Int(saturating: Double(size) * 2.83, in: 0...100_000, rounding: .up) + 1
        return .region(CellSampleKernel(margin: margin) { x, y in
            CellLayout.nearestSeed(x, y, size: size, centreX: cx, centreY: cy).0
        }, of: image)
    }
}
