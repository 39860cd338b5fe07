import MedleyKernels

/// CIColorInvert: `1 − rgb`, alpha kept. Core Image implements it as CIColorMatrix with −1 on the
/// diagonal and a bias of 1, in its working space (linear light), and so does Medley.
enum ColorInvert: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorInvert",
        displayName: "Color Invert",
        categories: [Category.colorEffect] + Category.common + [Category.highDynamicRange],
        summary: "Inverts the colors in an image.",
        reference: "Apple: CIColorMatrix with R = (−1, 0, 0), G = (0, −1, 0), B = (0, 0, −1), bias (1, 1, 1): "
            + "out = 1 − in, in linear light",
        parameters: [.inputImage])

    static let matrix = ColorMatrix(rows: [SIMD3(-1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)],
                                    bias: SIMD3(repeating: 1))

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .colorMatrix(matrix, of: image)
    }
}
