import Foundation
import MedleyKernels

/// CIMotionBlur: the mean along a line through each pixel, as a camera moving during the exposure.
enum MotionBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIMotionBlur",
        displayName: "Motion Blur",
        categories: [Category.blur] + Category.common,
        summary: "Blurs an image to simulate the effect of using a camera that moves a specified angle and distance while capturing the image.",
        reference: "mean of 2·⌈inputRadius⌉ + 1 samples one pixel apart, at t·(cos θ, sin θ) for t in −r…r (θ = inputAngle "
            + "counter-clockwise from +x, Core Image's y up), each sampled bilinearly; premultiplied alpha, edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the blur. The larger the radius, the blurrier the result.",
                defaultValue: .number(20), identity: .number(0), minimum: 0, sliderMinimum: 0, sliderMaximum: 100, limit: .blurReach),
            ParameterAttributes(
                name: "inputAngle", type: .angle, displayName: "Angle",
                description: "The angle of the motion determines which direction the blur smears.",
                defaultValue: .number(0), sliderMinimum: -.pi, sliderMaximum: .pi),
        ])

    /// The taps of the line (y down), bilinear weights merged by position; they sum to 1.
    static func taps(radius: Double, angle: Double) -> [ConvolutionTap] {
        let reach = Int(saturating: radius, in: 0...1000, rounding: .up)
        let dx = cos(angle), dy = -sin(angle)
        let samples = 2 * reach + 1
        var weights: [Int: Double] = [:]
        func key(_ x: Int, _ y: Int) -> Int { (y + 2000) * 4001 + (x + 2000) }
        for k in -reach...reach {
            let t = reach == 0 ? 0 : Double(k) * radius / Double(reach)
            let x = t * dx, y = t * dy
            let x0 = x.rounded(.down), y0 = y.rounded(.down)
            let fx = x - x0, fy = y - y0
            let ix = Int(saturating: x0, in: -1001...1001), iy = Int(saturating: y0, in: -1001...1001)
            for (ox, oy, w) in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)] where w > 0 {
                weights[key(ix + ox, iy + oy), default: 0] += w / Double(samples)
            }
        }
        return weights.sorted { $0.key < $1.key }.map { entry in
            ConvolutionTap(dx: entry.key % 4001 - 2000, dy: entry.key / 4001 - 2000, weight: Float(entry.value))
        }
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = inputs.number("inputRadius") ?? 20
        if radius <= 0 { return image }
        return .region(MatrixConvolutionKernel(taps: taps(radius: radius, angle: inputs.number("inputAngle") ?? 0),
                                               alpha: .premultiplied), of: image)
    }
}
