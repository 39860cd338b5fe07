import MedleyKernels

/// CIComicEffect: the image inked with CILineOverlay's lines at its defaults.
enum ComicEffect: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIComicEffect",
        displayName: "Comic Effect",
        categories: [Category.stylize] + Category.common,
        summary: "Simulates a comic book drawing by outlining edges and applying a color halftone effect.",
        reference: "out = in·(1 − m), m = clamp((|Sobel ∇Y| − 0.1)·50, 0, 1) (CILineOverlay's line alpha at its defaults, "
            + "Y = Rec. 709 luma), traced on the image itself without CILineOverlay's noise reduction; Core Image's halftone "
            + "screen is not reproduced",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .region(LineKernel(intensity: 1, threshold: 0.1, contrast: 50, output: .ink), of: image)
    }
}
