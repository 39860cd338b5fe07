/// CIAffineTransform: a CGAffineTransform [a b c d tx ty] applied to the image; the result is the
/// transformed bounding box. Quarter turns and flips are exact (no resampling).
enum AffineTransform: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIAffineTransform",
        displayName: "Affine Transform",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Applies an affine transform to an image.",
        reference: "Apple: x' = a·x + c·y + tx, y' = b·x + d·y + ty (origin bottom-left); bicubic resampling by libvips; "
            + "90°/180°/270° turns and flips exact",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputTransform", type: .transform, displayName: "Transform",
                description: "A transform to apply to the image, as [a b c d tx ty] (rotate 90°: [0 1 -1 0 0 0]; flip horizontally: [-1 0 0 1 0 0]).",
                defaultValue: .vector([1, 0, 0, 1, 0, 0]), identity: .vector([1, 0, 0, 1, 0, 0])),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let t = inputs.vector("inputTransform") ?? [1, 0, 0, 1, 0, 0]
        if t == [1, 0, 0, 1, 0, 0] { return image }
        return .geometry(.affine(a: t[0], b: t[1], c: t[2], d: t[3], tx: t[4], ty: t[5]), of: image)
    }
}
