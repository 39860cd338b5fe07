import MedleyKernels

/// A CIPhotoEffect… look as a short recipe of open, well-known steps.
///
/// Apple publishes no maths for these looks: Core Image looks each one up in a private colour
/// cube, indexed by device RGB. So a recipe works on sRGB-encoded values too, where tone curves
/// and lifted blacks behave as photographers expect: in the default linear working space the
/// pixels are encoded first and decoded after; with `colorSpace: none` the working values already
/// are the stored values and are used as they are. The steps, in order, each skipped at its
/// neutral value:
///
/// 1. saturation `s`: `c = Y + s·(c − Y)`, Y the Rec. 709 luma of the encoded values (`s = 0` is mono);
/// 2. S-curve `k`: `c = mix(c, smoothstep(0, 1, c), k)` — GLSL's Hermite `3c² − 2c³`, which keeps
///    0, ½ and 1 and steepens the mid-tones (slope `1 + k/2` at ½);
/// 3. levels: `c = black + (white − black)·c` per channel, as Photoshop's output levels — lifts
///    blacks (fade), lowers whites, flattens contrast, or casts a colour;
/// 4. split tone: `c += (1 − Y)·shadows + Y·highlights`, Y the luma after step 3 — tints shadows
///    and highlights separately, as Lightroom's split toning does;
///
/// then the result is clamped to 0…1 (as the cube's domain is) and decoded back to linear light.
struct PhotoEffectRecipe: Sendable {
    var saturation: Float = 1
    var curve: Float = 0
    var black = SIMD3<Float>(repeating: 0)
    var white = SIMD3<Float>(repeating: 1)
    var shadows = SIMD3<Float>(repeating: 0)
    var highlights = SIMD3<Float>(repeating: 0)

    /// What every photo effect declares: Core Image's categories and its one input.
    static let categories = [Category.colorEffect] + Category.common + [Category.xmpSerializable]
    static let parameters: [ParameterAttributes] = [.inputImage]

    /// The `reference` attribute: the recipe's own numbers, so the declaration cannot drift from
    /// the maths.
    var reference: String {
        var steps: [String] = []
        if saturation != 1 {
            steps.append(saturation == 0 ? "Y = Rec. 709 luma (0.2126, 0.7152, 0.0722)·rgb in every channel"
                : "saturation c = Y + \(format(saturation))·(c − Y), Y = Rec. 709 luma")
        }
        if curve != 0 { steps.append("S-curve c = mix(c, 3c² − 2c³, \(format(curve)))") }
        if black != SIMD3(repeating: 0) || white != SIMD3(repeating: 1) {
            steps.append("levels c = black + (white − black)·c, black \(format(black)), white \(format(white))")
        }
        if shadows != SIMD3(repeating: 0) || highlights != SIMD3(repeating: 0) {
            steps.append("split tone c += (1 − Y)·\(format(shadows)) + Y·\(format(highlights))")
        }
        return "Medley approximation (Apple publishes none), on sRGB-encoded values (the stored values under "
            + "colorSpace: none), clamped to 0…1: "
            + steps.joined(separator: "; ")
    }

    /// Numbers as written in the recipe (Float's shortest form: 0.9, not 0.8999999761581421).
    private func format(_ v: Float) -> String { FilterValue.format(Double(v.description) ?? Double(v)) }
    private func format(_ v: SIMD3<Float>) -> String {
        v.x == v.y && v.y == v.z ? format(v.x) : "(\(format(v.x)), \(format(v.y)), \(format(v.z)))"
    }

    /// The look over `inputImage`, one point-wise pass.
    func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .point(PhotoEffectOperation(recipe: self, workingSpace: inputs.workingSpace), of: image)
    }
}

/// Runs a `PhotoEffectRecipe` over a block.
struct PhotoEffectOperation: PointOperation {
    let recipe: PhotoEffectRecipe
    /// How the block's values relate to the sRGB-encoded values the recipe is written for.
    let workingSpace: Transfer

    func apply(_ block: PixelBlock) {
        let luma = ColorEffectMaths.rec709Luma
        let look = recipe
        // Steps at their neutral value are skipped; they would change nothing.
        let saturate = look.saturation != 1
        let curve = look.curve
        let levels = look.black != SIMD3(repeating: 0) || look.white != SIMD3(repeating: 1)
        let range = look.white - look.black
        let split = look.shadows != SIMD3(repeating: 0) || look.highlights != SIMD3(repeating: 0)
        let linear = workingSpace == .sRGB
        @inline(__always) func encoded(_ v: SIMD8<Float>) -> SIMD8<Float> {
            linear ? VectorMath.encodeSRGB(v) : VectorMath.clamp(v, 0, 1)
        }
        @inline(__always) func working(_ v: SIMD8<Float>) -> SIMD8<Float> {
            linear ? VectorMath.decodeSRGB(v) : VectorMath.clamp(v, 0, 1)
        }
        block.forEachVector { r, g, b, _ in
            var c = (encoded(r), encoded(g), encoded(b))
            if saturate {
                let y = luma.x * c.0 + luma.y * c.1 + luma.z * c.2
                let s = look.saturation
                c = (y + (c.0 - y) * s, y + (c.1 - y) * s, y + (c.2 - y) * s)
            }
            if curve != 0 {
                c.0 += (VectorMath.smoothstep(0, 1, c.0) - c.0) * curve
                c.1 += (VectorMath.smoothstep(0, 1, c.1) - c.1) * curve
                c.2 += (VectorMath.smoothstep(0, 1, c.2) - c.2) * curve
            }
            if levels {
                c = (look.black.x + range.x * c.0, look.black.y + range.y * c.1, look.black.z + range.z * c.2)
            }
            if split {
                let y = luma.x * c.0 + luma.y * c.1 + luma.z * c.2
                c.0 += (1 - y) * look.shadows.x + y * look.highlights.x
                c.1 += (1 - y) * look.shadows.y + y * look.highlights.y
                c.2 += (1 - y) * look.shadows.z + y * look.highlights.z
            }
            r = working(c.0)
            g = working(c.1)
            b = working(c.2)
        }
    }
}
