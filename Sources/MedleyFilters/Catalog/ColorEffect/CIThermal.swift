import MedleyKernels

/// CIThermal: a false-colour "thermal camera" look.
///
/// Apple publishes no maths. Medley uses the Geeks3D "thermal vision" post-processing shader:
/// luminance `l = 0.30·R + 0.59·G + 0.11·B` of the sRGB-encoded colour, mapped through blue (0) →
/// yellow (½) → red (1) by linear interpolation; alpha is kept.
enum Thermal: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIThermal",
        displayName: "Thermal",
        categories: [Category.colorEffect] + Category.common,
        summary: "Apply a “Thermal” style effect to an image.",
        reference: "Geeks3D thermal vision shader: l = 0.30R + 0.59G + 0.11B (sRGB-encoded), "
            + "out = mix(blue, yellow, 2l) for l < ½, else mix(yellow, red, 2l − 1)",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(Operation(encoded: inputs.workingSpace == .sRGB), of: image)
    }

    struct Operation: PointOperation {
        let encoded: Bool

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                let (sr, sg, sb) = encoded ? (VectorMath.encodeSRGB(r), VectorMath.encodeSRGB(g), VectorMath.encodeSRGB(b)) : (r, g, b)
                let l = VectorMath.clamp(0.30 * sr + 0.59 * sg + 0.11 * sb, 0, 1)
                let low = l .< 0.5
                // Below ½: blue (0, 0, 1) → yellow (1, 1, 0) by t = 2l; above: yellow → red (1, 0, 0) by t = 2l − 1.
                let t = (2 * l).replacing(with: 2 * l - 1, where: .!low)
                let one = SIMD8<Float>(repeating: 1)
                var nr = t, ng = t, nb = one - t
                nr.replace(with: one, where: .!low)
                ng.replace(with: one - t, where: .!low)
                nb.replace(with: 0, where: .!low)
                r = encoded ? VectorMath.decodeSRGB(nr) : nr
                g = encoded ? VectorMath.decodeSRGB(ng) : ng
                b = encoded ? VectorMath.decodeSRGB(nb) : nb
            }
        }
    }
}
