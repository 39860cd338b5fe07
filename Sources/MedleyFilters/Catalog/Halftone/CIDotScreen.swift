/// CIDotScreen: simulates the dot patterns of a halftone screen. The screen is `HalftoneScreen`'s (Apple publishes no maths).
enum DotScreen: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIDotScreen",
        displayName: "Dot Screen",
        categories: [Category.halftoneEffect] + Category.common,
        summary: "Simulates the dot patterns of a halftone screen.",
        reference: "classic ordered screen on Rec. 709 luminance L: out = smoothstep(t' − e, t' + e, L), t' = e + (1 − 2e)·t, e = max(0.5·(1 − sharpness), 0.001), "
            + "t = 0.5 + 0.25·(cos 2πu/w + cos 2πv/w) over (u, v) = (x, y) − center rotated by −angle, w = width",
        parameters: [
            .inputImage,
            HalftoneScreen.centerParameter("dot screen"),
            HalftoneScreen.angle,
            HalftoneScreen.width("dots"),
            HalftoneScreen.sharpness,
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        HalftoneScreen.output(inputs, pattern: .dot)
    }
}
