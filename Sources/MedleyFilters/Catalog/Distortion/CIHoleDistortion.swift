import MedleyKernels

/// CIHoleDistortion: a circular hole that pushes the image outwards. Apple publishes no maths;
/// Medley keeps areas outside the hole in proportion: a point at distance d > r from the centre
/// shows the input at distance √(d² − r²) along the same ray; inside the hole is transparent.
enum HoleDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIHoleDistortion",
        displayName: "Hole Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Creates a circular area that pushes the image pixels outward, distorting those pixels closest to the circle the most.",
        reference: "Medley's area-keeping hole: d > r: source = c + (p − c)·√(d² − r²)/d; d ≤ r: transparent",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 150, identity: 0.1, minimum: 0.01, sliderMaximum: 1000),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return DistortionGroup.warp(Map(center: DistortionGroup.center(inputs), radius: inputs.number("inputRadius") ?? 150),
                                    of: image, name: attributes.name)
    }

    struct Map: WarpMap {
        let center: (x: Double, y: Double)
        let radius: Double

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            let dx = x - center.x, dy = y - center.y
            let d2 = dx * dx + dy * dy
            guard d2 > radius * radius else { return nil }
            let f = ((d2 - radius * radius) / d2).squareRoot()
            return (center.x + dx * f, center.y + dy * f)
        }
    }
}
