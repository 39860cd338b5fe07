#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MedleyKernels

/// CIPalettize: every pixel takes the nearest colour of a palette image.
///
/// Apple: "Replaces colors with colors from a palette image"; `inputPerceptual` compares colours "in a
/// perceptual color space". Open formulation: the palette is every distinct colour of the palette
/// image; nearest by Euclidean distance of RGB in the working space, or — perceptual — in Oklab
/// (Björn Ottosson, 2020) of the linear-light colour. Alpha is kept.
enum Palettize: FilterDefinition {
    /// The most pixels a palette image may have (each pixel is compared with every palette colour).
    static let maximumPaletteSize = 4096

    static let attributes = FilterAttributes(
        name: "CIPalettize",
        displayName: "Palettize",
        categories: [Category.colorEffect] + Category.common,
        summary: "Replaces colors with colors from a palette image.",
        reference: "nearest distinct colour of the palette image: Euclidean RGB distance in the working space, or in "
            + "Oklab (Ottosson 2020) of linear light when inputPerceptual; alpha kept; at most 4096 palette pixels",
        parameters: [
            .inputImage,
            ParameterAttributes(
                name: "inputPaletteImage", type: .image, displayName: "Palette Image",
                description: "The input color palette, obtained using “CIKMeans“ filter."),
            ParameterAttributes(
                name: "inputPerceptual", type: .boolean, displayName: "Perceptual",
                description: "Specifies whether the color palette should be applied in a perceptual color space.",
                defaultValue: .boolean(false)),
        ])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage"), let palette = inputs.image("inputPaletteImage") else { return nil }
        return .measured(Measured(perceptual: inputs.boolean("inputPerceptual") ?? false, space: inputs.workingSpace),
                         of: image, table: palette)
    }

    struct Measured: MeasuredOperation {
        let perceptual: Bool
        let space: Transfer
        var needs: MeasurementKind { .tablePixels }
        var maximumTablePixels: Int { Palettize.maximumPaletteSize }

        func operation(from measurement: PixelMeasurement) -> PointOperation? {
            guard case .pixels(let pixels) = measurement else { return nil }
            var seen = Set<SIMD3<Float>>(), colours: [SIMD3<Float>] = []
            for pixel in pixels {
                let colour = SIMD3(pixel.x, pixel.y, pixel.z)
                if seen.insert(colour).inserted { colours.append(colour) }
            }
            guard !colours.isEmpty else { return nil }
            return Nearest(colours: colours, keys: colours.map(key), perceptual: perceptual, space: space)
        }

        /// Where a colour is compared.
        func key(_ colour: SIMD3<Float>) -> SIMD3<Float> {
            perceptual ? Oklab.of(linear: SIMD3(space.toLinear(colour.x), space.toLinear(colour.y), space.toLinear(colour.z))) : colour
        }
    }

    struct Nearest: PointOperation {
        let colours: [SIMD3<Float>]
        let keys: [SIMD3<Float>]
        let perceptual: Bool
        let space: Transfer

        func apply(_ block: PixelBlock) {
            for i in 0..<block.count {
                var pixel = SIMD3(block.red[i], block.green[i], block.blue[i])
                if perceptual {
                    pixel = Oklab.of(linear: SIMD3(space.toLinear(pixel.x), space.toLinear(pixel.y), space.toLinear(pixel.z)))
                }
                var best = 0, bestDistance = Float.infinity
                for (index, key) in keys.enumerated() {
                    let d = pixel - key
                    let distance = (d * d).sum()
                    if distance < bestDistance { best = index; bestDistance = distance }
                }
                block.red[i] = colours[best].x
                block.green[i] = colours[best].y
                block.blue[i] = colours[best].z
            }
        }
    }
}

/// Oklab (Björn Ottosson, "A perceptual color space for image processing", 2020), from linear sRGB.
enum Oklab {
    static func of(linear c: SIMD3<Float>) -> SIMD3<Float> {
        let l = 0.4122214708 * c.x + 0.5363325363 * c.y + 0.0514459929 * c.z
        let m = 0.2119034982 * c.x + 0.6806995451 * c.y + 0.1073969566 * c.z
        let s = 0.0883024619 * c.x + 0.2817188376 * c.y + 0.6299787005 * c.z
        let l3 = cbrtf(l), m3 = cbrtf(m), s3 = cbrtf(s)
        return SIMD3(0.2104542553 * l3 + 0.7936177850 * m3 - 0.0040720468 * s3,
                     1.9779984951 * l3 - 2.4285922050 * m3 + 0.4505937099 * s3,
                     0.0259040371 * l3 + 0.7827717662 * m3 - 0.8086757660 * s3)
    }
}

extension Transfer {
    /// A working-space value as linear light: it is already, unless the job works on stored values.
    func toLinear(_ v: Float) -> Float {
        self == .none ? Transfer.sRGB.decode(v) : v
    }
}
