import MedleyKernels

/// CIPixellate: the image as a grid of square cells, each one colour (the cell's average).
enum Pixellate: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIPixellate",
        displayName: "Pixellate",
        categories: [Category.stylize] + Category.common,
        summary: "Makes an image blocky by mapping the image to colored squares whose color is defined by the replaced pixels.",
        reference: "cells of inputScale pixels anchored at inputCenter (Core Image coordinates: origin bottom-left); "
            + "each cell = mean of its pixels in linear light, edges extended (a cell crossing the border counts copies "
            + "of the edge pixels)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputCenter", type: .position, displayName: "Center",
                description: "The x and y position to use as the center of the effect",
                defaultValue: .vector([150, 150])),
            ParameterAttributes(
                name: "inputScale", type: .distance, displayName: "Scale",
                description: "The scale determines the size of the squares. Larger values result in larger squares.",
                defaultValue: .number(8), identity: .number(1), minimum: 1, sliderMinimum: 1, sliderMaximum: 100, limit: .cellSize),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        // Beyond a million pixels a cell covers any image; the renderer refuses reaches past its maximum margin.
        let scale = Int(saturating: inputs.number("inputScale") ?? 8, in: 1...1_000_000)
        if scale <= 1 { return image }
        let center = inputs.vector("inputCenter") ?? [150, 150]
        return .region(PixellateKernel(cellSize: scale, originX: center[0], originYFromBottom: center[1]), of: image)
    }
}
