/// A two-image composite whose other side is generated pixel by pixel — a constant colour and the
/// point-wise steps over it (a gradient, a checkerboard) — as a point operation over the one image
/// that is read: the generator runs on a block beside the image's, at the same positions, and the
/// composite kernel combines the two, so the composite joins the fused pass.
public struct GeneratedCompositeOperation: PointOperation {
    public let kernel: RowKernel2
    public let colour: SIMD4<Float>
    public let operations: [PointOperation]
    /// Whether the generated image is the composite's foreground (`inputImage`) rather than its background.
    public let generatedIsForeground: Bool

    public init(kernel: RowKernel2, colour: SIMD4<Float>, operations: [PointOperation], generatedIsForeground: Bool) {
        self.kernel = kernel
        self.colour = colour
        self.operations = operations
        self.generatedIsForeground = generatedIsForeground
    }

    public func apply(_ block: PixelBlock) {
        let count = block.count, padded = block.paddedCount
        guard count > 0 else { return }
        // Four planes for the generated side, then three interleaved RGBA rows: image, generated, result.
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4 * padded + 12 * count)
        defer { scratch.deallocate() }
        let red = scratch, green = scratch + padded, blue = scratch + 2 * padded, alpha = scratch + 3 * padded
        for i in 0..<padded {
            red[i] = colour.x
            green[i] = colour.y
            blue[i] = colour.z
            alpha[i] = colour.w
        }
        let generated = PixelBlock(red: red, green: green, blue: blue, alpha: alpha, count: count, x: block.x, y: block.y,
                                   imageWidth: block.imageWidth, imageHeight: block.imageHeight)
        for operation in operations { operation.apply(generated) }
        let image = scratch + 4 * padded, other = image + 4 * count, result = other + 4 * count
        for i in 0..<count {
            image[4 * i] = block.red[i]
            image[4 * i + 1] = block.green[i]
            image[4 * i + 2] = block.blue[i]
            image[4 * i + 3] = block.alpha[i]
            other[4 * i] = red[i]
            other[4 * i + 1] = green[i]
            other[4 * i + 2] = blue[i]
            other[4 * i + 3] = alpha[i]
        }
        if generatedIsForeground {
            kernel.apply(first: other, second: image, to: result, width: count, bands: 4, x: block.x, y: block.y)
        } else {
            kernel.apply(first: image, second: other, to: result, width: count, bands: 4, x: block.x, y: block.y)
        }
        for i in 0..<count {
            block.red[i] = result[4 * i]
            block.green[i] = result[4 * i + 1]
            block.blue[i] = result[4 * i + 2]
            block.alpha[i] = result[4 * i + 3]
        }
    }
}
