/// CICircularScreen: simulates a circular-shaped halftone screen. The screen is `HalftoneScreen`'s
/// (Apple publishes no maths).
enum CircularScreen: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICircularScreen",
        displayName: "Circular Screen",
        categories: [Category.halftoneEffect] + Category.common,
        summary: "Simulates a circular-shaped halftone screen.",
        reference: "classic ordered screen on Rec. 709 luminance L: out = smoothstep(t' − e, t' + e, L), t' = e + (1 − 2e)·t, e = max(0.5·(1 − sharpness), 0.001), "
            + "t = 0.5 + 0.5·cos 2πr/w, r = distance from center, w = width",
        parameters: [
            .inputImage,
            HalftoneScreen.centerParameter("circular screen"),
            HalftoneScreen.width("circles"),
            HalftoneScreen.sharpness,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        HalftoneScreen.output(inputs, pattern: .circular)
    }
}
