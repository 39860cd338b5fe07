import Foundation
import MedleyKernels

/// CIExposureAdjust: `rgb · 2^EV` in linear light, as Apple documents — a diagonal colour matrix.
enum ExposureAdjust: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIExposureAdjust",
        displayName: "Exposure Adjust",
        categories: [Category.colorAdjustment] + Category.common + [Category.highDynamicRange, Category.xmpSerializable],
        summary: "Adjusts the exposure setting for an image similar to the way you control exposure for a camera when you change the F-stop.",
        reference: "Apple: out = in · 2^inputEV (linear light)",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputEV", type: .scalar, displayName: "EV",
                description: "The amount to adjust the exposure of the image by. The larger the value, the brighter the exposure.",
                defaultValue: .number(0), identity: .number(0), sliderMinimum: -10, sliderMaximum: 10),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let gain = Float(exp2(inputs.number("inputEV") ?? 0))
        return .colorMatrix(ColorMatrix(rows: [SIMD3(gain, 0, 0), SIMD3(0, gain, 0), SIMD3(0, 0, gain)]), of: image)
    }
}
