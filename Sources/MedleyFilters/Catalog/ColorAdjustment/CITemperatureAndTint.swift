import Foundation
import MedleyKernels

/// CITemperatureAndTint: a chromatic adaptation from one white point to another, each given as
/// (colour temperature in kelvin, tint). The adaptation is linear, so the filter is one colour
/// matrix and fuses with its neighbours.
///
/// Apple does not publish the maths. Medley:
/// 1. (T, tint) → white point: the Planckian locus at T by Kang et al. (2002)'s cubic
///    approximation (1667–25000 K, T clamped to that range), moved off the locus in CIE 1960 uv
///    along the locus's unit normal by tint/3000 (the Adobe DNG SDK's tint scale, tint clamped to
///    ±150), positive tint towards magenta (below the locus), negative towards green.
/// 2. White point → white point: a von Kries adaptation in Bradford cone space,
///    `M = A⁻¹ · B⁻¹ · diag(B·XYZ_target / B·XYZ_source) · B · A`, with A the linear-sRGB (D65) →
///    XYZ matrix. The source white maps onto the target white, so a lower target temperature
///    warms the image and a higher one cools it.
enum TemperatureAndTint: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CITemperatureAndTint",
        displayName: "Temperature and Tint",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Adapt the reference white point for an image.",
        reference: "(T, tint) → xy: Planckian locus by Kang et al. 2002 (1667–25000 K), offset tint/3000 along the "
            + "locus normal in CIE 1960 uv (DNG SDK scale, + = magenta); then Bradford von Kries adaptation "
            + "from inputNeutral's white to inputTargetNeutral's white, in linear sRGB (D65 primaries)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputNeutral", type: .offset, displayName: "Neutral",
                description: "A vector containing the source white point defined by color temperature and tint.",
                defaultValue: .vector([6500, 0]), identity: .vector([6500, 0])),
            ParameterAttributes(
                name: "inputTargetNeutral", type: .offset, displayName: "Target Neutral",
                description: "A vector containing the desired white point defined by color temperature and tint.",
                defaultValue: .vector([6500, 0]), identity: .vector([6500, 0])),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let source = inputs.vector("inputNeutral") ?? [6500, 0]
        let target = inputs.vector("inputTargetNeutral") ?? [6500, 0]
        if source == target { return image }
        let matrix = adaptation(from: whitePoint(temperature: source[0], tint: source[1]),
                                to: whitePoint(temperature: target[0], tint: target[1]))
        return .colorMatrix(matrix.colorMatrix, of: image)
    }

    /// Temperatures Kang et al.'s approximation covers.
    static let temperatureRange = 1667.0...25000.0
    /// The tint range photo tools (Adobe Camera Raw, the DNG SDK) offer.
    static let tintRange = -150.0...150.0
    /// Distance in CIE 1960 uv per unit of tint (DNG SDK: kTintScale = −3000).
    static let uvPerTint = 1.0 / 3000

    /// The CIE xy chromaticity of a (temperature, tint) white point.
    static func whitePoint(temperature: Double, tint: Double) -> SIMD2<Double> {
        let t = min(max(temperature, temperatureRange.lowerBound), temperatureRange.upperBound)
        let (xy, slope) = planckian(t)
        // To CIE 1960 uv, with the derivative carried through the quotient rule.
        let d = -2 * xy.x + 12 * xy.y + 3
        let dd = -2 * slope.x + 12 * slope.y
        let uv = SIMD2(4 * xy.x, 6 * xy.y) / d
        let tangent = (SIMD2(4 * slope.x, 6 * slope.y) * d - SIMD2(4 * xy.x, 6 * xy.y) * dd) / (d * d)
        var normal = SIMD2(-tangent.y, tangent.x) / (tangent * tangent).sum().squareRoot()
        if normal.y < 0 { normal = -normal }  // towards green: above the locus in uv
        let shifted = uv - normal * (min(max(tint, tintRange.lowerBound), tintRange.upperBound) * uvPerTint)
        let e = 2 * shifted.x - 8 * shifted.y + 4
        return SIMD2(3 * shifted.x, 2 * shifted.y) / e
    }

    /// The Planckian locus at `kelvin` (1667…25000) as CIE xy, and d(x, y)/dT, by Kang et al. (2002).
    static func planckian(_ kelvin: Double) -> (xy: SIMD2<Double>, slope: SIMD2<Double>) {
        let r = 1 / kelvin
        // x = a/T³ + b/T² + c/T + d
        let (a, b, c, d): (Double, Double, Double, Double) = kelvin <= 4000
            ? (-0.2661239e9, -0.2343589e6, 0.8776956e3, 0.179910)
            : (-3.0258469e9, 2.1070379e6, 0.2226347e3, 0.240390)
        let x = ((a * r + b) * r + c) * r + d
        let dx = -(3 * a * r + 2 * b) * r * r * r - c * r * r
        // y = p·x³ + q·x² + s·x + w
        let (p, q, s, w): (Double, Double, Double, Double) = kelvin <= 2222
            ? (-1.1063814, -1.34811020, 2.18555832, -0.20219683)
            : kelvin <= 4000
            ? (-0.9549476, -1.37418593, 2.09137015, -0.16748867)
            : (3.0817580, -5.87338670, 3.75112997, -0.37001483)
        let y = ((p * x + q) * x + s) * x + w
        let dy = (3 * p * x * x + 2 * q * x + s) * dx
        return (SIMD2(x, y), SIMD2(dx, dy))
    }

    /// Linear sRGB (D65) → CIE XYZ (IEC 61966-2-1).
    static let rgbToXYZ = Matrix3([0.4124564, 0.3575761, 0.1804375],
                                  [0.2126729, 0.7151522, 0.0721750],
                                  [0.0193339, 0.1191920, 0.9503041])
    /// XYZ → Bradford cone responses (Lam 1985, as used by ICC and Lindbloom).
    static let bradford = Matrix3([0.8951, 0.2664, -0.1614],
                                  [-0.7502, 1.7135, 0.0367],
                                  [0.0389, -0.0685, 1.0296])

    /// The linear-sRGB matrix that maps the `source` white (xy) onto the `target` white.
    static func adaptation(from source: SIMD2<Double>, to target: SIMD2<Double>) -> Matrix3 {
        func xyz(_ xy: SIMD2<Double>) -> SIMD3<Double> { SIMD3(xy.x / xy.y, 1, (1 - xy.x - xy.y) / xy.y) }
        let gains = bradford.apply(xyz(target)) / bradford.apply(xyz(source))
        let scale = Matrix3(SIMD3(gains.x, 0, 0), SIMD3(0, gains.y, 0), SIMD3(0, 0, gains.z))
        let cat = bradford.inverse * scale * bradford
        return rgbToXYZ.inverse * cat * rgbToXYZ
    }

    /// A 3×3 matrix in Double, for building adaptation matrices before they become a `ColorMatrix`.
    struct Matrix3 {
        var rows: [SIMD3<Double>]

        init(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) { rows = [r0, r1, r2] }

        func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3((rows[0] * v).sum(), (rows[1] * v).sum(), (rows[2] * v).sum())
        }

        static func * (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
            let columns = (0..<3).map { j in SIMD3(rhs.rows[0][j], rhs.rows[1][j], rhs.rows[2][j]) }
            let rows = lhs.rows.map { row in SIMD3((row * columns[0]).sum(), (row * columns[1]).sum(), (row * columns[2]).sum()) }
            return Matrix3(rows[0], rows[1], rows[2])
        }

        /// The inverse by the adjugate: with rows a, b, c, the inverse's columns are
        /// b×c, c×a and a×b divided by the determinant a·(b×c).
        var inverse: Matrix3 {
            let (a, b, c) = (rows[0], rows[1], rows[2])
            let c0 = cross(b, c), c1 = cross(c, a), c2 = cross(a, b)
            let determinant = (a * c0).sum()
            return Matrix3(SIMD3(c0.x, c1.x, c2.x) / determinant,
                           SIMD3(c0.y, c1.y, c2.y) / determinant,
                           SIMD3(c0.z, c1.z, c2.z) / determinant)
        }

        private func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        }

        var colorMatrix: ColorMatrix {
            ColorMatrix(rows: rows.map { SIMD3(Float($0.x), Float($0.y), Float($0.z)) })
        }
    }
}
