import MedleyKernels

/// CIColorCubesMixedWithMask: two cubes over the image, mixed pixel by pixel by a mask. Apple says
/// only that "the mask image is used as an interpolant"; Medley takes the mask's Rec. 709
/// luminance (in the working space, clamped to 0…1): out = mix(cube0(c), cube1(c), Y(mask)). The
/// result has the image's extent and alpha; the mask is aligned at the origin, as Core Image does.
enum ColorCubesMixedWithMask: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorCubesMixedWithMask",
        displayName: "Color Cubes Mixed With Mask",
        categories: ColorCubeParameters.categories,
        summary: "Uses two three-dimensional color tables in a specified colorspace to transform the source image "
            + "pixels. The mask image is used as an interpolant to mix the output of the two cubes.",
        reference: "out = mix(cube0(c), cube1(c), m), m = Rec. 709 luminance (0.2126, 0.7152, 0.0722) of the mask, "
            + "clamped to 0…1; Apple's cube layout, looked up in inputColorSpace (or the working space when unset); "
            + "tetrahedral (default) or trilinear interpolation",
        parameters: [.inputImage, mask, ColorCubeParameters.dimension,
                     ColorCubeParameters.data("inputCube0Data", displayName: "Cube 0 Data"),
                     ColorCubeParameters.data("inputCube1Data", displayName: "Cube 1 Data"),
                     ColorCubeParameters.colorSpace, ColorCubeParameters.extrapolate, ColorCubeParameters.interpolation])

    static let mask = ParameterAttributes(
        name: "inputMaskImage", type: .image, displayName: "Mask Image", description: "A masking image.")

    static func problem(_ inputs: FilterInputs) -> String? {
        ColorCubeParameters.dataProblem(inputs, key: "inputCube0Data") ?? ColorCubeParameters.dataProblem(inputs, key: "inputCube1Data")
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"), let mask = inputs.image("inputMaskImage"),
              let cube0 = ColorCubeParameters.table(inputs, key: "inputCube0Data"),
              let cube1 = ColorCubeParameters.table(inputs, key: "inputCube1Data") else { return nil }
        let encoding = ColorCubeParameters.encoding(colorSpace: inputs.text("inputColorSpace"), workingSpace: inputs.workingSpace)
        let kernel = ColorCubeMixKernel(cube0: cube0, cube1: cube1, interpolation: ColorCubeParameters.interpolation(inputs),
                                        extrapolate: inputs.boolean("inputExtrapolate") ?? false, encoding: encoding)
        return .composite(kernel, foreground: mask, background: image)
    }
}
