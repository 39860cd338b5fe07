import MedleyKernels

/// CIMorphologyGradient: dilation minus erosion by a disc, which outlines edges.
enum MorphologyGradient: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMorphologyGradient",
        displayName: "Morphology Gradient",
        categories: [Category.stylize, Category.video, Category.stillImage, Category.builtIn],
        summary: "Finds the edges of an image by returning the difference between the morphological minimum and maximum operations to the image.",
        reference: "morphological gradient: max − min of each colour channel over the disc dx² + dy² ≤ inputRadius², "
            + "alpha unchanged, edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "The desired radius of the circular morphological operation to the image.",
                defaultValue: .number(2), minimum: 0, sliderMinimum: 0, sliderMaximum: 50, limit: .morphologySize),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .region(MorphologyKernel.disc(radius: inputs.number("inputRadius") ?? 2, operation: .gradient), of: image)
    }
}
