import MedleyKernels

/// CIGammaAdjust: `pow(rgb, power)` per channel, as Apple documents.
enum GammaAdjust: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIGammaAdjust",
        displayName: "Gamma Adjust",
        categories: [Category.colorAdjustment] + Category.common + [Category.xmpSerializable],
        summary: "Adjusts midtone brightness.",
        reference: "Apple: out = pow(in, inputPower) per colour channel, in the working space",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputPower", type: .scalar, displayName: "Power",
                description: "A gamma value to use to correct image brightness. The larger the value, the darker the result.",
                defaultValue: .number(1), identity: .number(1), sliderMinimum: 0.25, sliderMaximum: 4),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let power = inputs.float("inputPower", 1)
        if power == 1 { return image }
        return .point(Operation(power: power), of: image)
    }

    struct Operation: PointOperation {
        let power: Float
        var isChannelwise: Bool { true }
        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = VectorMath.pow(r, power)
                g = VectorMath.pow(g, power)
                b = VectorMath.pow(b, power)
            }
        }
    }
}
