/// CILineScreen: simulates the line pattern of a halftone screen. The screen is `HalftoneScreen`'s (Apple publishes no maths).
enum LineScreen: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CILineScreen",
        displayName: "Line Screen",
        categories: [Category.halftoneEffect] + Category.common,
        summary: "Simulates the line pattern of a halftone screen.",
        reference: "classic ordered screen on Rec. 709 luminance L: out = smoothstep(t' − e, t' + e, L), t' = e + (1 − 2e)·t, e = max(0.5·(1 − sharpness), 0.001), "
            + "t = 0.5 + 0.5·cos 2πv/w over (u, v) = (x, y) − center rotated by −angle, w = width",
        parameters: [
            .inputImage,
            HalftoneScreen.centerParameter("line screen"),
            HalftoneScreen.angle,
            HalftoneScreen.width("lines"),
            HalftoneScreen.sharpness,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        HalftoneScreen.output(inputs, pattern: .line)
    }
}
