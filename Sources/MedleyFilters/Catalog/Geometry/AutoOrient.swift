/// Medley's `autoOrient`: turns the image upright by its EXIF orientation and resets the tag
/// (export does this by default; the filter is for graphs that set `autoOrient: false`).
enum AutoOrient: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "autoOrient",
        displayName: "Auto Orient",
        categories: [Category.geometryAdjustment, Category.stillImage],
        summary: "Rotates and flips the image as its EXIF orientation says, then sets the orientation to 1.",
        reference: "EXIF 2.3 Orientation 1–8; libvips vips_autorot",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        inputs.image("inputImage").map { .geometry(.orient, of: $0) }
    }
}
