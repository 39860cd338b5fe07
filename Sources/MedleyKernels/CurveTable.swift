/// A function on 0…1 sampled once into a table and read back with linear interpolation, eight
/// lanes at a time — for tone curves and other one-dimensional maps whose maths is too costly to
/// evaluate per pixel.
public struct CurveTable: Sendable {
    /// `values[i]` = f(i / (count − 1)).
    public let values: [Float]

    /// Samples `function` at `count` evenly spaced points from 0 to 1 inclusive.
    public init(count: Int, _ function: (Double) -> Double) {
        precondition(count >= 2, "a curve table needs at least two samples")
        let last = Double(count - 1)
        values = (0..<count).map { Float(function(Double($0) / last)) }
    }

    /// f(x) per lane, with x clamped to 0…1 and linear interpolation between samples (NaN stays NaN).
    @inlinable @inline(__always)
    public func lookup(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let last = values.count - 1
        let position = VectorMath.clamp(x, 0, 1) * Float(last)
        return values.withUnsafeBufferPointer { table in
            var result = SIMD8<Float>()
            for lane in 0..<8 {
                let p = position[lane]
                // `p > 0` is false for NaN, so a NaN lane reads index 0 and stays NaN.
                let i = p > 0 ? min(Int(p), last - 1) : 0
                let low = table[i]
                result[lane] = low + (table[i + 1] - low) * (p - Float(i))
            }
            return result
        }
    }
}
