/// CIPhotoEffectChrome. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// saturation raised by a third and an S-curve for contrast.
enum PhotoEffectChrome: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 1.35, curve: 0.35)

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectChrome",
        displayName: "Photo Effect Chrome",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "vintage photography film with exaggerated color.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
