import Foundation
import MedleyKernels

/// CIStraightenFilter: rotates the image about its centre and scales it up just enough that the
/// rotated picture covers the whole extent (no empty corners). For a W × H image turned by θ the
/// scale is s = |cos θ| + |sin θ|·max(W/H, H/W): the smallest that keeps all four corners of the
/// extent inside the turned picture.
enum StraightenFilter: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIStraightenFilter",
        displayName: "Straighten",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Rotates the source image by the specified angle in radians. The image is scaled and cropped so that the rotated image fits the extent of the input image.",
        reference: "rotation by angle about the centre, scaled by |cos θ| + |sin θ|·max(W/H, H/W) so no corner is empty; "
            + "bilinear sampling by libvips",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputAngle", type: .angle, displayName: "Angle", description: "An angle in radians.",
                defaultValue: .number(0), identity: .number(0), sliderMinimum: -Double.pi, sliderMaximum: Double.pi),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let angle = inputs.number("inputAngle") ?? 0
        if angle == 0 { return image }
        return .geometry(.warp(Map(cosine: cos(angle), sine: sin(angle)), edges: .clamp, name: attributes.name), of: image)
    }

    struct Map: WarpMap {
        let cosine: Double
        let sine: Double

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            let cx = inputWidth / 2, cy = inputHeight / 2
            let scale = abs(cosine) + abs(sine) * max(inputWidth / inputHeight, inputHeight / inputWidth)
            // The inverse of "rotate by θ, then scale by s": un-scale, rotate by −θ.
            let dx = (x - cx) / scale, dy = (y - cy) / scale
            return (cx + dx * cosine + dy * sine, cy - dx * sine + dy * cosine)
        }
    }
}
