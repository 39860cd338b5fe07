import MedleyKernels

/// CIXRay: an "X-ray film" look, the negative of the picture in grey.
///
/// Apple publishes no maths. Medley uses the inverted Rec. 601 luma of the sRGB-encoded colour,
/// `v = 1 − (0.299·R + 0.587·G + 0.114·B)`, for all three channels (a negative monochrome, as
/// radiographs are viewed); alpha is kept.
enum XRay: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIXRay",
        displayName: "X-Ray",
        categories: [Category.colorEffect] + Category.common,
        summary: "Apply an “XRay” style effect to an image.",
        reference: "inverted Rec. 601 luma: R = G = B = 1 − (0.299R + 0.587G + 0.114B) on sRGB-encoded values",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(encoded: inputs.workingSpace == .sRGB), of: image)
    }

    struct Operation: PointOperation {
        let encoded: Bool

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                let (sr, sg, sb) = encoded ? (VectorMath.encodeSRGB(r), VectorMath.encodeSRGB(g), VectorMath.encodeSRGB(b)) : (r, g, b)
                let v = 1 - (0.299 * sr + 0.587 * sg + 0.114 * sb)
                let out = encoded ? VectorMath.decodeSRGB(v) : v
                r = out
                g = out
                b = out
            }
        }
    }
}
