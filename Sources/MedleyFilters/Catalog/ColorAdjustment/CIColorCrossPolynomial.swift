import MedleyKernels

/// CIColorCrossPolynomial: each colour channel a second-order polynomial of all three.
///
/// Apple: with coefficients (c0 … c9),
/// `out = c0·r + c1·g + c2·b + c3·r² + c4·g² + c5·b² + c6·r·g + c7·g·b + c8·b·r + c9`,
/// in the working space; alpha is kept.
enum ColorCrossPolynomial: FilterDefinition {
    static let defaults: [[Double]] = [
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
    ]

    static let attributes = FilterAttributes(
        name: "CIColorCrossPolynomial",
        displayName: "Color Cross Polynomial",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Modifies the pixel values in an image by applying a set of polynomial cross-products.",
        reference: "Apple: out = c0·r + c1·g + c2·b + c3·r² + c4·g² + c5·b² + c6·rg + c7·gb + c8·br + c9 per colour "
            + "channel, in the working space",
        parameters: [.inputImage] + zip([("Red", "red"), ("Green", "green"), ("Blue", "blue")], defaults).map { names, fallback in
            ParameterAttributes(
                name: "input\(names.0)Coefficients", type: .vector, displayName: "\(names.0) Coefficients",
                description: "Polynomial coefficients for \(names.1) channel.",
                defaultValue: .vector(fallback), identity: .vector(fallback))
        })

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let channels = zip(["Red", "Green", "Blue"], defaults).map { inputs.vector("input\($0.0)Coefficients") ?? $0.1 }
        guard channels.allSatisfy({ $0.count == 10 }) else { return image }
        if channels == defaults { return image }
        return .point(Operation(coefficients: channels.flatMap { $0.map(Float.init) }), of: image)
    }

    struct Operation: PointOperation {
        /// Three rows of ten, one after the other.
        let coefficients: [Float]

        func apply(_ block: PixelBlock) {
            let k = coefficients
            block.forEachVector { r, g, b, _ in
                @inline(__always)
                func row(_ o: Int) -> SIMD8<Float> {
                    var sum: SIMD8<Float> = k[o] * r
                    sum += k[o + 1] * g
                    sum += k[o + 2] * b
                    sum += k[o + 3] * (r * r)
                    sum += k[o + 4] * (g * g)
                    sum += k[o + 5] * (b * b)
                    sum += k[o + 6] * (r * g)
                    sum += k[o + 7] * (g * b)
                    sum += k[o + 8] * (b * r)
                    return sum + k[o + 9]
                }
                let red = row(0), green = row(10), blue = row(20)
                r = red
                g = green
                b = blue
            }
        }
    }
}
