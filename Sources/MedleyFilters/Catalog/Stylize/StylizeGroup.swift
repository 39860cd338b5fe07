/// Position-dependent and stylising filters (vignettes, pixellate, tonal shaping).
enum StylizeGroup {
    static let filters: [FilterDefinition.Type] = [
        Bloom.self,
        Crystallize.self,
        Edges.self,
        Gloom.self,
        HexagonalPixellate.self,
        HighlightShadowAdjust.self,
        Pixellate.self,
        Pointillize.self,
        SpotColor.self,
        SpotLight.self,
        Vignette.self,
        VignetteEffect.self,
    ]
}
