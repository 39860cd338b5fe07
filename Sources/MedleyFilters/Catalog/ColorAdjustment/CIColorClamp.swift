import MedleyKernels

/// CIColorClamp: keeps each component (alpha included) between a minimum and a maximum.
///
/// Apple: `out = clamp(in, inputMinComponents, inputMaxComponents)` per component, in the
/// working space (linear light unless `colorSpace: none`).
enum ColorClamp: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorClamp",
        displayName: "Color Clamp",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Modifies color values to keep them within a specified range.",
        reference: "Apple: out = clamp(in, inputMinComponents, inputMaxComponents) per RGBA component, in the working space",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputMinComponents", type: .vector, displayName: "Minimum Components",
                description: "Lower clamping values.",
                defaultValue: .vector([0, 0, 0, 0]), identity: .vector([0, 0, 0, 0])),
            ParameterAttributes(
                name: "inputMaxComponents", type: .vector, displayName: "Maximum Components",
                description: "Higher clamping values.",
                defaultValue: .vector([1, 1, 1, 1]), identity: .vector([1, 1, 1, 1])),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let low = inputs.vector("inputMinComponents") ?? [0, 0, 0, 0]
        let high = inputs.vector("inputMaxComponents") ?? [1, 1, 1, 1]
        guard low.count == 4, high.count == 4 else { return image }
        return .point(Operation(low: SIMD4(low.map(Float.init)), high: SIMD4(high.map(Float.init))), of: image)
    }

    struct Operation: PointOperation {
        let low: SIMD4<Float>
        let high: SIMD4<Float>
        var changesAlpha: Bool { low.w > 0 || high.w < 1 }

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, a in
                r = VectorMath.clamp(r, low.x, high.x)
                g = VectorMath.clamp(g, low.y, high.y)
                b = VectorMath.clamp(b, low.z, high.z)
                a = VectorMath.clamp(a, low.w, high.w)
            }
        }
    }
}
