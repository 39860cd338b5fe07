import MedleyKernels

/// CIMorphologyRectangleMaximum: grey-level dilation by a rectangle of odd sides.
enum MorphologyRectangleMaximum: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMorphologyRectangleMaximum",
        displayName: "Morphology Rectangle Maximum",
        categories: [Category.blur, Category.video, Category.stillImage, Category.builtIn],
        summary: "Lightens areas of an image by applying a rectangular morphological maximum operation to the image.",
        reference: MorphologyRectangle.reference("maximum"),
        parameters: MorphologyRectangle.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        MorphologyRectangle.output(inputs, .maximum)
    }
}

/// What the two rectangle filters share: their sides and how they are made odd.
enum MorphologyRectangle {
    static func reference(_ extreme: String) -> String {
        "the \(extreme) of each channel over a width × height rectangle centred on the pixel; even sides are rounded "
            + "up to the next odd number, as Core Image rounds them to odd; edges extended (as vips rank)"
    }

    static let parameters: [ParameterAttributes] = [
        .inputImage,
        ParameterAttributes(
            name: "inputWidth", type: .scalar, displayName: "Width",
            description: "The width in pixels of the morphological operation. The value will be rounded to the nearest odd integer.",
            defaultValue: .number(5), identity: .number(1), minimum: 1, sliderMinimum: 1, sliderMaximum: 49, limit: .morphologySize),
        ParameterAttributes(
            name: "inputHeight", type: .scalar, displayName: "Height",
            description: "The height in pixels of the morphological operation. The value will be rounded to the nearest odd integer.",
            defaultValue: .number(5), identity: .number(1), minimum: 1, sliderMinimum: 1, sliderMaximum: 49, limit: .morphologySize),
    ]

    /// Half of a side once it is odd: 5 → 2, 4 → 2 (a side of 5).
    static func half(_ side: Double) -> Int { Int(saturating: side, in: 1...1000) / 2 }

    static func output(_ inputs: FilterInputs, _ operation: MorphologyKernel.Operation) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let halfWidth = half(inputs.number("inputWidth") ?? 5), halfHeight = half(inputs.number("inputHeight") ?? 5)
        if halfWidth == 0 && halfHeight == 0 { return image }
        return .region(MorphologyKernel.rectangle(halfWidth: halfWidth, halfHeight: halfHeight, operation: operation), of: image)
    }
}
