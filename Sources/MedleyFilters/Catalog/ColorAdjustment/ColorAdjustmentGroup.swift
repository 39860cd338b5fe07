/// Filters of `CICategoryColorAdjustment`.
enum ColorAdjustmentGroup {
    static let filters: [FilterDefinition.Type] = [
        ColorControls.self,
        ExposureAdjust.self,
        GammaAdjust.self,
    ]
}
