import MedleyKernels

/// CICheckerboardGenerator: generates a checkerboard pattern. Apple publishes no maths; Medley's: with s(v) the square wave
/// of period 2·width that is +1 in the cells [center + 2k·width, center + (2k+1)·width) and −1 in
/// the others, its edges ramped over (1 − sharpness) of a cell, t = 0.5 + 0.5·s(x)·s(y) and
/// out = mix(color1, color0, t) in the working space (colour 0 in the cell right of and above the centre).
enum CheckerboardGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICheckerboardGenerator",
        displayName: "Checkerboard",
        categories: [Category.generator] + Category.generated,
        summary: "Generates a checkerboard pattern.",
        reference: "square waves s of period 2·width from center, ramped over (1 − sharpness) of a cell: t = 0.5 + 0.5·s(x)·s(y); "
            + "out = mix(color1, color0, t) in the working space",
        parameters: [
            .inputCenter,
        ] + GeneratorGroup.colorParameters("A color to use for the first set of squares.", "A color to use for the second set of squares.") + [
            ParameterAttributes(
                name: "inputWidth", type: .distance, displayName: "Width",
                description: "The width of the squares in the pattern.",
                defaultValue: .number(80), minimum: 0, sliderMinimum: 0, sliderMaximum: 800),
            GeneratorGroup.sharpnessParameter,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        let (c0, c1) = GeneratorGroup.colors(inputs)
        return GeneratorGroup.image(Operation(center: GeneratorGroup.point(inputs, "inputCenter", [150, 150]),
                                              width: inputs.number("inputWidth") ?? 80,
                                              softness: 1 - (inputs.number("inputSharpness") ?? 1), color0: c0, color1: c1))
    }

    struct Operation: PointOperation {
        let center: SIMD2<Double>
        let width: Double
        let softness: Double
        let color0: SIMD4<Float>
        let color1: SIMD4<Float>

        func apply(_ block: PixelBlock) {
            block.forEachVectorWithX { x, r, g, b, a in
                for lane in 0..<8 {
                    let p = GeneratorGroup.position(block, x, lane)
                    // A width of 0 has no cells: colour 0 everywhere.
                    let t = width > 0 ? 0.5 + 0.5 * GeneratorGroup.square(p.x - center.x, period: width, softness: softness) * GeneratorGroup.square(p.y - center.y, period: width, softness: softness) : 1
                    GeneratorGroup.store(color1 + (color0 - color1) * Float(t), lane, &r, &g, &b, &a)
                }
            }
        }
    }
}
