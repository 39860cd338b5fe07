import MedleyKernels

/// CIMinimumComponent: a grey image from each pixel's smallest colour component, as Apple
/// documents (`min(r, g, b)`), in the working space (linear light).
enum MinimumComponent: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMinimumComponent",
        displayName: "Minimum Component",
        categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
        summary: "Returns a grayscale image from min(r,g,b).",
        reference: "Apple: out = min(r, g, b) in all three channels, in linear light",
        parameters: [
            ParameterAttributes(name: "inputImage", type: .image, displayName: "Image",
                                description: "The image to process."),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(), of: image)
    }

    struct Operation: PointOperation {
        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                let grey = pointwiseMin(pointwiseMin(r, g), b)
                r = grey
                g = grey
                b = grey
            }
        }
    }
}
