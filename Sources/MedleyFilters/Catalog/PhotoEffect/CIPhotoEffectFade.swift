/// CIPhotoEffectFade. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// saturation lowered and blacks lifted (whites a little lowered), the faded-print look.
enum PhotoEffectFade: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0.6,
                                          black: SIMD3(repeating: 0.12), white: SIMD3(repeating: 0.95))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectFade",
        displayName: "Photo Effect Fade",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "vintage photography film with diminished color.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
