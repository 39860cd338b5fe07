import MedleyKernels

/// CIHexagonalPixellate: the image as a honeycomb, each hexagon the colour at its centre.
enum HexagonalPixellate: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIHexagonalPixellate",
        displayName: "Hexagonal Pixellate",
        categories: [Category.stylize] + Category.common,
        summary: "Displays an image as colored hexagons whose color is an average of the pixels they replace.",
        reference: "pointy-top hexagons of side inputScale with one centred on inputCenter; pixel → hexagon by rounding cube "
            + "coordinates (Amit Patel, Red Blob Games, \"Hexagonal Grids\"); each hexagon takes the colour at its centre",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputCenter", type: .position, displayName: "Center",
                description: "The x and y position to use as the center of the effect",
                defaultValue: .vector([150, 150])),
            ParameterAttributes(
                name: "inputScale", type: .distance, displayName: "Scale",
                description: "The scale determines the size of the hexagons. Larger values result in larger hexagons.",
                defaultValue: .number(8), identity: .number(1), minimum: 1, sliderMinimum: 1, sliderMaximum: 100, limit: .cellSize),
        ])

    /// The centre of the hexagon holding (x, y), relative to a centre at the origin.
    static func centre(_ x: Float, _ y: Float, side: Float) -> SIMD2<Float> {
        // Axial coordinates of a pointy-top layout, then rounded as cube coordinates.
        let q = ((3 as Float).squareRoot() / 3 * x - y / 3) / side
        let r = (2 / 3 * y) / side
        let s = -q - r
        var rq = q.rounded(), rr = r.rounded()
        let rs = s.rounded()
        let dq = abs(rq - q), dr = abs(rr - r), ds = abs(rs - s)
        if dq > dr && dq > ds { rq = -rr - rs } else if dr > ds { rr = -rq - rs }
        return SIMD2(side * (3 as Float).squareRoot() * (rq + rr / 2), side * 1.5 * rr)
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let side = inputs.float("inputScale", 8)
        if side <= 1 { return image }
        let origin = inputs.vector("inputCenter") ?? [150, 150]
        let cx = Float(origin[0]), cy = Float(origin[1])
        let margin = Int(saturating: Double(side), in: 0...100_000, rounding: .up) + 1
        return .region(CellSampleKernel(margin: margin) { x, y in
            // Cell indices are bounded by the centre's distance; far from it Float spacing would blur them,
            // which only moves where hexagons fall.
            centre(x - cx, y - cy, side: side) + SIMD2(cx, cy)
        }, of: image)
    }
}
