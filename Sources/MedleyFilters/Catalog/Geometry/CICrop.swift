/// CICrop: keeps the part of the image inside a rectangle (Core Image coordinates: origin at the
/// bottom-left, y up).
enum Crop: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICrop",
        displayName: "Crop",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Applies a crop to an image.",
        reference: "Apple: the intersection of the image with inputRectangle [x y width height], origin bottom-left",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputRectangle", type: .rectangle, displayName: "Rectangle",
                description: "The rectangle that specifies the crop to apply to the image.",
                defaultValue: .vector([-8.98847e307, -8.98847e307, 1.79769e308, 1.79769e308])),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let r = inputs.vector("inputRectangle") ?? []
        guard r.count == 4, r[2] < 1e300, r[3] < 1e300 else { return image }  // the default: infinite
        return .geometry(.crop(x: r[0], y: r[1], width: r[2], height: r[3]), of: image)
    }
}
