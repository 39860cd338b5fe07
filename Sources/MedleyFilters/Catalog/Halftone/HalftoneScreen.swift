import Foundation
import MedleyKernels

/// The screens of the halftone filters. Apple publishes no maths; Medley uses the classic open
/// formulation of an ordered screen (as in Ulichney, "Digital Halftoning", and GPUImage's
/// halftone shaders): the pixel's luminance L (Rec. 709 weights, in the working space, so the
/// share of paper in a cell follows light) is compared with a periodic threshold t(x, y) over a
/// grid of `width` pixels rotated by `angle` about `center`:
/// `out = smoothstep(t' − e, t' + e, L)` with `e = max(0.5·(1 − sharpness), 0.001)` and the
/// threshold moved into e…1 − e, `t' = e + (1 − 2e)·t` (so white stays paper and black ink) —
/// white paper where the pixel is lighter than the screen, black ink where darker, a ramp of
/// width 2e between.
enum HalftoneScreen {
    /// Threshold patterns, each 0…1 over one period (u, v: rotated coordinates, w: the period).
    enum Pattern: Sendable {
        /// Dots on a square grid: t = 0.5 + 0.25·(cos 2πu/w + cos 2πv/w).
        case dot
        /// Parallel lines: t = 0.5 + 0.5·cos 2πv/w.
        case line
        /// Rings around the centre: t = 0.5 + 0.5·cos 2πr/w, r = distance from the centre.
        case circular
        /// Lines, crossed by a second set at right angles where L < 0.5:
        /// out = min(s(L, t_line(v)), s(L, 0.5·t_line(u))).
        case hatched
    }

    static func threshold(_ pattern: Pattern, u: Float, v: Float, width: Float) -> Float {
        let k = 2 * Float.pi / width
        switch pattern {
        case .dot: return 0.5 + 0.25 * (cos(k * u) + cos(k * v))
        case .line, .hatched: return 0.5 + 0.5 * cos(k * v)
        case .circular: return 0.5 + 0.5 * cos(k * (u * u + v * v).squareRoot())
        }
    }

    /// The ramp from ink (0) to paper (1) around threshold t (0…1), moved into e…1 − e so that
    /// white stays all paper and black all ink.
    static func screen(_ value: Float, _ t: Float, softness e: Float) -> Float {
        let t = e + (1 - 2 * e) * t
        let s = min(max((value - (t - e)) / (2 * e), 0), 1)
        return s * s * (3 - 2 * s)
    }

    static func softness(_ sharpness: Float) -> Float { max(0.5 * (1 - sharpness), 0.001) }

    static func luminance(_ r: Float, _ g: Float, _ b: Float) -> Float { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    /// The screen centre in Core Image's coordinates (default (150, 150)).
    static func center(_ inputs: FilterInputs) -> (x: Float, y: Float) {
        let c = inputs.vector("inputCenter") ?? [150, 150]
        return (Float(c[0]), Float(c[1]))
    }

    // The parameters the screens share, declared once with Core Image's values.
    static func centerParameter(_ what: String) -> ParameterAttributes {
        ParameterAttributes(name: "inputCenter", type: .position, displayName: "Center",
                            description: "The x and y position to use as the center of the \(what) pattern",
                            defaultValue: .vector([150, 150]))
    }
    static let angle = ParameterAttributes(
        name: "inputAngle", type: .angle, displayName: "Angle", description: "The angle of the pattern.",
        defaultValue: .number(0), identity: .number(0), sliderMinimum: -Double.pi, sliderMaximum: Double.pi)
    static func width(_ what: String) -> ParameterAttributes {
        ParameterAttributes(name: "inputWidth", type: .distance, displayName: "Width",
                            description: "The distance between \(what) in the pattern.",
                            defaultValue: .number(6), identity: .number(6), minimum: 1, sliderMinimum: 2, sliderMaximum: 50)
    }
    static let sharpness = ParameterAttributes(
        name: "inputSharpness", type: .scalar, displayName: "Sharpness",
        description: "The sharpness of the pattern. The larger the value, the sharper the pattern.",
        defaultValue: .number(0.7), identity: .number(0.7), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1)

    /// The recipe of a monochrome screen.
    static func output(_ inputs: FilterInputs, pattern: Pattern) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 0
        return .point(Operation(pattern: pattern, center: center(inputs), cosine: Float(Foundation.cos(angle)),
                                sine: Float(Foundation.sin(angle)), width: inputs.float("inputWidth", 6),
                                softness: softness(inputs.float("inputSharpness", 0.7))), of: image)
    }

    /// A monochrome screen: grey out, alpha kept.
    struct Operation: PointOperation {
        let pattern: Pattern
        let center: (x: Float, y: Float)
        let cosine: Float
        let sine: Float
        let width: Float
        let softness: Float

        func apply(_ block: PixelBlock) {
            // Core Image's y counts up from the bottom; pixel centres sit at half-integers.
            let dy = Float(block.imageHeight - block.y) - 0.5 - center.y
            block.forEachVectorWithX { x, r, g, b, _ in
                for lane in 0..<8 {
                    let dx = x[lane] + 0.5 - center.x
                    let u = dx * cosine + dy * sine, v = -dx * sine + dy * cosine
                    let l = luminance(r[lane], g[lane], b[lane])
                    let t = threshold(pattern, u: u, v: v, width: width)
                    var out = screen(l, t, softness: softness)
                    if pattern == .hatched {
                        out = min(out, screen(l, 0.5 * threshold(.line, u: v, v: u, width: width), softness: softness))
                    }
                    r[lane] = out
                    g[lane] = out
                    b[lane] = out
                }
            }
        }
    }
}

/// Halftones.
enum HalftoneGroup {
    static let filters: [FilterDefinition.Type] = [
        CMYKHalftone.self,
        CircularScreen.self,
        DotScreen.self,
        HatchedScreen.self,
        LineScreen.self,
    ]
}
