import MedleyKernels

/// CISpotColor: replaces up to three colour ranges with spot colours.
enum SpotColor: FilterDefinition {
    static let defaults: [(centre: [Double], replacement: [Double], closeness: Double, contrast: Double)] = [
        ([0.0784, 0.0627, 0.0706], [0.4392, 0.1922, 0.1961], 0.22, 0.98),
        ([0.5255, 0.3059, 0.3451], [0.9137, 0.5608, 0.5059], 0.15, 0.98),
        ([0.9216, 0.4549, 0.3333], [0.9098, 0.7529, 0.6078], 0.5, 0.99),
    ]

    static let attributes = FilterAttributes(
        name: "CISpotColor",
        displayName: "Spot Color",
        categories: [Category.stylize] + Category.common,
        summary: "Replaces one or more color ranges with spot colors.",
        reference: "for each of the three ranges in turn: d = |in − centre| (Euclidean, working space, measured on the input "
            + "pixel), w = 1 − smoothstep(closeness·contrast, closeness, d) (a hard edge at contrast 1), out = mix(out, replacement, w)",
        parameters: [.inputImage] + (1...3).flatMap { i -> [ParameterAttributes] in
            let d = defaults[i - 1]
            func colour(_ c: [Double]) -> FilterValue { .color(red: c[0], green: c[1], blue: c[2], alpha: 1) }
            return [
                ParameterAttributes(
                    name: "inputCenterColor\(i)", type: .color, displayName: "Center Color \(i)",
                    description: "The center value of the \(ordinal(i)) color range to replace.",
                    defaultValue: colour(d.centre)),
                ParameterAttributes(
                    name: "inputReplacementColor\(i)", type: .color, displayName: "Replacement Color \(i)",
                    description: "A replacement color for the \(ordinal(i)) color range.",
                    defaultValue: colour(d.replacement)),
                ParameterAttributes(
                    name: "inputCloseness\(i)", type: .distance, displayName: "Closeness \(i)",
                    description: "A value that indicates how close the \(ordinal(i)) color must match before it is replaced.",
                    defaultValue: .number(d.closeness), minimum: 0, sliderMinimum: 0, sliderMaximum: 0.5),
                ParameterAttributes(
                    name: "inputContrast\(i)", type: .scalar, displayName: "Contrast \(i)",
                    description: "The contrast of the \(ordinal(i)) replacement color.",
                    defaultValue: .number(d.contrast), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
            ]
        })

    static func ordinal(_ i: Int) -> String { ["first", "second", "third"][i - 1] }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let ranges = (1...3).map { i -> Operation.Range in
            let d = defaults[i - 1]
            let centre = inputs.color("inputCenterColor\(i)") ?? SIMD4(Float(d.centre[0]), Float(d.centre[1]), Float(d.centre[2]), 1)
            let replacement = inputs.color("inputReplacementColor\(i)")
                ?? SIMD4(Float(d.replacement[0]), Float(d.replacement[1]), Float(d.replacement[2]), 1)
            return Operation.Range(centre: SIMD3(centre.x, centre.y, centre.z),
                                   replacement: SIMD3(replacement.x, replacement.y, replacement.z),
                                   closeness: inputs.float("inputCloseness\(i)", Float(d.closeness)),
                                   contrast: inputs.float("inputContrast\(i)", Float(d.contrast)))
        }
        return .point(Operation(ranges: ranges), of: image)
    }

    struct Operation: PointOperation {
        struct Range: Sendable {
            let centre, replacement: SIMD3<Float>
            let closeness, contrast: Float
        }
        let ranges: [Range]

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                // Distances from the input pixel, so one replacement is not caught by the next range.
                let red = r, green = g, blue = b
                for range in ranges {
                    let dr = red - range.centre.x, dg = green - range.centre.y, db = blue - range.centre.z
                    let d = (dr * dr + dg * dg + db * db).squareRoot()
                    let inner = range.closeness * range.contrast
                    let weight: SIMD8<Float>
                    if range.closeness - inner <= 1e-6 {
                        weight = SIMD8<Float>(repeating: 0).replacing(with: 1, where: d .< range.closeness)
                    } else {
                        weight = 1 - VectorMath.smoothstep(inner, range.closeness, d)
                    }
                    r = VectorMath.mix(r, SIMD8(repeating: range.replacement.x), weight)
                    g = VectorMath.mix(g, SIMD8(repeating: range.replacement.y), weight)
                    b = VectorMath.mix(b, SIMD8(repeating: range.replacement.z), weight)
                }
            }
        }
    }
}
