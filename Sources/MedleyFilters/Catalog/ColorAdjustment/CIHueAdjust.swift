import Foundation
import MedleyKernels

/// CIHueAdjust: rotates every colour about the grey axis, which is one colour matrix.
///
/// Apple says only that the filter "rotates the color cube around the neutral axis". Medley uses
/// Rodrigues' rotation formula about k = (1, 1, 1)/√3:
/// `M = cos θ·I + (1 − cos θ)·k kᵀ + sin θ·[k]ₓ`, so greys stay put and a positive angle turns
/// red towards green (hue increases as in HSV).
enum HueAdjust: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIHueAdjust",
        displayName: "Hue Adjust",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Changes the overall hue, or tint, of the source pixels.",
        reference: "rotation about the grey axis k = (1,1,1)/√3 by inputAngle (Rodrigues' rotation formula): "
            + "M = cos θ·I + (1 − cos θ)·kkᵀ + sin θ·[k]ₓ, in the working space",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputAngle", type: .angle, displayName: "Angle",
                description: "An angle (in radians) to use to correct the hue of an image.",
                defaultValue: .number(0), identity: .number(0), sliderMinimum: -Double.pi, sliderMaximum: Double.pi),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 0
        return .colorMatrix(rotation(angle), of: image)
    }

    /// The hue-rotation matrix for `angle` radians (exactly the identity at 0).
    static func rotation(_ angle: Double) -> ColorMatrix {
        let c = cos(angle), s = sin(angle) / 3.0.squareRoot()
        let shared = (1 - c) / 3  // (1 − cos θ)·k kᵀ: every entry of k kᵀ is 1/3
        let diagonal = Float(c + shared), plus = Float(shared + s), minus = Float(shared - s)
        // sin θ·[k]ₓ, [k]ₓ = [[0 −1 1] [1 0 −1] [−1 1 0]]/√3: −s on the entries just after the
        // diagonal (cyclically), +s on those just before it.
        return ColorMatrix(rows: [
            SIMD3(diagonal, minus, plus),
            SIMD3(plus, diagonal, minus),
            SIMD3(minus, plus, diagonal),
        ])
    }
}
