/// CIConstantColorGenerator: one colour everywhere. Core Image's result is infinite; in a Medley
/// graph it takes the size of the graph's input image (so it can be a background).
enum ConstantColorGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIConstantColorGenerator",
        displayName: "Constant Color",
        categories: [Category.generator] + Category.common,
        summary: "Generates a solid color.",
        reference: "Apple: every pixel = inputColor (extent: the graph input's size)",
        parameters: [
            ParameterAttributes(
                name: "inputColor", type: .color, displayName: "Color",
                description: "The color to generate.",
                defaultValue: .color(red: 1, green: 0, blue: 0, alpha: 1)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let colour = inputs.color("inputColor") else { return nil }
        return .constant(colour)
    }
}

/// Generators.
enum GeneratorGroup {
    static let filters: [FilterDefinition.Type] = [ConstantColorGenerator.self, TextImageGenerator.self]
}
