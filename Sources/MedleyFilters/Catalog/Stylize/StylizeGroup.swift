/// Position-dependent and stylising filters (vignettes, pixellate).
enum StylizeGroup {
    static let filters: [FilterDefinition.Type] = [
        Vignette.self,
    ]
}
