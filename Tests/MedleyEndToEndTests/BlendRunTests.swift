import Foundation
import XCTest

/// The blend modes, compositing operators, masked blends and colour functions through
/// `medley run`: against ImageMagick's `-compose` on the same stored values (`colorSpace: none`),
/// and against the W3C / Porter-Duff / Photoshop formulas written here in linear light.
final class BlendRunTests: EndToEndCase {
    private var runs = 0

    /// Runs one job whose `graph:` has these nodes over `input`; returns the output PNG's path.
    func run(graph nodes: String, input: String, colorSpace: String? = nil) throws -> String {
        runs += 1
        let folder = work + "/out-\(runs)"
        let space = colorSpace.map { "    colorSpace: \($0)" } ?? ""
        let path = try pipeline("""
            version: 1
            jobs:
              - name: b
                ingest: { from: [\(input)] }
            \(space)
                graph:
            \(nodes)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return folder + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".png"
    }

    /// `filter` with the input as the source (Cs) over its mirror image as the backdrop (Cb).
    func graph(blending filter: String) -> String {
        """
              mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
              output: { filter: \(filter), inputImage: input, inputBackgroundImage: mirror }
        """
    }

    /// A fixture copied to PNG by vips, so Medley, vips and ImageMagick read the same stored samples.
    func png(_ fixture: String) throws -> String {
        let path = work + "/" + ((fixture as NSString).deletingPathExtension as NSString).lastPathComponent + ".png"
        if !FileManager.default.fileExists(atPath: path) { try Tool.vips(["copy", Tool.fixtures + "/images/" + fixture, path]) }
        return path
    }

    func worst(_ mine: [Int], _ theirs: [Double]) -> Double {
        XCTAssertEqual(mine.count, theirs.count, "sample counts")
        guard mine.count == theirs.count else { return .infinity }
        return zip(mine, theirs).map { abs(Double($0) - $1) }.max() ?? 0
    }

    static func clip(_ x: Double) -> Double { min(max(x, 0), 1) }
    static func screen(_ b: Double, _ s: Double) -> Double { b + s - b * s }
    static func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : screen(b, 2 * s - 1) }
    static func dodge(_ b: Double, _ s: Double) -> Double { b == 0 ? 0 : (s >= 1 ? 1 : min(1, b / (1 - s))) }
    static func burn(_ b: Double, _ s: Double) -> Double { b == 1 ? 1 : (s <= 0 ? 0 : 1 - min(1, (1 - b) / s)) }

    /// Core Image filter, ImageMagick's -compose name (destination = background first, then the
    /// source), B(Cb, Cs) per channel for opaque layers.
    static let separable: [(filter: String, magick: String, formula: (Double, Double) -> Double)] = [
        ("CIDarkenBlendMode", "Darken", { b, s in min(b, s) }),
        ("CILightenBlendMode", "Lighten", { b, s in max(b, s) }),
        ("CIColorDodgeBlendMode", "ColorDodge", { b, s in dodge(b, s) }),
        ("CIColorBurnBlendMode", "ColorBurn", { b, s in burn(b, s) }),
        ("CIHardLightBlendMode", "HardLight", { b, s in hardLight(b, s) }),
        // ImageMagick 6.9's SoftLight is the W3C one (its 4·x·(4x + 1)·(x − 1) + 7x term is D(x) − x expanded).
        ("CISoftLightBlendMode", "SoftLight", { b, s in
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (d - b)
        }),
        ("CIDifferenceBlendMode", "Difference", { b, s in abs(b - s) }),
        ("CIExclusionBlendMode", "Exclusion", { b, s in b + s - 2 * b * s }),
        ("CILinearBurnBlendMode", "LinearBurn", { b, s in clip(b + s - 1) }),
        ("CILinearDodgeBlendMode", "LinearDodge", { b, s in clip(b + s) }),
        ("CILinearLightBlendMode", "LinearLight", { b, s in clip(b + 2 * s - 1) }),
        ("CIPinLightBlendMode", "PinLight", { b, s in s < 0.5 ? min(b, 2 * s) : max(b, 2 * s - 1) }),
        ("CIVividLightBlendMode", "VividLight", { b, s in s <= 0.5 ? burn(b, 2 * s) : dodge(b, 2 * (s - 0.5)) }),
        // Photoshop's base − blend and base ÷ blend: ImageMagick's MinusSrc and DivideSrc (its plain
        // Minus and Divide are the other way round, Cs − Cb and Cs ÷ Cb).
        ("CISubtractBlendMode", "MinusSrc", { b, s in max(0, b - s) }),
        ("CIDivideBlendMode", "DivideSrc", { b, s in s > 0 ? clip(b / s) : (b > 0 ? 1 : 0) }),
        // The per-component compositing filters: on opaque layers S + D, S·D, max, min.
        ("CIAdditionCompositing", "Plus", { b, s in clip(b + s) }),
        ("CIMultiplyCompositing", "Multiply", { b, s in b * s }),
        ("CIMaximumCompositing", "Lighten", { b, s in max(b, s) }),
        ("CIMinimumCompositing", "Darken", { b, s in min(b, s) }),
        ("CIMultiplyBlendMode", "Multiply", { b, s in b * s }),
        ("CIScreenBlendMode", "Screen", { b, s in screen(b, s) }),
    ]

    func testSeparableModesOnStoredValuesMatchImageMagick() throws {
        let input = try png("landscape.jpg"), mirror = work + "/mirror.png"
        XCTAssertEqual(try Tool.run("convert", [input, "-flop", mirror]).status, 0)
        for blend in Self.separable {
            let mine = try Tool.pixels(try run(graph: graph(blending: blend.filter), input: input, colorSpace: "none"))
            let reference = work + "/\(blend.magick).png"
            XCTAssertEqual(try Tool.run("convert", [mirror, input, "-compose", blend.magick, "-composite", reference]).status, 0)
            // ≤ 1 level: each side rounds its result to 8 bits once (≤ 0.5 each).
            XCTAssertLessThanOrEqual(worst(mine.samples, try Tool.pixels(reference).samples.map(Double.init)), 1, blend.filter)
        }
    }

    func testAllBlendModesInLinearLightFollowTheirFormulas() throws {
        // Both layers opaque: the result is B(Cb, Cs) of the linear values, encoded.
        let input = try png("landscape.jpg")
        let source = try Tool.pixels(input)
        let width = source.width
        let linear = source.samples.map { Reference.toLinear(Double($0) / 255) }
        func pixel(_ x: Int, _ y: Int) -> [Double] { Array(linear[((y * width + x) * 3)..<((y * width + x) * 3 + 3)]) }
        func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }
        func setLum(_ c: [Double], _ l: Double) -> [Double] {
            let moved = c.map { $0 + l - lum(c) }
            let lm = lum(moved), n = moved.min()!, x = moved.max()!
            var out = moved
            if n < 0 { out = out.map { lm + ($0 - lm) * lm / (lm - n) } }
            if x > 1 { out = out.map { lm + ($0 - lm) * (1 - lm) / (x - lm) } }
            return out
        }
        func setSat(_ c: [Double], _ s: Double) -> [Double] {
            let low = c.min()!, high = c.max()!
            return high > low ? c.map { ($0 - low) * s / (high - low) } : [0, 0, 0]
        }
        func sat(_ c: [Double]) -> Double { c.max()! - c.min()! }
        var modes: [(String, ([Double], [Double]) -> [Double])] = Self.separable.map { blend in
            (blend.filter, { b, s in (0..<3).map { blend.formula(b[$0], s[$0]) } })
        }
        modes += [
            ("CIHueBlendMode", { b, s in setLum(setSat(s, sat(b)), lum(b)) }),
            ("CISaturationBlendMode", { b, s in setLum(setSat(b, sat(s)), lum(b)) }),
            ("CIColorBlendMode", { b, s in setLum(s, lum(b)) }),
            ("CILuminosityBlendMode", { b, s in setLum(b, lum(s)) }),
        ]
        for (filter, formula) in modes {
            let mine = try Tool.pixels(try run(graph: graph(blending: filter), input: input))
            var reference: [Double] = []
            for y in 0..<source.height {
                for x in 0..<width {
                    reference += formula(pixel(width - 1 - x, y), pixel(x, y)).map { Reference.toSRGB($0) * 255 }
                }
            }
            // ≤ 1 level: rounding to 8 bits (0.5) and float arithmetic.
            XCTAssertLessThanOrEqual(worst(mine.samples, reference), 1, filter)
        }
    }

    func testNonSeparableModesAgreeWithImageMagicksHCLModesOnAverage() throws {
        // ImageMagick 6 computes Hue, Saturate, Luminize and Colorize in its HCL model, not with W3C's
        // Lum/SetSat/ClipColor (which the formula test above checks exactly), so only the average
        // agrees: RMS ≤ 1.5 levels (measured 0.67–0.89); single saturated pixels differ by up to 28.
        let input = try png("landscape.jpg"), mirror = work + "/mirror.png"
        XCTAssertEqual(try Tool.run("convert", [input, "-flop", mirror]).status, 0)
        for (filter, magick) in [("CIHueBlendMode", "Hue"), ("CISaturationBlendMode", "Saturate"),
                                 ("CILuminosityBlendMode", "Luminize"), ("CIColorBlendMode", "Colorize")] {
            let mine = try Tool.pixels(try run(graph: graph(blending: filter), input: input, colorSpace: "none")).samples
            let reference = work + "/\(magick).png"
            XCTAssertEqual(try Tool.run("convert", [mirror, input, "-compose", magick, "-composite", reference]).status, 0)
            let theirs = try Tool.pixels(reference).samples
            XCTAssertEqual(mine.count, theirs.count, filter)
            let squares = zip(mine, theirs).map { Double(($0 - $1) * ($0 - $1)) }.reduce(0, +)
            XCTAssertLessThanOrEqual((squares / Double(max(mine.count, 1))).squareRoot(), 1.5, filter)
        }
    }

    func testPorterDuffAndBlendsWithAlphaMatchImageMagick() throws {
        // alpha.png over its own mirror: the two alphas differ everywhere the picture is not symmetric.
        let input = try png("alpha.png"), mirror = work + "/alpha-mirror.png"
        XCTAssertEqual(try Tool.run("convert", [input, "-flop", mirror]).status, 0)
        let pairs: [(String, String)] = [
            ("CISourceAtopCompositing", "SrcAtop"), ("CISourceInCompositing", "SrcIn"), ("CISourceOutCompositing", "SrcOut"),
            ("CISourceOverCompositing", "SrcOver"), ("CIAdditionCompositing", "Plus"),
            ("CIMultiplyBlendMode", "Multiply"), ("CIScreenBlendMode", "Screen"), ("CIDarkenBlendMode", "Darken"),
            ("CILightenBlendMode", "Lighten"), ("CIDifferenceBlendMode", "Difference"), ("CIExclusionBlendMode", "Exclusion"),
            ("CIHardLightBlendMode", "HardLight"), ("CISoftLightBlendMode", "SoftLight"),
        ]
        for (filter, magick) in pairs {
            let mine = try Tool.pixels(try run(graph: graph(blending: filter), input: input, colorSpace: "none"), channels: "rgba")
            let reference = work + "/\(magick)-alpha.png"
            XCTAssertEqual(try Tool.run("convert", [mirror, input, "-compose", magick, "-composite", reference]).status, 0)
            let theirs = try Tool.pixels(reference, channels: "rgba")
            // Compared premultiplied (a colour under alpha 0 means nothing): ≤ 1.5 levels, each side
            // rounding its colour and its alpha once.
            XCTAssertEqual(mine.samples.count, theirs.samples.count, filter)
            var worst = 0.0
            for p in stride(from: 0, to: min(mine.samples.count, theirs.samples.count), by: 4) {
                let a = Double(mine.samples[p + 3]) / 255, b = Double(theirs.samples[p + 3]) / 255
                worst = max(worst, abs(a - b) * 255)
                for c in 0..<3 { worst = max(worst, abs(Double(mine.samples[p + c]) * a - Double(theirs.samples[p + c]) * b)) }
            }
            XCTAssertLessThanOrEqual(worst, 1.5, filter)
        }
    }

    func testMaskedBlendAndMixThroughAPipeline() throws {
        // BlendWithMask of the landscape over white, the mask being the mirrored landscape: in linear
        // light out = white + (in − white)·m, m = the mirror's green. CIMix at 0.3 over the mirror.
        let input = try png("landscape.jpg")
        let source = try Tool.pixels(input)
        let width = source.width
        let linear = source.samples.map { Reference.toLinear(Double($0) / 255) }
        let masked = try Tool.pixels(try run(graph: """
                  mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
                  white:  { filter: CIConstantColorGenerator, inputColor: [1, 1, 1, 1] }
                  output: { filter: CIBlendWithMask, inputImage: input, inputBackgroundImage: white, inputMaskImage: mirror }
            """, input: input))
        let mixed = try Tool.pixels(try run(graph: """
                  mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
                  output: { filter: CIMix, inputImage: input, inputBackgroundImage: mirror, inputAmount: 0.3 }
            """, input: input))
        var maskReference: [Double] = [], mixReference: [Double] = []
        for y in 0..<source.height {
            for x in 0..<width {
                let here = (y * width + x) * 3, there = (y * width + width - 1 - x) * 3
                let m = linear[there + 1]
                for c in 0..<3 {
                    maskReference.append(Reference.toSRGB(1 + (linear[here + c] - 1) * m) * 255)
                    mixReference.append(Reference.toSRGB(linear[there + c] + (linear[here + c] - linear[there + c]) * 0.3) * 255)
                }
            }
        }
        // ≤ 1 level: rounding to 8 bits and float arithmetic.
        XCTAssertLessThanOrEqual(worst(masked.samples, maskReference), 1, "CIBlendWithMask")
        XCTAssertLessThanOrEqual(worst(mixed.samples, mixReference), 1, "CIMix")
    }

    func testDitherRerunsGiveTheSameBytesAndColourFunctionsChain() throws {
        let input = try png("landscape.jpg")
        let nodes = """
                  clamp:  { filter: CIColorClamp, inputImage: input, inputMaxComponents: [0.8, 0.8, 0.8, 1] }
                  output: { filter: CIDither, inputImage: clamp, inputIntensity: 0.1 }
            """
        let first = try run(graph: nodes, input: input), second = try run(graph: nodes, input: input)
        XCTAssertEqual(try Tool.pixels(first).samples, try Tool.pixels(second).samples, "the noise depends on position only")
        // Clamped at linear 0.8 (stored 231.1), then noise of ±0.05 (±12.75 levels) on the encoded values.
        let out = try Tool.pixels(first).samples, source = try Tool.pixels(input).samples
        for (o, s) in zip(out, source) {
            let clamped = Reference.toSRGB(min(Reference.toLinear(Double(s) / 255), 0.8)) * 255
            XCTAssertLessThanOrEqual(abs(Double(o) - clamped), 12.75 + 1)
        }
        XCTAssertGreaterThan(zip(out, source).filter { $0 != $1 }.count, out.count / 2, "noise is added")
    }

    func testAlphaChangesOnAnOpaqueImageGetAnAlphaBand() throws {
        // CIColorPolynomial's alpha coefficients on the opaque landscape: α' = 0.5 + 0·α, carried in
        // a new alpha band, in the point-only path and after a geometry step (the float path).
        let input = try png("landscape.jpg")
        let pointOnly = try run(graph: """
                  output: { filter: CIColorPolynomial, inputImage: input, inputAlphaCoefficients: [0.5, 0, 0, 0] }
            """, input: input)
        let floatPath = try run(graph: """
                  half:   { filter: CIColorClamp, inputImage: input, inputMaxComponents: [1, 1, 1, 0.25] }
                  output: { filter: CIAffineTransform, inputImage: half, inputTransform: [-1, 0, 0, 1, 0, 0] }
            """, input: input)
        for (path, alpha) in [(pointOnly, 127.5), (floatPath, 63.75)] {
            XCTAssertEqual(try Tool.vipsHeader(path, "bands"), "4", path)
            let samples = try Tool.pixels(path, channels: "rgba").samples
            // ≤ 0.5 level: one rounding to 8 bits.
            let alphas = stride(from: 3, to: samples.count, by: 4).map { Double(samples[$0]) }
            XCTAssertLessThanOrEqual(alphas.map { abs($0 - alpha) }.max() ?? 99, 0.5, path)
        }
        // Colours are untouched by the alpha coefficients (compared with the source, stored as they were).
        let colours = try Tool.pixels(pointOnly).samples, source = try Tool.pixels(input).samples
        XCTAssertEqual(colours, source)
    }

    func testWrongCoefficientCountFailsValidationWithALine() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: b
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg] }
                filters:
                  - CIColorPolynomial: { inputRedCoefficients: [0, 1, 0] }
                export: { to: \(work!)/out, format: png }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("inputRedCoefficients"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }
}
