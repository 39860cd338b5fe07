/// Resampling along one axis with a Mitchell–Netravali cubic (Mitchell & Netravali, "Reconstruction
/// Filters in Computer Graphics", 1988), the (B, C) family: B = 0, C = 0.5 is Catmull-Rom, B = C =
/// 1/3 Mitchell's recommendation, B = 1, C = 0 the cubic B-spline. Output pixel o is centred on
/// input (o + 0.5)/scale − 0.5; when shrinking the kernel is stretched by 1/scale so it also
/// filters (as ImageMagick's and libvips' resizers do); weights are normalised to sum 1.
public struct CubicResampleKernel: Sendable {
    public let b: Double
    public let c: Double
    /// Output pixels per input pixel along the axis.
    public let scale: Double
    public let horizontal: Bool

    public init(b: Double, c: Double, scale: Double, horizontal: Bool) {
        self.b = b
        self.c = c
        self.scale = scale
        self.horizontal = horizontal
    }

    /// How far the kernel reaches, in input pixels, either side of a centre.
    public var radius: Double { 2 * max(1, 1 / scale) }

    /// The kernel's weight at distance x (in kernel units, support ±2).
    public static func weight(_ x: Double, b: Double, c: Double) -> Double {
        let x = abs(x)
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
        }
        if x < 2 {
            return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        }
        return 0
    }

    /// For each output coordinate of a block: the first input it reads and its weights.
    func taps(from start: Int, count: Int, inputFirst: Int, inputCount: Int) -> [(first: Int, weights: [Float])] {
        let r = radius, stretch = min(scale, 1)
        let last = inputFirst + inputCount - 1
        return (0..<count).map { k in
            let centre = (Double(start + k) + 0.5) / scale - 0.5
            let low = Int((centre - r).rounded(.up)), high = Int((centre + r).rounded(.down))
            var weights = (low...max(low, high)).map { Self.weight((Double($0) - centre) * stretch, b: b, c: c) }
            let sum = weights.reduce(0, +)
            if sum != 0 { weights = weights.map { $0 / sum } }
            // Inputs beyond the copied edges repeat the edge: fold their weights onto it.
            var folded = [Double](repeating: 0, count: last - inputFirst + 1)
            for (i, w) in weights.enumerated() { folded[min(max(low + i, inputFirst), last) - inputFirst] += w }
            let first = folded.firstIndex { $0 != 0 } ?? 0
            let end = (folded.lastIndex { $0 != 0 } ?? 0) + 1
            return (inputFirst + first, folded[first..<max(first + 1, end)].map(Float.init))
        }
    }

    /// One output block from the input span [inputFirst, inputFirst + inputCount) along the axis
    /// (the other axis lines up with the output's); strides in floats.
    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>, outputStride: Int,
                      width: Int, height: Int, bands: Int, x: Int, y: Int, inputFirst: Int, inputCount: Int) {
        if horizontal {
            let columns = taps(from: x, count: width, inputFirst: inputFirst, inputCount: inputCount)
            for row in 0..<height {
                let source = input + row * inputStride, target = output + row * outputStride
                for (j, tap) in columns.enumerated() {
                    for band in 0..<bands {
                        var sum: Float = 0
                        for (i, w) in tap.weights.enumerated() { sum += w * source[(tap.first - inputFirst + i) * bands + band] }
                        target[j * bands + band] = sum
                    }
                }
            }
        } else {
            let rows = taps(from: y, count: height, inputFirst: inputFirst, inputCount: inputCount)
            for (k, tap) in rows.enumerated() {
                let target = output + k * outputStride
                for s in 0..<(width * bands) { target[s] = 0 }
                for (i, w) in tap.weights.enumerated() {
                    let source = input + (tap.first - inputFirst + i) * inputStride
                    for s in 0..<(width * bands) { target[s] += w * source[s] }
                }
            }
        }
    }
}
