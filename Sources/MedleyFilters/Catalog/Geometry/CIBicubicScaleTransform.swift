/// CIBicubicScaleTransform: scaling with a Mitchell–Netravali cubic of parameters B and C (Core
/// Image's default B = 0, C = 0.75); height × scale, width × scale × aspect ratio. Separable, run
/// by Medley's `CubicResampleKernel` inside libvips' pipeline (libvips' own cubic kernels fix B and C).
enum BicubicScaleTransform: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIBicubicScaleTransform",
        displayName: "Bicubic Scale Transform",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Produces a high-quality, scaled version of a source image. The parameters of B and C for this filter determine the sharpness or softness of the resampling.",
        reference: "Mitchell & Netravali 1988 cubic (B, C), separable, stretched by 1/scale when shrinking, weights normalised",
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
            ParameterAttributes(
                name: "inputB", type: .scalar, displayName: "B",
                description: "Specifies the value of B to use for the cubic resampling function.",
                defaultValue: .number(0), identity: .number(0), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputC", type: .scalar, displayName: "C",
                description: "Specifies the value of C to use for the cubic resampling function.",
                defaultValue: .number(0.75), identity: .number(0.75), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let scale = inputs.number("inputScale") ?? 1, aspect = inputs.number("inputAspectRatio") ?? 1
        if scale == 1 && aspect == 1 { return image }
        return .geometry(.bicubicScale(scale: scale, aspectRatio: aspect, b: inputs.number("inputB") ?? 0,
                                       c: inputs.number("inputC") ?? 0.75), of: image)
    }
}
