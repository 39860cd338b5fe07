/// Position-dependent and stylising filters (vignettes, pixellate, tonal shaping).
enum StylizeGroup {
    static let filters: [FilterDefinition.Type] = [
        HighlightShadowAdjust.self,
        Pixellate.self,
        Vignette.self,
        VignetteEffect.self,
    ]
}
