#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Elementary functions on eight lanes at once, for per-pixel maths that has no vector form
/// in the standard library (pow for gamma, tone curves, transfer functions). Everything stays in
/// vector registers: exponents and mantissas are taken apart with bit operations (Swift's generic
/// integer↔float vector conversions are scalarised and far slower), and log2/exp2 are
/// polynomials fitted on Chebyshev nodes (least squares; max error: log2 3.7e-7 absolute on
/// [1, 2), exp2 1.1e-7 relative on [0, 1]), so `pow` is within 3e-6 relative of `powf`.
public enum VectorMath {
    /// log2(x) per lane for x > 0 (normal floats).
    @inlinable @inline(__always)
    public static func log2(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        // The biased exponent as a float, via the 2^23 trick: (e | 0x4B000000) reads as 2^23 + e.
        let exponent = unsafeBitCast(((bits &>> 23) & 0xFF) | 0x4B00_0000, to: SIMD8<Float>.self) - (8_388_608 + 127)
        let m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD8<Float>.self) - 1
        var p = SIMD8<Float>(repeating: 0.01512791604785474)
        p = p * m + -0.0781582082740889
        p = p * m + 0.19238505485315666
        p = p * m + -0.32461638360754147
        p = p * m + 0.4731133450223004
        p = p * m + -0.7205155141084032
        p = p * m + 1.44266404642779
        return exponent + p * m
    }

    /// 2^z per lane (z clamped to −126…127).
    @inlinable @inline(__always)
    public static func exp2(_ z: SIMD8<Float>) -> SIMD8<Float> {
        let clamped = z.replacing(with: -126, where: z .< -126).replacing(with: 127, where: z .> 127)
        // floor(z) by the 1.5·2^23 rounding trick (on z − 0.5), read back both as float and as int.
        let magic: Float = 12_582_912
        let t = clamped - 0.5 + magic
        let n = unsafeBitCast(t, to: SIMD8<Int32>.self) &- unsafeBitCast(SIMD8<Float>(repeating: magic), to: SIMD8<Int32>.self)
        let f = clamped - (t - magic)
        var p = SIMD8<Float>(repeating: 0.0018951072909917654)
        p = p * f + 0.008946214666355146
        p = p * f + 0.0558632826592419
        p = p * f + 0.24014077009184298
        p = p * f + 0.6931546200032986
        p = p * f + 0.9999998957631355
        return p * unsafeBitCast((n &+ 127) &<< 23, to: SIMD8<Float>.self)
    }

    /// `pow(x, y)` per lane for x ≥ 0 (x ≤ 0 gives 0, as a gamma curve wants).
    @inlinable @inline(__always)
    public static func pow(_ x: SIMD8<Float>, _ y: Float) -> SIMD8<Float> {
        exp2(log2(x) * y).replacing(with: 0, where: x .<= 0)
    }

    /// Clamps every lane to lower…upper.
    @inlinable @inline(__always)
    public static func clamp(_ x: SIMD8<Float>, _ lower: Float, _ upper: Float) -> SIMD8<Float> {
        x.replacing(with: lower, where: x .< lower).replacing(with: upper, where: x .> upper)
    }

    /// Linear interpolation `a + (b − a)·t` per lane.
    @inlinable @inline(__always)
    public static func mix(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ t: SIMD8<Float>) -> SIMD8<Float> {
        a + (b - a) * t
    }

    /// Hermite smoothstep of x between edge0 and edge1, per lane (GLSL's smoothstep).
    @inlinable @inline(__always)
    public static func smoothstep(_ edge0: Float, _ edge1: Float, _ x: SIMD8<Float>) -> SIMD8<Float> {
        let t = clamp((x - edge0) / (edge1 - edge0), 0, 1)
        return t * t * (3 - 2 * t)
    }
}
