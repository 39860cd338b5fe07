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
                Self.convolve(UnsafeRawPointer(source + y * sourceStride), tapStride: bands * 4,
                              into: scratch + y * paddedRow, count: rowFloats, taps: taps)
            }
            // Vertical: output row y reads scratch rows y ..< y + taps.
            for y in 0..<height {
                let out = output + y * outputStride
                Self.convolve(UnsafeRawPointer(scratch + y * paddedRow), tapStride: paddedRow * 4,
                              into: out, count: rowFloats, taps: taps)
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

    /// out[i] = Σ_k taps[k] · in[i + k·tapStride] for i in 0..<count, with `tapStride` in bytes:
    /// one pixel along a row, or one row down a column. Four independent vector accumulators keep
    /// both FMA units busy (a single accumulator chain runs at a third of the speed).
    @inline(__always)
    static func convolve(_ input: UnsafeRawPointer, tapStride: Int, into output: UnsafeMutablePointer<Float>,
                         count: Int, taps: UnsafeBufferPointer<Float>) {
        let out = UnsafeMutableRawPointer(output)
        let n = taps.count
        var x = 0
        while x + 32 <= count {
            var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
            var p = input + x * 4
            for k in 0..<n {
                let w = SIMD8<Float>(repeating: taps[k])
                a0.addProduct(w, p.loadUnaligned(as: SIMD8<Float>.self))
                a1.addProduct(w, p.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
                a2.addProduct(w, p.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self))
                a3.addProduct(w, p.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self))
                p += tapStride
            }
            out.storeBytes(of: a0, toByteOffset: x * 4, as: SIMD8<Float>.self)
            out.storeBytes(of: a1, toByteOffset: x * 4 + 32, as: SIMD8<Float>.self)
            out.storeBytes(of: a2, toByteOffset: x * 4 + 64, as: SIMD8<Float>.self)
            out.storeBytes(of: a3, toByteOffset: x * 4 + 96, as: SIMD8<Float>.self)
            x += 32
        }
        while x + 8 <= count {
            var a = SIMD8<Float>()
            var p = input + x * 4
            for k in 0..<n {
                a.addProduct(SIMD8<Float>(repeating: taps[k]), p.loadUnaligned(as: SIMD8<Float>.self))
                p += tapStride
            }
            out.storeBytes(of: a, toByteOffset: x * 4, as: SIMD8<Float>.self)
            x += 8
        }
        while x < count {
            var a: Float = 0
            var p = input + x * 4
            for k in 0..<n {
                a += taps[k] * p.load(as: Float.self)
                p += tapStride
            }
            output[x] = a
            x += 1
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
