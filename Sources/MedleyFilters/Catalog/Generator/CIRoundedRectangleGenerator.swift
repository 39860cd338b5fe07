import MedleyKernels

/// CIRoundedRectangleGenerator: a rectangle with rounded corners in one colour, clear outside.
/// Apple publishes no maths; Medley uses the signed distance d to the rounded rectangle
/// (Quílez's rounded-box distance) and one pixel of antialiasing: coverage = clamp(0.5 − d, 0, 1).
enum RoundedRectangleGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIRoundedRectangleGenerator",
        displayName: "Rounded Rectangle Generator",
        categories: [Category.generator] + Category.generated,
        summary: "Generates a rounded rectangle image with the specified extent, corner radius, and color.",
        reference: "signed distance to a rounded box (Quílez): q = |p − centre| − (half size − r), d = |max(q, 0)| + min(max(qx, qy), 0) − r, "
            + "r = min(radius, half the shorter side); out = color with alpha·clamp(0.5 − d, 0, 1)",
        parameters: [
            ParameterAttributes(
                name: "inputExtent", type: .rectangle, displayName: "Extent",
                description: "A CIVector containing the extent of the rectangle.",
                defaultValue: .vector([0, 0, 100, 100])),
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The distance from the center of the effect.",
                defaultValue: .number(10), minimum: 0, sliderMinimum: 0, sliderMaximum: 30),
            ParameterAttributes(
                name: "inputColor", type: .color, displayName: "Color",
                description: "A color.",
                defaultValue: .color(red: 1, green: 1, blue: 1, alpha: 1)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        let e = inputs.vector("inputExtent") ?? [0, 0, 100, 100]
        return GeneratorGroup.image(Operation(x: e[0], y: e[1], width: e[2], height: e[3],
                                              radius: inputs.number("inputRadius") ?? 10,
                                              color: inputs.color("inputColor") ?? SIMD4(1, 1, 1, 1)))
    }

    struct Operation: PointOperation {
        let centre: SIMD2<Double>
        let half: SIMD2<Double>
        let radius: Double
        let color: SIMD4<Float>

        init(x: Double, y: Double, width: Double, height: Double, radius: Double, color: SIMD4<Float>) {
            // Rectangles may be huge (±1.8e308 is Core Image's infinite one): halve before adding.
            centre = SIMD2(x + width / 2, y + height / 2)
            half = SIMD2(max(width / 2, 0), max(height / 2, 0))
            self.radius = min(max(radius, 0), half.x, half.y)
            self.color = color
        }

        func apply(_ block: PixelBlock) {
            block.forEachVectorWithX { x, r, g, b, a in
                for lane in 0..<8 {
                    let p = GeneratorGroup.position(block, x, lane) - centre
                    let q = SIMD2(abs(p.x), abs(p.y)) - (half - SIMD2(repeating: radius))
                    let outside = SIMD2(max(q.x, 0), max(q.y, 0))
                    let d = (outside * outside).sum().squareRoot() + min(max(q.x, q.y), 0) - radius
                    let coverage = half.x > 0 && half.y > 0 && d.isFinite ? Float(min(max(0.5 - d, 0), 1)) : 0
                    GeneratorGroup.store(SIMD4(color.x, color.y, color.z, color.w * coverage), lane, &r, &g, &b, &a)
                }
            }
        }
    }
}
