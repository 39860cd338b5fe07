import MedleyKernels

/// Generators.
enum GeneratorGroup {
    static let filters: [FilterDefinition.Type] = [
        CheckerboardGenerator.self,
        Code128BarcodeGenerator.self,
        ConstantColorGenerator.self,
        LinearGradient.self,
        QRCodeGenerator.self,
        RadialGradient.self,
        RandomGenerator.self,
        RoundedRectangleGenerator.self,
        SmoothLinearGradient.self,
        StripesGenerator.self,
        TextImageGenerator.self,
    ]

    /// A position-dependent generator: its operation paints every pixel of a clear image the size
    /// of the graph's input (Core Image's generators are infinite).
    static func image(_ operation: PointOperation) -> FilterImage {
        .point(operation, of: .constant(.zero))
    }

    /// The patterns' `inputSharpness` (checkerboard, stripes), declared once.
    static let sharpnessParameter = ParameterAttributes(
        name: "inputSharpness", type: .scalar, displayName: "Sharpness",
        description: "The sharpness of the edges in pattern. The smaller the value, the more blurry the pattern. Values range from 0.0 to 1.0.",
        defaultValue: .number(1), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1)

    /// Core Image's `inputColor0` (white) and `inputColor1` (black), declared once.
    static func colorParameters(_ first: String, _ second: String) -> [ParameterAttributes] {
        [ParameterAttributes(name: "inputColor0", type: .color, displayName: "Color 1", description: first,
                             defaultValue: .color(red: 1, green: 1, blue: 1, alpha: 1)),
         ParameterAttributes(name: "inputColor1", type: .color, displayName: "Color 2", description: second,
                             defaultValue: .color(red: 0, green: 0, blue: 0, alpha: 1))]
    }

    /// Both colours in the working space.
    static func colors(_ inputs: FilterInputs) -> (SIMD4<Float>, SIMD4<Float>) {
        (inputs.color("inputColor0") ?? SIMD4(1, 1, 1, 1), inputs.color("inputColor1") ?? SIMD4(0, 0, 0, 1))
    }

    /// A point given as a position parameter, or `fallback`.
    static func point(_ inputs: FilterInputs, _ key: String, _ fallback: [Double]) -> SIMD2<Double> {
        let v = inputs.vector(key) ?? fallback
        return SIMD2(v[0], v[1])
    }

    /// The pixel centre of lane `lane` in Core Image's coordinates (y up from the bottom).
    @inline(__always)
    static func position(_ block: PixelBlock, _ x: SIMD8<Float>, _ lane: Int) -> SIMD2<Double> {
        SIMD2(Double(x[lane]) + 0.5, Double(block.imageHeight - block.y) - 0.5)
    }

    /// Writes colour `c` into lane `lane`.
    @inline(__always)
    static func store(_ c: SIMD4<Float>, _ lane: Int, _ r: inout SIMD8<Float>, _ g: inout SIMD8<Float>,
                      _ b: inout SIMD8<Float>, _ a: inout SIMD8<Float>) {
        r[lane] = c.x
        g[lane] = c.y
        b[lane] = c.z
        a[lane] = c.w
    }

    /// A square wave softened at its edges: +1 in even cells of `period`, −1 in odd ones, with a
    /// linear ramp over `softness` (0…1) of a cell on each side of an edge.
    static func square(_ x: Double, period: Double, softness: Double) -> Double {
        let cells = x / period - 0.5
        var m = cells.truncatingRemainder(dividingBy: 2)
        if m < 0 { m += 2 }
        let triangle = 2 * abs(m - 1) - 1
        return min(max(triangle / max(softness, 1e-6), -1), 1)
    }
}
