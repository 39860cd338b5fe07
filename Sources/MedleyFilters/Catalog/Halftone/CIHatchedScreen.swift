/// CIHatchedScreen: simulates the hatched pattern of a halftone screen. The screen is `HalftoneScreen`'s (Apple publishes no maths).
enum HatchedScreen: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIHatchedScreen",
        displayName: "Hatched Screen",
        categories: [Category.halftoneEffect] + Category.common,
        summary: "Simulates the hatched pattern of a halftone screen.",
        reference: "classic ordered screen on Rec. 709 luminance L: out = smoothstep(t' − e, t' + e, L), t' = e + (1 − 2e)·t, e = max(0.5·(1 − sharpness), 0.001), "
            + "out = min(s(L, 0.5 + 0.5·cos 2πv/w), s(L, 0.5·(0.5 + 0.5·cos 2πu/w))) over (u, v) = (x, y) − center rotated by −angle, w = width",
        parameters: [
            .inputImage,
            HalftoneScreen.centerParameter("hatched screen"),
            HalftoneScreen.angle,
            HalftoneScreen.width("lines"),
            HalftoneScreen.sharpness,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        HalftoneScreen.output(inputs, pattern: .hatched)
    }
}
