import MedleyKernels

/// CIColorMap: each pixel's colour is looked up in a gradient image by its luminance.
///
/// Apple: "performs a nonlinear transformation of source color values using mapping values provided
/// in a table" (the gradient image). The open formulation used (the gradient map of image editors):
/// the pixel's Rec. 709 luminance in the working space, clamped to 0…1, picks a point along the
/// gradient's bottom row (Core Image's y = 0) — 0 its left pixel, 1 its right — interpolated linearly
/// between neighbouring pixels; the colour becomes that point's, the alpha stays the pixel's own.
enum ColorMap: FilterDefinition {
    /// The widest gradient row Medley reads.
    static let maximumGradientWidth = 65_536

    static let attributes = FilterAttributes(
        name: "CIColorMap",
        displayName: "Color Map",
        categories: [Category.colorEffect] + Category.common,
        summary: "Performs a nonlinear transformation of source color values using mapping values provided in a table.",
        reference: "gradient map: l = clamp(0.2126r + 0.7152g + 0.0722b) in the working space; rgb' = G(l·(w−1)), G the "
            + "gradient image's bottom row (y = 0) interpolated linearly; alpha kept",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputGradientImage", type: .image, displayName: "Gradient Image",
                description: "The image data from this image transforms the source image values."),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"), let gradient = inputs.image("inputGradientImage") else { return nil }
        return .measured(Measured(), of: image, table: gradient)
    }

    struct Measured: MeasuredOperation {
        var needs: MeasurementKind { .tableRow }
        var maximumTablePixels: Int { ColorMap.maximumGradientWidth }

        func operation(from measurement: PixelMeasurement) -> PointOperation? {
            guard case .row(let row) = measurement, !row.isEmpty else { return nil }
            return Lookup(gradient: row)
        }
    }

    struct Lookup: PointOperation {
        let gradient: [SIMD4<Float>]

        func apply(_ block: PixelBlock) {
            let last = Float(gradient.count - 1)
            let top = gradient.count - 1
            gradient.withUnsafeBufferPointer { table in
                for i in 0..<block.count {
                    let luma = (0.2126 * block.red[i] + 0.7152 * block.green[i] + 0.0722 * block.blue[i]).clampedToUnit
                    let position = luma * last
                    // position is in 0…last: a whole index, never NaN (clampedToUnit reads NaN as 0).
                    let low = min(Int(position), top), high = min(low + 1, top)
                    let t = position - Float(low)
                    let colour = table[low] + (table[high] - table[low]) * t
                    block.red[i] = colour.x
                    block.green[i] = colour.y
                    block.blue[i] = colour.z
                }
            }
        }
    }
}
