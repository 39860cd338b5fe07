import MedleyKernels

/// CIBokehBlur: a disc blur with a brighter rim, the look of out-of-focus highlights.
enum BokehBlur: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIBokehBlur",
        displayName: "Bokeh Blur",
        categories: [Category.blur, Category.video, Category.stillImage, Category.builtIn],
        summary: "Smooths an image using a disc-shaped convolution kernel.",
        reference: "normalised kernel w(d) = c(r − d)·(1 + inputRingAmount·c(d − r·(1 − inputRingSize))), d = √(dx² + dy²), "
            + "r = inputRadius, c(t) = clamp(t / inputSoftness + ½, 0, 1) (a step when softness is 0); premultiplied alpha, "
            + "edges extended",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRadius", type: .distance, displayName: "Radius",
                description: "The radius determines how many pixels are used to create the blur. The larger the radius, the blurrier the result.",
                defaultValue: .number(20), identity: .number(0), minimum: 0, maximum: 500, sliderMinimum: 0, sliderMaximum: 500,
                limit: .bokehRadius),
            ParameterAttributes(
                name: "inputRingAmount", type: .scalar, displayName: "Ring Amount",
                description: "The amount of extra emphasis at the ring of the bokeh.",
                defaultValue: .number(0), minimum: 0, maximum: 1, sliderMinimum: 0, sliderMaximum: 1),
            ParameterAttributes(
                name: "inputRingSize", type: .scalar, displayName: "Ring Size",
                description: "The size of extra emphasis at the ring of the bokeh.",
                defaultValue: .number(0.1), minimum: 0, maximum: 0.2, sliderMinimum: 0, sliderMaximum: 0.2),
            ParameterAttributes(
                name: "inputSoftness", type: .scalar, displayName: "Softness",
                description: "The softness of the bokeh.",
                defaultValue: .number(1), minimum: 0, maximum: 10, sliderMinimum: 0, sliderMaximum: 10),
        ])

    static func taps(radius: Double, ringAmount: Double, ringSize: Double, softness: Double) -> [ConvolutionTap] {
        let reach = Int(saturating: radius + softness / 2, in: 0...600, rounding: .up)
        func coverage(_ t: Double) -> Double {
            softness > 0 ? min(max(t / softness + 0.5, 0), 1) : (t >= 0 ? 1 : 0)
        }
        var raw: [(Int, Int, Double)] = []
        for dy in -reach...reach {
            for dx in -reach...reach {
                let d = Double(dx * dx + dy * dy).squareRoot()
                let w = coverage(radius - d) * (1 + ringAmount * coverage(d - radius * (1 - ringSize)))
                if w > 0 { raw.append((dx, dy, w)) }
            }
        }
        let total = raw.reduce(0) { $0 + $1.2 }
        guard total > 0 else { return [ConvolutionTap(dx: 0, dy: 0, weight: 1)] }
        return raw.map { ConvolutionTap(dx: $0.0, dy: $0.1, weight: Float($0.2 / total)) }
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let radius = inputs.number("inputRadius") ?? 20
        if radius <= 0 { return image }
        return .region(MatrixConvolutionKernel(
            taps: taps(radius: radius, ringAmount: inputs.number("inputRingAmount") ?? 0,
                       ringSize: inputs.number("inputRingSize") ?? 0.1, softness: inputs.number("inputSoftness") ?? 1),
            alpha: .premultiplied), of: image)
    }
}
