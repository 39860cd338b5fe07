/// One weight of a convolution: the pixel `dx` to the right and `dy` down (image rows, y down).
public struct ConvolutionTap: Sendable, Equatable {
    public let dx: Int
    public let dy: Int
    public let weight: Float

    public init(dx: Int, dy: Int, weight: Float) {
        self.dx = dx
        self.dy = dy
        self.weight = weight
    }
}

/// What a convolution does with alpha.
public enum ConvolutionAlpha: Sendable {
    /// Core Image's `CIConvolution…`: all four channels of premultiplied RGBA are convolved and
    /// the bias is added to each; the result is unpremultiplied (alpha held in 0…1). An image
    /// without an alpha band is opaque and stays so: only its colour is convolved.
    case premultiplied
    /// `CIConvolutionRGB…`: the colour channels are convolved as stored, alpha passes through.
    case kept
}

/// A general (non-separable) convolution as a region kernel: any set of taps within its margin,
/// each output row accumulated tap by tap in `SIMD8<Float>` over the interleaved samples.
/// Correlation order, as Core Image and `vips conv` apply a matrix: the weight at row 0, column 0
/// of a 3 × 3 matrix multiplies the pixel above and to the left.
public struct MatrixConvolutionKernel: RegionKernel {
    public let taps: [ConvolutionTap]
    public let bias: Float
    public let alpha: ConvolutionAlpha
    public let margin: Int

    public init(taps: [ConvolutionTap], bias: Float = 0, alpha: ConvolutionAlpha) {
        let kept = taps.filter { $0.weight != 0 }
        self.taps = kept.isEmpty ? [ConvolutionTap(dx: 0, dy: 0, weight: 0)] : kept
        self.bias = bias
        self.alpha = alpha
        margin = self.taps.reduce(0) { max($0, abs($1.dx), abs($1.dy)) }
    }

    /// A `columns` × `rows` matrix of weights in row-major order, the first row on top; both sides odd.
    public static func matrix(_ weights: [Float], columns: Int, rows: Int, bias: Float,
                              alpha: ConvolutionAlpha) -> MatrixConvolutionKernel {
        var taps: [ConvolutionTap] = []
        for (index, weight) in weights.prefix(columns * rows).enumerated() {
            taps.append(ConvolutionTap(dx: index % columns - columns / 2, dy: index / columns - rows / 2, weight: weight))
        }
        return MatrixConvolutionKernel(taps: taps, bias: bias, alpha: alpha)
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let premultiply = bands == 4 && alpha == .premultiplied
        var source = input
        var sourceStride = inputStride
        if premultiply {
            let rows = height + 2 * margin, columns = (width + 2 * margin) * 4
            let copy = Scratch.floats(rows * columns + 8)
            for row in 0..<rows {
                let from = input + row * inputStride, to = copy + row * columns
                var i = 0
                while i < columns {
                    let a = from[i + 3]
                    to[i] = from[i] * a; to[i + 1] = from[i + 1] * a; to[i + 2] = from[i + 2] * a; to[i + 3] = a
                    i += 4
                }
            }
            source = UnsafePointer(copy)
            sourceStride = columns
        }
        let offsets = taps.map { ($0.dy * sourceStride + $0.dx * bands) * 4 }
        let weights = taps.map(\.weight)
        let count = width * bands
        for row in 0..<height {
            let centre = UnsafeRawPointer(source + (row + margin) * sourceStride + margin * bands)
            let out = output + row * outputStride
            Self.accumulate(centre, offsets: offsets, weights: weights, bias: bias, into: out, count: count)
            guard bands == 4 else { continue }
            let original = input + (row + margin) * inputStride + margin * 4
            var i = 0
            while i < count {
                if premultiply {
                    let a = out[i + 3].unitClamped
                    let inverse: Float = a > 1e-6 ? 1 / a : 0
                    out[i] *= inverse; out[i + 1] *= inverse; out[i + 2] *= inverse; out[i + 3] = a
                } else {
                    out[i + 3] = original[i + 3]
                }
                i += 4
            }
        }
    }

    /// out[i] = bias + Σ_k weights[k] · in[i + offsets[k]] (offsets in bytes) for i in 0..<count,
    /// four vectors of eight at a time so both FMA units stay busy.
    @inline(__always)
    static func accumulate(_ input: UnsafeRawPointer, offsets: [Int], weights: [Float], bias: Float,
                           into output: UnsafeMutablePointer<Float>, count: Int) {
        let out = UnsafeMutableRawPointer(output)
        let start = SIMD8<Float>(repeating: bias)
        offsets.withUnsafeBufferPointer { offsets in
            weights.withUnsafeBufferPointer { weights in
                let n = weights.count
                var x = 0
                while x + 32 <= count {
                    var a0 = start, a1 = start, a2 = start, a3 = start
                    let p = input + x * 4
                    for k in 0..<n {
                        let w = SIMD8<Float>(repeating: weights[k]), q = p + offsets[k]
                        a0.addProduct(w, q.loadUnaligned(as: SIMD8<Float>.self))
                        a1.addProduct(w, q.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
                        a2.addProduct(w, q.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self))
                        a3.addProduct(w, q.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self))
                    }
                    out.storeBytes(of: a0, toByteOffset: x * 4, as: SIMD8<Float>.self)
                    out.storeBytes(of: a1, toByteOffset: x * 4 + 32, as: SIMD8<Float>.self)
                    out.storeBytes(of: a2, toByteOffset: x * 4 + 64, as: SIMD8<Float>.self)
                    out.storeBytes(of: a3, toByteOffset: x * 4 + 96, as: SIMD8<Float>.self)
                    x += 32
                }
                while x + 8 <= count {
                    var a = start
                    let p = input + x * 4
                    for k in 0..<n {
                        a.addProduct(SIMD8<Float>(repeating: weights[k]), (p + offsets[k]).loadUnaligned(as: SIMD8<Float>.self))
                    }
                    out.storeBytes(of: a, toByteOffset: x * 4, as: SIMD8<Float>.self)
                    x += 8
                }
                while x < count {
                    var a = bias
                    let p = input + x * 4
                    for k in 0..<n { a += weights[k] * (p + offsets[k]).load(as: Float.self) }
                    output[x] = a
                    x += 1
                }
            }
        }
    }
}

/// The mean over a disc (CIDiscBlur): the pixels whose centres lie within `radius` of the output
/// pixel's, premultiplied, from running sums along each row, so the cost grows with the radius,
/// not its square.
public struct DiscBlurKernel: RegionKernel {
    public let radius: Double
    /// Half the width of the disc's row `dy` pixels away, for dy in −margin…margin.
    public let halfWidths: [Int]
    public let margin: Int

    public init(radius: Double) {
        self.radius = radius
        let reach = Int(saturating: radius, in: 0...100_000, rounding: .down)
        margin = reach
        halfWidths = (-reach...reach).map { dy in
            Int(saturating: (radius * radius - Double(dy * dy)).squareRoot(), in: 0...reach, rounding: .down)
        }
    }

    /// How many pixels the disc holds.
    public var area: Int { halfWidths.reduce(0) { $0 + 2 * $1 + 1 } }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let rows = height + 2 * margin, columns = width + 2 * margin
        // Running sums per row and channel: sums[(c + 1)·bands + b] = Σ of the first c + 1 samples.
        let sumStride = (columns + 1) * bands
        let sums = Scratch.floats(rows * sumStride + 8)
        for row in 0..<rows {
            let from = input + row * inputStride, to = sums + row * sumStride
            for b in 0..<bands { to[b] = 0 }
            for column in 0..<columns {
                let alpha: Float = bands == 4 ? from[column * 4 + 3] : 1
                for b in 0..<bands {
                    let value = from[column * bands + b]
                    to[(column + 1) * bands + b] = to[column * bands + b] + (b < 3 ? value * alpha : value)
                }
            }
        }
        let scale = 1 / Float(area)
        let count = width * bands
        for row in 0..<height {
            let out = output + row * outputStride
            for i in 0..<count { out[i] = 0 }
            for (index, h) in halfWidths.enumerated() {
                // Output column c covers input columns c + margin − h … c + margin + h.
                let line = sums + (row + index) * sumStride
                let high = line + (margin + h + 1) * bands, low = line + (margin - h) * bands
                var i = 0
                while i + 8 <= count {
                    let sum = UnsafeRawPointer(out + i).loadUnaligned(as: SIMD8<Float>.self)
                        + UnsafeRawPointer(high + i).loadUnaligned(as: SIMD8<Float>.self)
                        - UnsafeRawPointer(low + i).loadUnaligned(as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(out + i).storeBytes(of: sum, as: SIMD8<Float>.self)
                    i += 8
                }
                while i < count {
                    out[i] += high[i] - low[i]
                    i += 1
                }
            }
            var i = 0
            while i < count {
                if bands == 4 {
                    let a = out[i + 3] * scale
                    let inverse: Float = a > 1e-6 ? 1 / a : 0
                    out[i] *= scale * inverse; out[i + 1] *= scale * inverse; out[i + 2] *= scale * inverse
                    out[i + 3] = a
                    i += 4
                } else {
                    out[i] *= scale
                    i += 1
                }
            }
        }
    }
}
