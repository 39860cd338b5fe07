import MedleyKernels

/// CIColorPolynomial: a cubic polynomial per channel, alpha included.
///
/// Apple: for each channel c with coefficients (a0, a1, a2, a3), `c' = a0 + a1·c + a2·c² + a3·c³`,
/// in the working space.
enum ColorPolynomial: FilterDefinition {
    static let identity: [Double] = [0, 1, 0, 0]

    static let attributes = FilterAttributes(
        name: "CIColorPolynomial",
        displayName: "Color Polynomial",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Modifies the pixel values in an image by applying a set of cubic polynomials.",
        reference: "Apple: c' = a0 + a1·c + a2·c² + a3·c³ per RGBA channel, in the working space",
        parameters: [.inputImage] + [("Red", "red"), ("Green", "green"), ("Blue", "blue"), ("Alpha", "alpha")].map { name, word in
            ParameterAttributes(
                name: "input\(name)Coefficients", type: .vector, displayName: "\(name) Coefficients",
                description: "Polynomial coefficients for \(word) channel.",
                defaultValue: .vector(identity), identity: .vector(identity))
        })

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let channels = ["Red", "Green", "Blue", "Alpha"].map { inputs.vector("input\($0)Coefficients") ?? identity }
        guard channels.allSatisfy({ $0.count == 4 }) else { return image }
        if channels.allSatisfy({ $0 == identity }) { return image }
        let c = channels.map { SIMD4($0.map(Float.init)) }
        return .point(Operation(red: c[0], green: c[1], blue: c[2], alpha: c[3]), of: image)
    }

    struct Operation: PointOperation {
        let red: SIMD4<Float>, green: SIMD4<Float>, blue: SIMD4<Float>, alpha: SIMD4<Float>
        var changesAlpha: Bool { alpha != SIMD4(0, 1, 0, 0) }

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, a in
                r = cubic(r, red)
                g = cubic(g, green)
                b = cubic(b, blue)
                a = cubic(a, alpha)
            }
        }

        @inline(__always)
        func cubic(_ x: SIMD8<Float>, _ k: SIMD4<Float>) -> SIMD8<Float> {
            ((k.w * x + k.z) * x + k.y) * x + k.x
        }
    }
}
