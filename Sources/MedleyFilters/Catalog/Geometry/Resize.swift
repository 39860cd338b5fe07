import MedleyKernels

/// Medley's `resize`: fits the image to a box the way the movie player scales video
/// (`MPMovieScalingMode`). As the first step of a job it shrinks while decoding (JPEG DCT
/// scaling), like `vipsthumbnail`.
enum Resize: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "resize",
        displayName: "Resize",
        categories: [Category.geometryAdjustment, Category.stillImage],
        summary: "Scales the image into a width × height box: aspectFit (inside, keep proportions), aspectFill "
            + "(cover, then crop: the centre, a gravity, or the most interesting part), fill (stretch), none.",
        reference: "libvips vips_thumbnail (shrink-on-load) as a first step, else vips_resize with Lanczos-3",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "width", type: .count, displayName: "Width",
                description: "The box width in pixels (0: unbounded).",
                defaultValue: .number(0), minimum: 0, sliderMinimum: 16, sliderMaximum: 8192, limit: .imageSide),
            ParameterAttributes(
                name: "height", type: .count, displayName: "Height",
                description: "The box height in pixels (0: unbounded).",
                defaultValue: .number(0), minimum: 0, sliderMinimum: 16, sliderMaximum: 8192, limit: .imageSide),
            ParameterAttributes(
                name: "mode", type: .choice, displayName: "Mode",
                description: "How the image fills the box.",
                defaultValue: .text("aspectFit"), choices: ResizeMode.allCases.map(\.rawValue)),
            ParameterAttributes(
                name: "enlarge", type: .boolean, displayName: "Enlarge",
                description: "Whether a picture smaller than the box is scaled up (false: it keeps its size, as "
                    + "vipsthumbnail's 'WxH>' and sharp's withoutEnlargement).",
                defaultValue: .boolean(true)),
            ParameterAttributes(
                name: "crop", type: .choice, displayName: "Crop",
                description: "What aspectFill keeps: centre; a gravity (north, northeast, east, southeast, south, "
                    + "southwest, west, northwest) as sharp's position and ImageMagick's -gravity; attention (libvips' "
                    + "smartcrop: skin, saturated colour, edges — vipsthumbnail --smartcrop attention) or entropy (the busiest part).",
                defaultValue: .text("centre"), choices: ResizeCrop.names),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        // Sides past ten million pixels are no box any image meets (the renderer's "unbounded").
        let width = Int(saturating: inputs.number("width") ?? 0, in: 0...10_000_000, rounding: .towardZero)
        let height = Int(saturating: inputs.number("height") ?? 0, in: 0...10_000_000, rounding: .towardZero)
        let mode = ResizeMode(rawValue: inputs.text("mode") ?? "aspectFit") ?? .aspectFit
        if mode == .none || (width == 0 && height == 0) { return image }
        let enlarge = inputs.boolean("enlarge") ?? true
        let crop = ResizeCrop(name: inputs.text("crop") ?? "centre") ?? .centre
        return .geometry(.resize(width: width, height: height, mode: mode, enlarge: enlarge, crop: crop), of: image)
    }
}
