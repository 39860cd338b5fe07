import MedleyKernels

/// CIRandomGenerator: noise, every component (alpha too, as Core Image's) uniform in 0…1. Core
/// Image's noise is a fixed image; Medley's is a fixed function of the pixel's position (from the
/// bottom-left, so a taller canvas does not move it): the same pixel always gets the same values.
enum RandomGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIRandomGenerator",
        displayName: "Random Generator",
        categories: [Category.generator] + Category.generated,
        summary: "Generates an image of infinite extent whose pixel values are made up of four independent, uniformly-distributed random numbers in the 0 to 1 range.",
        reference: "component k of pixel (x, y) = lowbias32(x·0x9E3779B1 ⊕ lowbias32(y ⊕ lowbias32(k))) / 2³² "
            + "(Chris Wellons' lowbias32 integer hash)",
        parameters: [])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        GeneratorGroup.image(Operation())
    }

    /// Chris Wellons' lowbias32 (hash-prospector): a well-mixed 32-bit integer hash.
    static func hash(_ value: UInt32) -> UInt32 {
        var x = value
        x ^= x >> 16
        x &*= 0x7FEB352D
        x ^= x >> 15
        x &*= 0x846CA68B
        x ^= x >> 16
        return x
    }

    /// Component k (0 red … 3 alpha) of the pixel at column x, row y counted from the bottom.
    static func value(x: Int, y: Int, component k: UInt32) -> Float {
        let h = hash(UInt32(truncatingIfNeeded: x) &* 0x9E3779B1 ^ hash(UInt32(truncatingIfNeeded: y) ^ hash(k)))
        // The top 24 bits: exactly representable, so values are k / 2²⁴ in 0 ..< 1.
        return Float(h >> 8) / 16_777_216
    }

    struct Operation: PointOperation {
        func apply(_ block: PixelBlock) {
            let y = block.imageHeight - 1 - block.y
            block.forEachVectorWithX { x, r, g, b, a in
                for lane in 0..<8 {
                    let column = Int(x[lane])
                    r[lane] = RandomGenerator.value(x: column, y: y, component: 0)
                    g[lane] = RandomGenerator.value(x: column, y: y, component: 1)
                    b[lane] = RandomGenerator.value(x: column, y: y, component: 2)
                    a[lane] = RandomGenerator.value(x: column, y: y, component: 3)
                }
            }
        }
    }
}
