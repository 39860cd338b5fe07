/// CIPhotoEffectInstant. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// instant-film warmth: yellowed highlights (blue output level lowered), slightly lifted
/// warm blacks, a little less saturation.
enum PhotoEffectInstant: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0.85,
                                          black: SIMD3(0.08, 0.06, 0.03), white: SIMD3(1, 0.97, 0.86))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectInstant",
        displayName: "Photo Effect Instant",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "vintage photography film with distorted colors.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
