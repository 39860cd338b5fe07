/// CILanczosScaleTransform: high-quality scaling; height × scale, width × scale × aspect ratio.
enum LanczosScaleTransform: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CILanczosScaleTransform",
        displayName: "Lanczos Scale Transform",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Produces a high-quality, scaled version of a source image.",
        reference: "Lanczos-3 resampling (libvips vips_resize), anti-aliased when shrinking",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputScale", type: .scalar, displayName: "Scale",
                description: "The scaling factor to use on the image. Values less than 1.0 scale down the images. Values greater than 1.0 scale up the image.",
                defaultValue: .number(1), identity: .number(1), minimum: 0.0001, sliderMinimum: 0.05, sliderMaximum: 1.5, limit: .imageSide),
            ParameterAttributes(
                name: "inputAspectRatio", type: .scalar, displayName: "Aspect Ratio",
                description: "The additional horizontal scaling factor to use on the image.",
                defaultValue: .number(1), identity: .number(1), minimum: 0.0001, sliderMinimum: 0.05, sliderMaximum: 2, limit: .imageSide),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let scale = inputs.number("inputScale") ?? 1, aspect = inputs.number("inputAspectRatio") ?? 1
        if scale == 1 && aspect == 1 { return image }
        return .geometry(.scale(scale: scale, aspectRatio: aspect), of: image)
    }
}
