import MedleyKernels

/// The sRGB transfer function (IEC 61966-2-1), extended to negative values by symmetry and
/// past 1 along the curve, as Core Image's extended-range tone curves are.
enum SRGBCurve {
    @inline(__always)
    static func encode(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let m = x.replacing(with: -x, where: x .< 0)
        let curve = 1.055 * VectorMath.pow(m, 1 / 2.4) - 0.055
        let v = (m * 12.92).replacing(with: curve, where: m .> 0.0031308)
        return v.replacing(with: -v, where: x .< 0)
    }

    @inline(__always)
    static func decode(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let m = x.replacing(with: -x, where: x .< 0)
        let curve = VectorMath.pow((m + 0.055) / 1.055, 2.4)
        let v = (m / 12.92).replacing(with: curve, where: m .> 0.04045)
        return v.replacing(with: -v, where: x .< 0)
    }

    static let formula = "sRGB (IEC 61966-2-1): encode v = 12.92·x for x ≤ 0.0031308, else 1.055·x^(1/2.4) − 0.055; "
        + "odd-symmetric for negative values"
}

/// CILinearToSRGBToneCurve: applies the sRGB encoding curve to the working-space values.
enum LinearToSRGBToneCurve: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CILinearToSRGBToneCurve",
        displayName: "Linear to sRGB Tone Curve",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Maps color intensity from a linear gamma curve to the sRGB color space.",
        reference: SRGBCurve.formula + ", applied to each colour channel",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(), of: image)
    }

    struct Operation: PointOperation {
        var isChannelwise: Bool { true }
        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = SRGBCurve.encode(r)
                g = SRGBCurve.encode(g)
                b = SRGBCurve.encode(b)
            }
        }
    }
}

/// CISRGBToneCurveToLinear: applies the sRGB decoding curve to the working-space values.
enum SRGBToneCurveToLinear: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CISRGBToneCurveToLinear",
        displayName: "sRGB Tone Curve to Linear",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Maps color intensity from the sRGB color space to a linear gamma curve.",
        reference: "the inverse of " + SRGBCurve.formula + ", applied to each colour channel",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(), of: image)
    }

    struct Operation: PointOperation {
        var isChannelwise: Bool { true }
        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = SRGBCurve.decode(r)
                g = SRGBCurve.decode(g)
                b = SRGBCurve.decode(b)
            }
        }
    }
}
