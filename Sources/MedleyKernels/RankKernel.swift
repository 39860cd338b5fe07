/// The median of each 3 × 3 neighbourhood, every band on its own (alpha too, as stored), with
/// Devillard's 19-exchange network for nine values ("Fast median search", 1998), eight samples
/// at a time: `SIMD8` compares and blends lane by lane.
public struct MedianKernel: RegionKernel {
    public var margin: Int { 1 }
    public init() {}

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let count = width * bands
        for row in 0..<height {
            let centre = UnsafeRawPointer(input + (row + 1) * inputStride + bands)
            let out = output + row * outputStride
            let up = -inputStride * 4, down = inputStride * 4, side = bands * 4
            @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> SIMD8<Float> {
                p.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            }
            var i = 0
            while i < count {
                // The last vector of a row overlaps the one before rather than read past the row's end.
                let start = i + 8 <= count ? i : max(0, count - 8)
                if count < 8 {
                    for j in 0..<count { out[j] = Self.median(centre, j, inputStride: inputStride, bands: bands) }
                    break
                }
                let p = centre + start * 4
                var v0 = load(p, up - side), v1 = load(p, up), v2 = load(p, up + side)
                var v3 = load(p, -side), v4 = load(p, 0), v5 = load(p, side)
                var v6 = load(p, down - side), v7 = load(p, down), v8 = load(p, down + side)
                // A compare and two blends: the standard library's pointwiseMin/Max keep IEEE NaN rules
                // lane by lane and do not become single vector instructions.
                @inline(__always) func order(_ a: inout SIMD8<Float>, _ b: inout SIMD8<Float>) {
                    let swap = b .< a
                    let low = a.replacing(with: b, where: swap)
                    b = b.replacing(with: a, where: swap)
                    a = low
                }
                order(&v1, &v2); order(&v4, &v5); order(&v7, &v8)
                order(&v0, &v1); order(&v3, &v4); order(&v6, &v7)
                order(&v1, &v2); order(&v4, &v5); order(&v7, &v8)
                order(&v0, &v3); order(&v5, &v8); order(&v4, &v7)
                order(&v3, &v6); order(&v1, &v4); order(&v2, &v5)
                order(&v4, &v7); order(&v4, &v2); order(&v6, &v4)
                order(&v4, &v2)
                UnsafeMutableRawPointer(out + start).storeBytes(of: v4, as: SIMD8<Float>.self)
                i = start + 8
            }
        }
    }

    /// One sample's median by sorting, for rows narrower than a vector.
    static func median(_ centre: UnsafeRawPointer, _ i: Int, inputStride: Int, bands: Int) -> Float {
        var values: [Float] = []
        for dy in -1...1 {
            for dx in -1...1 {
                values.append(centre.load(fromByteOffset: (i + dy * inputStride + dx * bands) * 4, as: Float.self))
            }
        }
        values.sort()
        return values[4]
    }
}

/// Grey-level morphology: the maximum (dilation), minimum (erosion) or their difference (the
/// morphological gradient) over a structuring element made of centred rows, `halfWidths[dy + margin]`
/// pixels either side on row dy — a disc or a rectangle. Every band on its own, as stored.
///
/// Rows of equal half-width are done together: the running extreme of width 2h + 1 of every input
/// row grows by one pixel each side per step (h − 1 → h), and is folded into the output rows it
/// serves. The cost per pixel grows with the element's height plus its width, not their product.
public struct MorphologyKernel: RegionKernel {
    public enum Operation: Sendable { case maximum, minimum, gradient }

    public let halfWidths: [Int]
    public let operation: Operation
    public let margin: Int

    public init(halfWidths: [Int], operation: Operation) {
        self.halfWidths = halfWidths.isEmpty ? [0] : halfWidths
        self.operation = operation
        margin = max(self.halfWidths.count / 2, self.halfWidths.max() ?? 0)
    }

    /// The pixels whose centres lie within `radius` of the centre pixel's (`dx² + dy² ≤ r²`).
    public static func disc(radius: Double, operation: Operation) -> MorphologyKernel {
        let reach = Int(saturating: radius, in: 0...100_000, rounding: .down)
        let widths = (-reach...reach).map { dy in
            Int(saturating: (radius * radius - Double(dy * dy)).squareRoot(), in: 0...reach, rounding: .down)
        }
        return MorphologyKernel(halfWidths: widths, operation: operation)
    }

    /// A rectangle of (2·halfWidth + 1) × (2·halfHeight + 1) pixels.
    public static func rectangle(halfWidth: Int, halfHeight: Int, operation: Operation) -> MorphologyKernel {
        MorphologyKernel(halfWidths: [Int](repeating: max(0, halfWidth), count: 2 * max(0, halfHeight) + 1),
                         operation: operation)
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let count = width * bands
        let rows = height + 2 * margin
        let reach = halfWidths.count / 2
        let plane = rows * count + 8
        let both = operation == .gradient
        let memory = Scratch.floats(plane * (both ? 4 : 2))
        let runMax = memory, runMin = memory + plane
        let doMax = operation != .minimum, doMin = operation != .maximum
        // Accumulators start empty (∓∞); the result goes straight to `output` unless this is the
        // gradient, which needs both.
        let maxTarget: UnsafeMutablePointer<Float>? = doMax ? (both ? memory + 2 * plane : output) : nil
        let minTarget: UnsafeMutablePointer<Float>? = doMin ? (both ? memory + 3 * plane : output) : nil
        let targetStride = both ? count : outputStride
        for row in 0..<height {
            if let maxTarget { for i in 0..<count { maxTarget[row * targetStride + i] = -.infinity } }
            if let minTarget { for i in 0..<count { minTarget[row * targetStride + i] = .infinity } }
        }
        // Width 0: the input's centre columns.
        for row in 0..<rows {
            let from = input + row * inputStride + margin * bands
            if doMax { (runMax + row * count).update(from: from, count: count) }
            if doMin { (runMin + row * count).update(from: from, count: count) }
        }
        let widest = halfWidths.max() ?? 0
        for h in 0...widest {
            if h > 0 {
                // Grow every row's running extreme by the pixels h to the left and h to the right.
                for row in 0..<rows {
                    let from = input + row * inputStride + margin * bands
                    let left = UnsafeRawPointer(from - h * bands), right = UnsafeRawPointer(from + h * bands)
                    if doMax { Self.fold(runMax + row * count, left, right, count, Self.larger) }
                    if doMin { Self.fold(runMin + row * count, left, right, count, Self.smaller) }
                }
            }
            for (index, half) in halfWidths.enumerated() where half == h {
                let dy = index - reach
                for row in 0..<height {
                    let source = row + margin + dy
                    if let maxTarget {
                        Self.fold(maxTarget + row * targetStride, UnsafeRawPointer(runMax + source * count), nil, count, Self.larger)
                    }
                    if let minTarget {
                        Self.fold(minTarget + row * targetStride, UnsafeRawPointer(runMin + source * count), nil, count, Self.smaller)
                    }
                }
            }
        }
        if both, let maxTarget, let minTarget {
            for row in 0..<height {
                let out = output + row * outputStride
                for i in 0..<count { out[i] = maxTarget[row * count + i] - minTarget[row * count + i] }
                if bands == 4 {
                    // The gradient of alpha would make flat areas transparent: alpha passes through.
                    let original = input + (row + margin) * inputStride + margin * 4
                    for i in stride(from: 3, to: count, by: 4) { out[i] = original[i] }
                }
            }
        }
    }

    /// Lane-wise extremes as one compare and one blend each (see `MedianKernel`).
    @inline(__always)
    static func larger(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .> a) }
    @inline(__always)
    static func smaller(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a.replacing(with: b, where: b .< a) }

    /// target[i] = combine(target[i], a[i], b[i]) for i in 0..<count (b optional).
    @inline(__always)
    static func fold(_ target: UnsafeMutablePointer<Float>, _ a: UnsafeRawPointer, _ b: UnsafeRawPointer?, _ count: Int,
                     _ combine: (SIMD8<Float>, SIMD8<Float>) -> SIMD8<Float>) {
        let t = UnsafeMutableRawPointer(target)
        var i = 0
        while i + 8 <= count {
            var v = combine(t.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self),
                            a.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self))
            if let b { v = combine(v, b.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)) }
            t.storeBytes(of: v, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            var v = combine(SIMD8(repeating: target[i]), SIMD8(repeating: a.load(fromByteOffset: i * 4, as: Float.self)))
            if let b { v = combine(v, SIMD8(repeating: b.load(fromByteOffset: i * 4, as: Float.self))) }
            target[i] = v[0]
            i += 1
        }
    }
}
