import MedleyKernels

/// CIMorphologyRectangleMinimum: grey-level erosion by a rectangle of odd sides.
enum MorphologyRectangleMinimum: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMorphologyRectangleMinimum",
        displayName: "Morphology Rectangle Minimum",
        categories: [Category.blur, Category.video, Category.stillImage, Category.builtIn],
        summary: "Darkens areas of an image by applying a rectangular morphological maximum operation to the image.",
        reference: MorphologyRectangle.reference("minimum"),
        parameters: MorphologyRectangle.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        MorphologyRectangle.output(inputs, .minimum)
    }
}
