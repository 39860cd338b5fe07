/// Filters of `CICategoryColorEffect` (colour looks, photo effects).
enum ColorEffectGroup {
    static let filters: [FilterDefinition.Type] = [
        SepiaTone.self,
    ]
}
