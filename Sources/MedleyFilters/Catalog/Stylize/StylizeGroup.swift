/// Position-dependent and stylising filters (vignettes, pixellate, tonal shaping).
enum StylizeGroup {
    static let filters: [FilterDefinition.Type] = [
        Bloom.self,
        ComicEffect.self,
        Crystallize.self,
        Edges.self,
        EdgeWork.self,
        Gloom.self,
        HexagonalPixellate.self,
        HighlightShadowAdjust.self,
        LineOverlay.self,
        Pixellate.self,
        Pointillize.self,
        SpotColor.self,
        SpotLight.self,
        Vignette.self,
        VignetteEffect.self,
    ]
}
