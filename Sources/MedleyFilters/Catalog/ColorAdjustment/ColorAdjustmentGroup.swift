/// Filters of `CICategoryColorAdjustment`.
enum ColorAdjustmentGroup {
    static let filters: [FilterDefinition.Type] = [
        ColorControls.self,
        ColorMatrixFilter.self,
        ExposureAdjust.self,
        GammaAdjust.self,
        HueAdjust.self,
        TemperatureAndTint.self,
        ToneCurve.self,
        Vibrance.self,
        WhitePointAdjust.self,
    ]
}
