/// CIPhotoEffectProcess. Apple publishes no maths; Medley's recipe (steps in `PhotoEffectRecipe`):
/// a cross-processed split tone: blue shadows, warm highlights, slight contrast.
enum PhotoEffectProcess: FilterDefinition {
    static let recipe = PhotoEffectRecipe(saturation: 0.9, curve: 0.25,
                                          shadows: SIMD3(-0.03, 0, 0.07), highlights: SIMD3(0.05, 0.02, -0.04))

    static let attributes = FilterAttributes(
        name: "CIPhotoEffectProcess",
        displayName: "Photo Effect Process",
        categories: PhotoEffectRecipe.categories,
        summary: "Applies a preconfigured set of effects that imitate "
            + "vintage photography film with emphasized cool colors.",
        reference: recipe.reference,
        parameters: PhotoEffectRecipe.parameters)

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? { recipe.outputImage(inputs) }
}
