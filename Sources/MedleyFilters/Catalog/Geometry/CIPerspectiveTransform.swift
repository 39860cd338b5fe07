import MedleyKernels

/// CIPerspectiveTransform: the image's rectangle mapped onto a quadrilateral by a projective
/// transform. The result is the quadrilateral's bounding box, moved to the origin (as
/// CIAffineTransform's is in Medley); outside the quadrilateral is transparent.
enum PerspectiveTransform: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIPerspectiveTransform",
        displayName: "Perspective Transform",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Alters the geometry of an image to simulate the observer changing viewing position.",
        reference: "projective map of the image rectangle onto the quadrilateral (Heckbert 1989, square-to-quad), "
            + "inverted per output pixel, bilinear sampling by libvips; result: the quadrilateral's bounding box",
        parameters: [.inputImage] + Homography.cornerParameters("to map the image to"))

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let corners = ["inputTopLeft", "inputTopRight", "inputBottomRight", "inputBottomLeft"].map {
            inputs.vector($0) ?? [0, 0]
        }
        let xs = corners.map { $0[0] }, ys = corners.map { $0[1] }
        let map = Map(homography: Homography(corners: inputs), minX: xs.min() ?? 0, minY: ys.min() ?? 0,
                      width: (xs.max() ?? 0) - (xs.min() ?? 0), height: (ys.max() ?? 0) - (ys.min() ?? 0))
        return .geometry(.warp(map, edges: .transparent, name: attributes.name), of: image)
    }

    struct Map: WarpMap {
        /// nil for a degenerate quadrilateral: the result is then transparent.
        let homography: Homography?
        let minX, minY, width, height: Double

        func outputSize(inputWidth: Double, inputHeight: Double) -> (width: Double, height: Double) { (width, height) }

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            guard let square = homography?.inverse(x + minX, y + minY) else { return nil }
            return (square.u * inputWidth, square.v * inputHeight)
        }
    }
}
