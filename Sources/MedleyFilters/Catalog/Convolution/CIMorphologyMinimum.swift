import MedleyKernels

/// CIMorphologyMinimum: grey-level erosion by a disc.
enum MorphologyMinimum: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMorphologyMinimum",
        displayName: "Morphology Minimum",
        categories: [Category.blur, Category.video, Category.stillImage, Category.builtIn],
        summary: "Darkens areas of an image by applying a circular morphological minimum operation to the image.",
        reference: "grey-level erosion: the minimum of each channel over the disc dx² + dy² ≤ inputRadius², edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .scalar, displayName: "Radius",
                description: "The desired radius of the circular morphological operation to the image.",
                defaultValue: .number(0), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 50,
                limit: .morphologySize),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = inputs.number("inputRadius") ?? 0
        if radius < 1 { return image }
        return .region(MorphologyKernel.disc(radius: radius, operation: .minimum), of: image)
    }
}
