import MedleyKernels

/// CIAffineTile: a CGAffineTransform [a b c d tx ty] applied to the image, then the transformed image repeats in every direction (Core Image's result is infinite; Medley keeps the input's extent: the tiling seen through that rectangle).
/// Each output pixel shows the input at T⁻¹(p); a transform without an inverse (determinant 0)
/// leaves nothing to show, so the result is transparent.
enum AffineTile: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIAffineTile",
        displayName: "Affine Tile",
        categories: [Category.tileEffect] + Category.common,
        summary: "Applies an affine transform to an image and then tiles the transformed image.",
        reference: "Apple: x' = a·x + c·y + tx, y' = b·x + d·y + ty (origin bottom-left); output pixel p shows the input at T⁻¹(p), "
            + "edges: wrap; extent: the input's; bilinear sampling by libvips",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputTransform", type: .transform, displayName: "Transform",
                description: "The transform to apply to the image, as [a b c d tx ty].",
                defaultValue: .vector([1, 0, 0, 1, 0, 0]), identity: .vector([1, 0, 0, 1, 0, 0])),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let t = inputs.vector("inputTransform") ?? [1, 0, 0, 1, 0, 0]
        if t == [1, 0, 0, 1, 0, 0] { return image }
        return .geometry(.warp(InverseAffineMap(t), edges: .wrap, name: attributes.name), of: image)
    }
}
