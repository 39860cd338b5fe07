import MedleyKernels

/// CIColorMatrix: Apple's published 4×4 matrix plus bias on unpremultiplied RGBA,
/// `out.c = dot(in, cVector) + bias.c`.
///
/// When alpha neither feeds the colour channels nor changes (the vectors' fourth components are
/// 0, the alpha vector is (0, 0, 0, 1) and the alpha bias 0) the filter is a plain colour matrix,
/// so the optimiser fuses it with its neighbours; otherwise it runs as a point operation that
/// touches alpha too.
enum ColorMatrixFilter: FilterDefinition {
    // Core Image reports these vectors as CIVector with no CIAttributeType; `.rectangle` is the
    // model's only four-number vector type (Core Image itself types CIColorPolynomial's and
    // CIColorClamp's four-number vectors that way).
    static let attributes = FilterAttributes(
        name: "CIColorMatrix",
        displayName: "Color Matrix",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Multiplies source color values and adds a bias factor to each color component.",
        reference: "Apple: s.r = dot(s, inputRVector), s.g = dot(s, inputGVector), s.b = dot(s, inputBVector), "
            + "s.a = dot(s, inputAVector), s = s + inputBiasVector, on unpremultiplied RGBA in the working space",
        parameters: [
            .inputImage,
            vector("inputRVector", "Red Vector", "The amount of red to multiply the source color values by.", [1, 0, 0, 0]),
            vector("inputGVector", "Green Vector", "The amount of green to multiply the source color values by.", [0, 1, 0, 0]),
            vector("inputBVector", "Blue Vector", "The amount of blue to multiply the source color values by.", [0, 0, 1, 0]),
            vector("inputAVector", "Alpha Vector", "The amount of alpha to multiply the source color values by.", [0, 0, 0, 1]),
            vector("inputBiasVector", "Bias Vector", "A vector that’s added to each color component.", [0, 0, 0, 0]),
        ])

    private static func vector(_ name: String, _ displayName: String, _ description: String,
                               _ identity: [Double]) -> ParameterAttributes {
        ParameterAttributes(name: name, type: .rectangle, displayName: displayName, description: description,
                            defaultValue: .vector(identity), identity: .vector(identity))
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        func read(_ key: String, _ fallback: SIMD4<Float>) -> SIMD4<Float> {
            guard let v = inputs.vector(key), v.count == 4 else { return fallback }
            return SIMD4(Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]))
        }
        let r = read("inputRVector", SIMD4(1, 0, 0, 0)), g = read("inputGVector", SIMD4(0, 1, 0, 0))
        let b = read("inputBVector", SIMD4(0, 0, 1, 0)), a = read("inputAVector", SIMD4(0, 0, 0, 1))
        let bias = read("inputBiasVector", .zero)
        let alphaUntouched = r.w == 0 && g.w == 0 && b.w == 0 && a == SIMD4(0, 0, 0, 1) && bias.w == 0
        if alphaUntouched {
            let rows = [r, g, b].map { SIMD3($0.x, $0.y, $0.z) }
            return .colorMatrix(ColorMatrix(rows: rows, bias: SIMD3(bias.x, bias.y, bias.z)), of: image)
        }
        return .point(Operation(r: r, g: g, b: b, a: a, bias: bias), of: image)
    }

    /// The full 4×4 form, for matrices that read or write alpha.
    struct Operation: PointOperation {
        let r, g, b, a, bias: SIMD4<Float>

        func apply(_ block: PixelBlock) {
            block.forEachVector { red, green, blue, alpha in
                let nr = r.x * red + r.y * green + r.z * blue + r.w * alpha + bias.x
                let ng = g.x * red + g.y * green + g.z * blue + g.w * alpha + bias.y
                let nb = b.x * red + b.y * green + b.z * blue + b.w * alpha + bias.z
                let na = a.x * red + a.y * green + a.z * blue + a.w * alpha + bias.w
                red = nr
                green = ng
                blue = nb
                alpha = na
            }
        }
    }
}
