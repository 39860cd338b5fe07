#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Separable convolution of interleaved float blocks, the engine under every blur: a
/// horizontal pass over the margin rows into a scratch block, then a vertical pass into the
/// output, both eight samples at a time with `SIMD8<Float>`. RGBA is blurred premultiplied, so
/// transparent pixels do not bleed their colour into their neighbours.
public struct SeparableConvolution: Sendable {
    /// Taps from −radius to +radius; they sum to 1.
    public let weights: [Float]
    public var radius: Int { weights.count / 2 }

    public init(weights: [Float]) {
        precondition(weights.count % 2 == 1, "an odd number of taps, centred")
        self.weights = weights
    }

    /// A Gaussian of standard deviation `sigma`, cut at 3σ.
    public static func gaussian(sigma: Float) -> SeparableConvolution {
        guard sigma > 0.01 else { return SeparableConvolution(weights: [1]) }
        let radius = Int((3 * sigma).rounded(.up))
        var taps = (-radius...radius).map { expf(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        taps = taps.map { $0 / total }
        return SeparableConvolution(weights: taps)
    }

    /// A box of `2·radius + 1` equal taps.
    public static func box(radius: Int) -> SeparableConvolution {
        let n = 2 * max(0, radius) + 1
        return SeparableConvolution(weights: [Float](repeating: 1 / Float(n), count: n))
    }

    /// Convolves the block's centre. `input` has `margin ≥ radius` extra pixels on every side;
    /// `output` receives width × height pixels. Strides are in floats.
    public func apply(input: UnsafePointer<Float>, inputStride: Int, margin: Int,
                      output: UnsafeMutablePointer<Float>, outputStride: Int,
                      width: Int, height: Int, bands: Int) {
        let r = radius
        let skip = margin - r  // margin beyond what this convolution needs
        let rows = height + 2 * r
        let rowFloats = width * bands
        let paddedRow = (rowFloats + 7) & ~7
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: rows * paddedRow + 8)
        defer { scratch.deallocate() }
        let premultiply = bands == 4
        // The source rows this convolution reads: margin rows skip..<skip + rows, columns likewise.
        let source: UnsafePointer<Float>
        let sourceStride: Int
        var premultiplied: UnsafeMutablePointer<Float>?
        if premultiply {
            let columns = (width + 2 * r) * bands
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: rows * columns)
            for y in 0..<rows {
                let from = input + (y + skip) * inputStride + skip * bands
                let to = copy + y * columns
                var i = 0
                while i < columns {
                    let alpha = from[i + 3]
                    to[i] = from[i] * alpha
                    to[i + 1] = from[i + 1] * alpha
                    to[i + 2] = from[i + 2] * alpha
                    to[i + 3] = alpha
                    i += 4
                }
            }
            premultiplied = copy
            source = UnsafePointer(copy)
            sourceStride = columns
        } else {
            source = input + skip * inputStride + skip * bands
            sourceStride = inputStride
        }
        defer { premultiplied?.deallocate() }

        weights.withUnsafeBufferPointer { taps in
            // Horizontal: each scratch row is the centre `width` pixels, convolved along x.
            for y in 0..<rows {
                let row = source + y * sourceStride
                let out = scratch + y * paddedRow
                var x = 0
                while x + 8 <= rowFloats {
                    var acc = SIMD8<Float>()
                    for k in 0..<taps.count {
                        acc += taps[k] * UnsafeRawPointer(row + x + k * bands).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: SIMD8<Float>.self)
                    x += 8
                }
                while x < rowFloats {
                    var acc: Float = 0
                    for k in 0..<taps.count { acc += taps[k] * row[x + k * bands] }
                    out[x] = acc
                    x += 1
                }
            }
            // Vertical: output row y reads scratch rows y ..< y + taps.
            for y in 0..<height {
                let out = output + y * outputStride
                var x = 0
                while x + 8 <= rowFloats {
                    var acc = SIMD8<Float>()
                    for k in 0..<taps.count {
                        acc += taps[k] * UnsafeRawPointer(scratch + (y + k) * paddedRow + x).loadUnaligned(as: SIMD8<Float>.self)
                    }
                    UnsafeMutableRawPointer(out + x).storeBytes(of: acc, as: SIMD8<Float>.self)
                    x += 8
                }
                while x < rowFloats {
                    var acc: Float = 0
                    for k in 0..<taps.count { acc += taps[k] * scratch[(y + k) * paddedRow + x] }
                    out[x] = acc
                    x += 1
                }
                if premultiply {
                    var i = 0
                    while i < rowFloats {
                        let alpha = out[i + 3]
                        let inverse: Float = alpha > 1e-6 ? 1 / alpha : 0
                        out[i] *= inverse
                        out[i + 1] *= inverse
                        out[i + 2] *= inverse
                        i += 4
                    }
                }
            }
        }
    }
}

/// A blur as a region kernel.
public struct BlurKernel: RegionKernel {
    public let convolution: SeparableConvolution
    public var margin: Int { convolution.radius }
    public init(_ convolution: SeparableConvolution) { self.convolution = convolution }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        convolution.apply(input: input, inputStride: inputStride, margin: margin, output: output,
                          outputStride: outputStride, width: width, height: height, bands: bands)
    }
}

/// Combines each pixel with its blurred version: the engine of unsharp masking, luminance
/// sharpening and noise reduction. `combine(original, blurred, bands)` rewrites one output row.
public struct DetailKernel: RegionKernel {
    public let convolution: SeparableConvolution
    public let combine: @Sendable (_ original: UnsafePointer<Float>, _ blurred: UnsafeMutablePointer<Float>,
                                   _ count: Int, _ bands: Int) -> Void
    public var margin: Int { convolution.radius }

    public init(_ convolution: SeparableConvolution,
                combine: @escaping @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Int) -> Void) {
        self.convolution = convolution
        self.combine = combine
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        convolution.apply(input: input, inputStride: inputStride, margin: margin, output: output,
                          outputStride: outputStride, width: width, height: height, bands: bands)
        for row in 0..<height {
            let original = input + (row + margin) * inputStride + margin * bands
            combine(original, output + row * outputStride, width, bands)
        }
    }
}
