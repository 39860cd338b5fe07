import MedleyKernels

/// CIEdges: bright where colours change, dark where they do not.
enum Edges: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIEdges",
        displayName: "Edges",
        categories: [Category.stylize] + Category.common,
        summary: "Finds all edges in an image and displays them in color.",
        reference: "Sobel gradient magnitude per colour channel: out = inputIntensity·√(Gx² + Gy²), Gx = [−1 0 1; −2 0 2; −1 0 1], "
            + "Gy its transpose; alpha kept, edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputIntensity", type: .scalar, displayName: "Intensity",
                description: "The intensity of the edges. The larger the value, the higher the intensity.",
                defaultValue: .number(1), minimum: 0, sliderMinimum: 0, sliderMaximum: 10),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .region(SobelKernel(intensity: inputs.float("inputIntensity", 1)), of: image)
    }
}
