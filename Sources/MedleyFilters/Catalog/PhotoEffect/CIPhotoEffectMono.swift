/// CIPhotoEffectMono. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// Rec. 709 luma in every channel, then a gentle S-curve.
enum PhotoEffectMono: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0, curve: 0.3)

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectMono",
        displayName: "Photo Effect Mono",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "black-and-white photography film with low contrast.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
