import MedleyKernels

/// CIBlendWithMask and its red, blue and alpha siblings: interpolate between `inputImage` and
/// `inputBackgroundImage` by one value of `inputMaskImage` — 0 gives the background, 1 the image.
///
/// Core Image computes mix(background, image, m) on premultiplied pixels. Medley builds that from
/// two-image composites, with no three-image node: each side keeps its colour with its alpha
/// weighed (the image by m, the background by 1 − m), and the two are added as
/// CIAdditionCompositing adds — the mask's recipe is rendered once per side.
protocol MaskBlendFilter: FilterDefinition {
    static var channel: MaskChannel { get }
    static var name: String { get }
    static var displayName: String { get }
    static var summary: String { get }
    static var maskWord: String { get }
}

extension MaskBlendFilter {
    static var attributes: FilterAttributes {
        FilterAttributes(
            name: name, displayName: displayName,
            categories: [Category.compositeOperation] + Category.common,
            summary: summary,
            reference: "Apple: mix(background, image, m) on premultiplied RGBA, m = the mask's \(maskWord) "
                + "(premultiplied, clipped to 0…1)",
            parameters: [
                .inputImage,
                .inputBackgroundImage,
                ParameterAttributes(
                    name: "inputMaskImage", type: .image, displayName: "Mask Image",
                    description: "A masking image."),
            ])
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"), let background = inputs.image("inputBackgroundImage"),
              let mask = inputs.image("inputMaskImage") else { return nil }
        let weighedImage = FilterImage.composite(MaskWeightKernel(channel, inverted: false), foreground: mask, background: image)
        let weighedBackground = FilterImage.composite(MaskWeightKernel(channel, inverted: true), foreground: mask,
                                                      background: background)
        return .composite(CompositeKernel(.addition), foreground: weighedImage, background: weighedBackground)
    }
}

enum BlendWithMask: MaskBlendFilter {
    static let channel = MaskChannel.green
    static let name = "CIBlendWithMask"
    static let displayName = "Blend With Mask"
    static let summary = "Uses values from a grayscale mask to interpolate between an image and the background. When a "
        + "mask green value is 0.0, the result is the background. When the mask green value is 1.0, the result is the image."
    static let maskWord = "green"
}

enum BlendWithRedMask: MaskBlendFilter {
    static let channel = MaskChannel.red
    static let name = "CIBlendWithRedMask"
    static let displayName = "Blend With Red Mask"
    static let summary = "Uses values from a mask image to interpolate between an image and the background. When a mask "
        + "red value is 0.0, the result is the background. When the mask red value is 1.0, the result is the image."
    static let maskWord = "red"
}

enum BlendWithBlueMask: MaskBlendFilter {
    static let channel = MaskChannel.blue
    static let name = "CIBlendWithBlueMask"
    static let displayName = "Blend With Blue Mask"
    static let summary = "Uses values from a mask image to interpolate between an image and the background. When a mask "
        + "blue value is 0.0, the result is the background. When the mask blue value is 1.0, the result is the image."
    static let maskWord = "blue"
}

enum BlendWithAlphaMask: MaskBlendFilter {
    static let channel = MaskChannel.alpha
    static let name = "CIBlendWithAlphaMask"
    static let displayName = "Blend With Alpha Mask"
    static let summary = "Uses values from a mask image to interpolate between an image and the background. When a mask "
        + "alpha value is 0.0, the result is the background. When the mask alpha value is 1.0, the result is the image."
    static let maskWord = "alpha"
}
