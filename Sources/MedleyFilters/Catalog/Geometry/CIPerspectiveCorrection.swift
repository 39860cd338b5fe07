import MedleyKernels

/// CIPerspectiveCorrection: the quadrilateral of the image made a rectangle (a photographed page
/// or sign squared up). The rectangle is as wide as the quadrilateral's longer horizontal edge and
/// as tall as its longer vertical one (the usual four-point formulation; Apple does not publish
/// its size rule); outside the image is transparent.
enum PerspectiveCorrection: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIPerspectiveCorrection",
        displayName: "Perspective Correction",
        categories: [Category.geometryAdjustment] + Category.common,
        summary: "Applies a perspective correction, transforming an arbitrary quadrilateral region in the source image to a rectangular output image.",
        reference: "projective map of the output rectangle onto the quadrilateral (Heckbert 1989, square-to-quad), bilinear "
            + "sampling by libvips; size: max(|TR − TL|, |BR − BL|) × max(|TL − BL|, |TR − BR|)",
        parameters: [.inputImage] + Homography.cornerParameters("of the region to correct"))

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        func point(_ key: String) -> (Double, Double) {
            let v = inputs.vector(key) ?? [0, 0]
            return (v[0], v[1])
        }
        func distance(_ p: (Double, Double), _ q: (Double, Double)) -> Double {
            ((p.0 - q.0) * (p.0 - q.0) + (p.1 - q.1) * (p.1 - q.1)).squareRoot()
        }
        let tl = point("inputTopLeft"), tr = point("inputTopRight"), br = point("inputBottomRight"), bl = point("inputBottomLeft")
        let map = Map(homography: Homography(corners: inputs),
                      width: max(distance(tr, tl), distance(br, bl)), height: max(distance(tl, bl), distance(tr, br)))
        return .geometry(.warp(map, edges: .transparent, name: attributes.name), of: image)
    }

    struct Map: WarpMap {
        let homography: Homography?
        let width, height: Double

        func outputSize(inputWidth: Double, inputHeight: Double) -> (width: Double, height: Double) { (width, height) }

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            // The output's pixel centres spread over the rounded-up size, edge to edge.
            let w = width.rounded(.up), h = height.rounded(.up)
            return homography?.forward(x / w, y / h)
        }
    }
}
