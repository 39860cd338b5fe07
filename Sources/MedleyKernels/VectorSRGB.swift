/// The sRGB transfer functions (IEC 61966-2-1) on eight lanes at once, for filters whose maths
/// is defined on sRGB-encoded values rather than on linear light (Core Image's photo effects
/// look up their colour cubes in device RGB). Same formulas as `Transfer.sRGB`.
extension VectorMath {
    /// Linear light → sRGB-encoded value, per lane; lanes are clamped to 0…1 first.
    @inlinable @inline(__always)
    public static func encodeSRGB(_ linear: SIMD8<Float>) -> SIMD8<Float> {
        let x = clamp(linear, 0, 1)
        let curve = 1.055 * pow(x, 1 / 2.4) - 0.055
        return (x * 12.92).replacing(with: curve, where: x .> 0.0031308)
    }

    /// sRGB-encoded value → linear light, per lane; lanes are clamped to 0…1 first.
    @inlinable @inline(__always)
    public static func decodeSRGB(_ encoded: SIMD8<Float>) -> SIMD8<Float> {
        let v = clamp(encoded, 0, 1)
        let curve = pow((v + 0.055) / 1.055, 2.4)
        return (v / 12.92).replacing(with: curve, where: v .> 0.04045)
    }
}
