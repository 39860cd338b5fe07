import MedleyKernels

/// CIColorCubeWithColorSpace: CIColorCube with the table's values in a named space. Medley honours
/// sRGB (encoded values: a linear working space is encoded before the lookup and decoded after)
/// and linearSRGB (linear light: an encoded working space, `colorSpace: none`, is decoded first);
/// unset, the table applies in the working space as CIColorCube's does.
enum ColorCubeWithColorSpace: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorCubeWithColorSpace",
        displayName: "Color Cube with ColorSpace",
        categories: ColorCubeParameters.categories,
        summary: "Uses a three-dimensional color table in a specified colorspace to transform the source image pixels.",
        reference: "Apple's cube layout (RGBA premultiplied floats, red fastest, then green, then blue), looked up in "
            + "inputColorSpace (sRGB-encoded or linear sRGB values); tetrahedral (default) or trilinear interpolation; "
            + "out = in + intensity·(LUT(in) − in)",
        parameters: [.inputImage, ColorCubeParameters.dimension, ColorCubeParameters.data(), ColorCubeParameters.extrapolate,
                     ColorCubeParameters.colorSpace, ColorCubeParameters.intensity, ColorCubeParameters.interpolation])

    static func problem(_ inputs: FilterInputs) -> String? {
        ColorCubeParameters.dataProblem(inputs, key: "inputCubeData")
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"),
              let table = ColorCubeParameters.table(inputs, key: "inputCubeData") else { return nil }
        let intensity = inputs.float("intensity", 1)
        if intensity == 0 { return image }
        let encoding = ColorCubeParameters.encoding(colorSpace: inputs.text("inputColorSpace"), workingSpace: inputs.workingSpace)
        return .point(ColorLookupOperation(table: table, interpolation: ColorCubeParameters.interpolation(inputs),
                                           extrapolate: inputs.boolean("inputExtrapolate") ?? false,
                                           intensity: intensity, encoding: encoding), of: image)
    }
}
