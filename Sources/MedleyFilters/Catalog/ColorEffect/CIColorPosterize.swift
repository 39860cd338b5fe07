import MedleyKernels

/// CIColorPosterize: snaps each colour channel to a few evenly spaced values.
///
/// Core Image's steps: `n = floor(levels − 1)` (none below 2 levels), `out = floor(c·n + 0.5) / n`
/// per channel; levels ≥ 300 returns the image untouched. Medley rounds the sRGB-encoded values
/// (as ImageMagick's -posterize and Photoshop do), so the default 6 levels are 0, 51, 102, 153,
/// 204, 255 as stored: in linear light the same steps would turn everything darker than sRGB 89
/// black. Under `colorSpace: none` the stored values are what the filter sees anyway.
enum ColorPosterize: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorPosterize",
        displayName: "Color Posterize",
        categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
        summary: "Remaps red, green, and blue color components to the number of brightness values you specify "
            + "for each color component. This filter flattens colors to achieve a look similar to that of a "
            + "silk-screened poster.",
        reference: "n = floor(inputLevels − 1), out = floor(c·n + 0.5)/n per channel (0 when n < 1) on "
            + "sRGB-encoded values; inputLevels ≥ 300 is the identity",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputLevels", type: .scalar, displayName: "Levels",
                description: "The number of brightness levels to use for each color component. Lower values "
                    + "result in a more extreme poster effect.",
                defaultValue: .number(6), identity: .number(300), minimum: 1, sliderMinimum: 2, sliderMaximum: 30),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let levels = inputs.float("inputLevels", 6)
        if levels >= 300 { return image }
        let steps = (levels - 1).rounded(.down)
        return .point(Operation(steps: max(0, steps), stepSize: steps > 0 ? 1 / steps : 1,
                                encoded: inputs.workingSpace == .sRGB), of: image)
    }

    struct Operation: PointOperation {
        let steps: Float
        let stepSize: Float
        /// Whether the block holds linear light that must be rounded as sRGB-encoded values.
        let encoded: Bool

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = posterize(r)
                g = posterize(g)
                b = posterize(b)
            }
        }

        @inline(__always)
        func posterize(_ value: SIMD8<Float>) -> SIMD8<Float> {
            let v = encoded ? VectorMath.encodeSRGB(value) : value
            let stepped = (v * steps + 0.5).rounded(.down) * stepSize
            return encoded ? VectorMath.decodeSRGB(stepped) : stepped
        }
    }
}
