/// Point-wise colour functions: clamps, polynomials, thresholds, tone curves, dither and the
/// thermal and X-ray looks (their own array so the big groups' lists stay as they were).
enum ColorFunctionGroup {
    static let filters: [FilterDefinition.Type] = [
        ColorClamp.self,
        ColorMap.self,
        ColorCrossPolynomial.self,
        ColorPolynomial.self,
        ColorThreshold.self,
        ColorThresholdOtsu.self,
        Dither.self,
        LinearToSRGBToneCurve.self,
        Palettize.self,
        SRGBToneCurveToLinear.self,
        Thermal.self,
        XRay.self,
    ]
}
