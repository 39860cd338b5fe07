import MedleyKernels

/// CIMedianFilter: each pixel becomes the median of its 3 × 3 neighbourhood, channel by channel.
enum MedianFilter: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMedianFilter",
        displayName: "Median",
        categories: [Category.blur, Category.video, Category.stillImage, Category.builtIn],
        summary: "Computes the median value for a group of neighboring pixels and replaces each pixel value with the median.",
        reference: "median of the 3×3 neighbourhood, each channel on its own (alpha too), edges extended "
            + "(as vips rank 3 3 4)",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .region(MedianKernel(), of: image)
    }
}
