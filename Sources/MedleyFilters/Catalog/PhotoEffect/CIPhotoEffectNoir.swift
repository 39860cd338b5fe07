/// CIPhotoEffectNoir. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// Rec. 709 luma, a full S-curve, then levels stretched past 0…1 so deep shadows and
/// highlights clip.
enum PhotoEffectNoir: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0, curve: 1,
                                          black: SIMD3(repeating: -0.08), white: SIMD3(repeating: 1.08))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectNoir",
        displayName: "Photo Effect Noir",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "black-and-white photography film with exaggerated contrast.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
