/// Filters of `CICategoryColorEffect` (colour looks, photo effects).
enum ColorEffectGroup {
    static let filters: [FilterDefinition.Type] = [
        ColorInvert.self,
        ColorMonochrome.self,
        ColorPosterize.self,
        FalseColor.self,
        MaximumComponent.self,
        MinimumComponent.self,
        SepiaTone.self,
    ]
}
