#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Elementary functions on eight lanes at once, for per-pixel maths that has no vector form
/// in the standard library (pow for gamma and tone curves). Lanes are computed with the C
/// library, one at a time but without leaving the vector code path, so every filter has one
/// clear place to speed up later.
public enum VectorMath {
    /// `pow(x, y)` per lane for x ≥ 0 (negative x gives 0, as a gamma curve wants).
    @inline(__always)
    public static func pow(_ x: SIMD8<Float>, _ y: Float) -> SIMD8<Float> {
        var result = SIMD8<Float>()
        for lane in 0..<8 { result[lane] = x[lane] > 0 ? powf(x[lane], y) : 0 }
        return result
    }

    /// Clamps every lane to lower…upper.
    @inline(__always)
    public static func clamp(_ x: SIMD8<Float>, _ lower: Float, _ upper: Float) -> SIMD8<Float> {
        x.replacing(with: lower, where: x .< lower).replacing(with: upper, where: x .> upper)
    }

    /// Linear interpolation `a + (b − a)·t` per lane.
    @inline(__always)
    public static func mix(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ t: SIMD8<Float>) -> SIMD8<Float> {
        a + (b - a) * t
    }

    /// Hermite smoothstep of x between edge0 and edge1, per lane (GLSL's smoothstep).
    @inline(__always)
    public static func smoothstep(_ edge0: Float, _ edge1: Float, _ x: SIMD8<Float>) -> SIMD8<Float> {
        let t = clamp((x - edge0) / (edge1 - edge0), 0, 1)
        return t * t * (3 - 2 * t)
    }
}
