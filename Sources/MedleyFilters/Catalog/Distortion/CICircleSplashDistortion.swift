import MedleyKernels

/// CICircleSplashDistortion: the pixels on a circle's edge streak outwards. Apple publishes no
/// maths; Medley keeps the inside of the circle and shows, at a point outside it, the input where
/// the ray from the centre crosses the circle: `c + (p − c)·r/d`.
enum CircleSplashDistortion: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICircleSplashDistortion",
        displayName: "Circle Splash Distortion",
        categories: [Category.distortionEffect] + Category.common,
        summary: "Distorts the pixels starting at the circumference of a circle and emanating outward.",
        reference: "radial streaks: d ≤ r: source = p; d > r: source = c + (p − c)·r/d, d = |p − c|",
        parameters: [
            .inputImage,
            .inputCenter,
            DistortionGroup.radiusParameter(defaultValue: 150, identity: 0.1, minimum: 0, sliderMaximum: 1000),
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
            let d = (dx * dx + dy * dy).squareRoot()
            guard d > radius else { return (x, y) }
            return (center.x + dx * radius / d, center.y + dy * radius / d)
        }
    }
}
