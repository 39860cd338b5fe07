import MedleyKernels

/// CIColorCube: each pixel's RGB looked up in a 3D colour table.
///
/// Inline data (`inputCubeData`, `inputCubeDimension`) keeps Core Image's semantics: the table
/// applies to working-space values — linear light unless `colorSpace: none` — as Core Image
/// applies it in its working space (CIColorCubeWithColorSpace exists to name another). Medley's own
/// `file:` takes a `.cube` (3D or 1D) or Hald CLUT image, parsed while the pipeline is validated;
/// a file's table applies to the image's sRGB-encoded values whatever the working space, as
/// Resolve, ffmpeg's lut3d and ImageMagick's -hald-clut apply LUTs. Both join the fused
/// point-wise pass.
enum ColorCube: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorCube",
        displayName: "Color Cube",
        categories: ColorCubeParameters.categories,
        summary: "Uses a three-dimensional color table to transform the source image pixels.",
        reference: "Apple's cube layout (RGBA premultiplied floats, red fastest, then green, then blue), applied in "
            + "the working space; a file's LUT applies to sRGB-encoded values (Adobe Cube LUT Specification 1.0, "
            + "Resolve's LUT_1D_INPUT_RANGE, Hald CLUT). Tetrahedral (default) or trilinear interpolation; "
            + "out = in + intensity·(LUT(in) − in)",
        parameters: [.inputImage, ColorCubeParameters.dimension, ColorCubeParameters.data(), ColorCubeParameters.extrapolate,
                     file, ColorCubeParameters.intensity, ColorCubeParameters.interpolation])

    /// Medley's own: a LUT file.
    static let file = ParameterAttributes(
        name: "file", type: .file, displayName: "LUT File",
        description: "A LUT file (Medley): an Adobe/Resolve .cube (3D, or 1D with LUT_1D_INPUT_RANGE) or a Hald CLUT "
            + "PNG, inside the pipeline's assets: folders or the job's ingest folders. It applies to the image's "
            + "sRGB-encoded values, whatever the working space, as Resolve and ffmpeg apply LUTs.")

    static func problem(_ inputs: FilterInputs) -> String? {
        if inputs.lookupTable("file") != nil {
            if let data = inputs.vector("inputCubeData"), data != ColorCubeParameters.identityData {
                return "CIColorCube takes its table from 'file' or from inputCubeData, not both"
            }
            if ColorCubeParameters.dimension(inputs) != 2 {
                return "CIColorCube with a 'file' takes its size from the file: remove inputCubeDimension"
            }
            return nil
        }
        return ColorCubeParameters.dataProblem(inputs, key: "inputCubeData")
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let intensity = inputs.float("intensity", 1)
        let encoding: LookupEncoding, table: ColorLookupTable
        if let fileTable = inputs.lookupTable("file") {
            (table, encoding) = (fileTable, inputs.workingSpace == .sRGB ? .encodeSRGB : .working)
        } else {
            guard let inline = ColorCubeParameters.table(inputs, key: "inputCubeData") else { return nil }
            (table, encoding) = (inline, .working)
        }
        if intensity == 0 { return image }
        return .point(ColorLookupOperation(table: table, interpolation: ColorCubeParameters.interpolation(inputs),
                                           extrapolate: inputs.boolean("inputExtrapolate") ?? false,
                                           intensity: intensity, encoding: encoding), of: image)
    }
}
