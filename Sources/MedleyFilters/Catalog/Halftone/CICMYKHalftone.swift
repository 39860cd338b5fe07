import Foundation
import MedleyKernels

/// CICMYKHalftone: a four-ink halftone. Apple publishes no maths; Medley uses the classic
/// separation and screening: c, m, y = 1 − r, g, b (clamped 0…1); black k = GCR·min(c, m, y)
/// (grey component replacement); c, m, y −= UCR·k (under-colour removal); each ink is screened
/// with `HalftoneScreen`'s dot screen at the traditional angles (cyan 15°, magenta 75°, yellow 0°,
/// black 45°, plus inputAngle): coverage = smoothstep(t' − e, t' + e, ink); the paper shows through
/// where no ink falls: r = (1 − C)(1 − K), g = (1 − M)(1 − K), b = (1 − Y)(1 − K).
enum CMYKHalftone: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICMYKHalftone",
        displayName: "CMYK Halftone",
        categories: [Category.halftoneEffect] + Category.common,
        summary: "Creates a color, halftoned rendition of the source image, using cyan, magenta, yellow, and black inks over a white page.",
        reference: "classic separation: k = GCR·min(c, m, y), c, m, y −= UCR·k; dot screens t = 0.5 + 0.25·(cos 2πu/w + cos 2πv/w) "
            + "at 15°/75°/0°/45° + angle; ink coverage smoothstep(t' − e, t' + e, ink), t' = e + (1 − 2e)·t, e = max(0.5·(1 − sharpness), 0.001); "
            + "r = (1 − C)(1 − K), g = (1 − M)(1 − K), b = (1 − Y)(1 − K)",
        parameters: [
            .inputImage,
            HalftoneScreen.centerParameter("halftone"),
            ParameterAttributes(
                name: "inputWidth", type: .distance, displayName: "Width",
                description: "The distance between dots in the pattern.",
                defaultValue: .number(6), identity: .number(6), minimum: 2, sliderMinimum: 2, sliderMaximum: 100),
            HalftoneScreen.angle,
            HalftoneScreen.sharpness,
            ParameterAttributes(
                name: "inputGCR", type: .scalar, displayName: "Gray Component Replacement",
                description: "The gray component replacement value. The value can vary from 0.0 (none) to 1.0.",
                defaultValue: .number(1), identity: .number(1), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputUCR", type: .scalar, displayName: "Under Color Removal",
                description: "The under color removal value. The value can vary from 0.0 to 1.0.",
                defaultValue: .number(0.5), identity: .number(0.5), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
        ])

    /// The inks' screen angles (cyan, magenta, yellow, black), in degrees.
    static let inkAngles: [Double] = [15, 75, 0, 45]

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 0
        let rotations = inkAngles.map { degrees -> (Float, Float) in
            let a = angle + degrees * Double.pi / 180
            return (Float(Foundation.cos(a)), Float(Foundation.sin(a)))
        }
        return .point(Operation(center: HalftoneScreen.center(inputs), rotations: rotations,
                                width: inputs.float("inputWidth", 6),
                                softness: HalftoneScreen.softness(inputs.float("inputSharpness", 0.7)),
                                gcr: inputs.float("inputGCR", 1), ucr: inputs.float("inputUCR", 0.5)), of: image)
    }

    struct Operation: PointOperation {
        let center: (x: Float, y: Float)
        /// cos and sin of each ink's screen angle: cyan, magenta, yellow, black.
        let rotations: [(Float, Float)]
        let width: Float
        let softness: Float
        let gcr: Float
        let ucr: Float

        func apply(_ block: PixelBlock) {
            let dy = Float(block.imageHeight - block.y) - 0.5 - center.y
            block.forEachVectorWithX { x, r, g, b, _ in
                for lane in 0..<8 {
                    let dx = x[lane] + 0.5 - center.x
                    let c = 1 - min(max(r[lane], 0), 1), m = 1 - min(max(g[lane], 0), 1), y = 1 - min(max(b[lane], 0), 1)
                    let k = gcr * min(c, m, y)
                    // SIMD4 rather than arrays: no allocation per pixel.
                    let inks = SIMD4<Float>(max(c - ucr * k, 0), max(m - ucr * k, 0), max(y - ucr * k, 0), k)
                    var cover = SIMD4<Float>()
                    for i in 0..<4 {
                        let (cosine, sine) = rotations[i]
                        let u = dx * cosine + dy * sine, v = -dx * sine + dy * cosine
                        let t = HalftoneScreen.threshold(.dot, u: u, v: v, width: width)
                        cover[i] = HalftoneScreen.screen(inks[i], t, softness: softness)
                    }
                    let paper = 1 - cover[3]
                    r[lane] = (1 - cover[0]) * paper
                    g[lane] = (1 - cover[1]) * paper
                    b[lane] = (1 - cover[2]) * paper
                }
            }
        }
    }
}
