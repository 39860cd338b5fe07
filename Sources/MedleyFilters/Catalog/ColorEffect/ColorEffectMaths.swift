import MedleyKernels

/// What the luma-based colour effects share. (Colour parameters reach them already in the working
/// space: `FilterInputs.color` converts them, as Core Image colour-matches a CIColor.)
enum ColorEffectMaths {
    /// ITU-R BT.709 (and sRGB) luma weights for R, G, B.
    static let rec709Luma = SIMD3<Float>(0.2126, 0.7152, 0.0722)

    /// The matrix that sends every pixel to `bias + tint · luma(pixel)`: row i is `tint[i] · weights`.
    static func lumaTimes(_ tint: SIMD3<Float>, bias: SIMD3<Float> = .zero) -> ColorMatrix {
        ColorMatrix(rows: (0..<3).map { rec709Luma * tint[$0] }, bias: bias)
    }
}
