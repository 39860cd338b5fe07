/// CIPhotoEffectTransfer. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// a warm, saturated vintage print: raised saturation, mild S-curve, warm output levels.
enum PhotoEffectTransfer: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 1.25, curve: 0.2,
                                          black: SIMD3(0.05, 0.02, 0), white: SIMD3(1, 0.95, 0.84))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectTransfer",
        displayName: "Photo Effect Transfer",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "vintage photography film with emphasized warm colors.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
