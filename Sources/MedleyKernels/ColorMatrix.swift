/// A 3×3 colour matrix with a bias: `out = M · rgb + bias`, on values normalised to 0…1.
///
/// Rows are output channels (R, G, B); columns are input channels. This is the form every
/// affine colour filter reduces to (CIColorMatrix, CISepiaTone, CIColorControls' saturation
/// and brightness, CIExposureAdjust in linear light), so consecutive ones compose into one
/// matrix and a chain of them costs one pass over the pixels.
public struct ColorMatrix: Equatable, Sendable, CustomStringConvertible {
    /// Row-major coefficients: `rows[i][j]` is the weight of input channel j in output i.
    public var rows: [SIMD3<Float>]
    /// Added to each output channel after the product.
    public var bias: SIMD3<Float>

    public init(rows: [SIMD3<Float>], bias: SIMD3<Float> = .zero) {
        precondition(rows.count == 3, "a colour matrix has three rows")
        self.rows = rows
        self.bias = bias
    }

    /// The matrix that leaves every colour unchanged.
    public static let identity = ColorMatrix(rows: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])

    /// Whether applying the matrix changes no colour (within float rounding).
    public var isIdentity: Bool {
        let tolerance: Float = 1e-6
        for i in 0..<3 {
            var expected = SIMD3<Float>.zero
            expected[i] = 1
            let difference = rows[i] - expected
            if (difference * difference).max() > tolerance * tolerance { return false }
        }
        return (bias * bias).max() <= tolerance * tolerance
    }

    /// The matrix applied to one colour.
    public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3((rows[0] * rgb).sum(), (rows[1] * rgb).sum(), (rows[2] * rgb).sum()) + bias
    }

    /// `self` after `first`: the single matrix equal to applying `first`, then `self`.
    public func after(_ first: ColorMatrix) -> ColorMatrix {
        var product = [SIMD3<Float>](repeating: .zero, count: 3)
        for i in 0..<3 {
            for j in 0..<3 {
                product[i][j] = rows[i][0] * first.rows[0][j] + rows[i][1] * first.rows[1][j]
                    + rows[i][2] * first.rows[2][j]
            }
        }
        return ColorMatrix(rows: product, bias: apply(first.bias))
    }

    /// `(1 − t)·self + t·other`, coefficient by coefficient (a "mix" of two filters).
    public func mixed(with other: ColorMatrix, amount t: Float) -> ColorMatrix {
        ColorMatrix(
            rows: (0..<3).map { rows[$0] * (1 - t) + other.rows[$0] * t },
            bias: bias * (1 - t) + other.bias * t)
    }

    public var description: String {
        let r = rows.map { "[\($0.x), \($0.y), \($0.z)]" }.joined(separator: ", ")
        return "ColorMatrix(\(r), bias: [\(bias.x), \(bias.y), \(bias.z)])"
    }
}
