/// Uniform white noise that depends only on a pixel's position and channel, so a re-run (or
/// another strip order, or another thread count) adds exactly the same noise.
///
/// The hash is the PCG-based integer hash of Jarzynski & Olano, "Hash Functions for GPU
/// Rendering" (JCGT 2020), chained over x, y and the channel.
public enum PositionNoise {
    @inlinable @inline(__always)
    public static func pcg(_ input: UInt32) -> UInt32 {
        let state = input &* 747_796_405 &+ 2_891_336_453
        let word = ((state &>> ((state &>> 28) &+ 4)) ^ state) &* 277_803_737
        return (word &>> 22) ^ word
    }

    /// A value in [0, 1) for pixel (x, y), channel 0…3; positions wrap at 2³².
    @inlinable @inline(__always)
    public static func uniform(x: Int, y: Int, channel: UInt32) -> Float {
        let h = pcg(UInt32(truncatingIfNeeded: x) &+ pcg(UInt32(truncatingIfNeeded: y) &+ pcg(channel)))
        return Float(h &>> 8) * (1 / 16_777_216)
    }
}

/// CIDither's maths: adds intensity · (u − ½) to red, green and blue, u from `PositionNoise`,
/// on sRGB-encoded values when `encoded` (the block holds linear light), as dithering is done in
/// a perceptual space.
public struct DitherOperation: PointOperation {
    public let intensity: Float
    public let encoded: Bool
    public init(intensity: Float, encoded: Bool) {
        self.intensity = intensity
        self.encoded = encoded
    }

    public func apply(_ block: PixelBlock) {
        let planes = [block.red, block.green, block.blue]
        var start = 0
        while start < block.count {
            for (channel, plane) in planes.enumerated() {
                var noise = SIMD8<Float>(repeating: 0)
                for lane in 0..<8 {
                    noise[lane] = PositionNoise.uniform(x: block.x + start + lane, y: block.y, channel: UInt32(channel)) - 0.5
                }
                let raw = UnsafeMutableRawPointer(plane + start)
                var v = raw.loadUnaligned(as: SIMD8<Float>.self)
                if encoded { v = VectorMath.encodeSRGB(v) }
                v += intensity * noise
                if encoded { v = VectorMath.decodeSRGB(v) }
                raw.storeBytes(of: v, as: SIMD8<Float>.self)
            }
            start += 8
        }
    }
}
