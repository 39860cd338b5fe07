/// CIPhotoEffectTonal. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// Rec. 709 luma with contrast flattened a little: greyer blacks and whites, no curve.
enum PhotoEffectTonal: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0,
                                          black: SIMD3(repeating: 0.06), white: SIMD3(repeating: 0.94))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectTonal",
        displayName: "Photo Effect Tonal",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "black-and-white photography film without significantly altering contrast.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
