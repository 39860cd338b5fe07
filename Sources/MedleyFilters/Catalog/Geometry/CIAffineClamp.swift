import MedleyKernels

/// CIAffineClamp: a CGAffineTransform [a b c d tx ty] applied to the image, then the edge pixels extend outwards (Core Image's result is infinite; Medley keeps the input's extent, so what shows is the transformed image over that rectangle, its edges stretched where it does not reach).
/// Each output pixel shows the input at T⁻¹(p); a transform without an inverse (determinant 0)
/// leaves nothing to show, so the result is transparent.
enum AffineClamp: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIAffineClamp",
        displayName: "Affine Clamp",
        categories: [Category.tileEffect] + Category.common,
        summary: "Performs an affine transform on a source image and then clamps the pixels at the edge of the transformed image, extending them outwards.",
        reference: "Apple: x' = a·x + c·y + tx, y' = b·x + d·y + ty (origin bottom-left); output pixel p shows the input at T⁻¹(p), "
            + "edges: clamp; extent: the input's; bilinear sampling by libvips",
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
        return .geometry(.warp(InverseAffineMap(t), edges: .clamp, name: attributes.name), of: image)
    }
}
