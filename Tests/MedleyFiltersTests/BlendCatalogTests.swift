import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// The blend modes, compositing operators, masked blends and CIMix over small float RGBA images,
/// through the optimiser's plan and the kernels a pipeline run uses. Expected values come from
/// the W3C Compositing and Blending Level 1 formulas, Porter-Duff and the Photoshop formulas,
/// written out here in Double.
final class BlendCatalogTests: XCTestCase {
    /// A pixel: unpremultiplied r, g, b, a in the working space.
    typealias Pixel = [Double]

    /// Foreground and background pixels: every pair of a few levels, with a few alphas.
    static let levels: [Double] = [0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1]
    static let pairs: (foreground: [Pixel], background: [Pixel]) = {
        var fg: [Pixel] = [], bg: [Pixel] = []
        var k = 0
        for s in levels {
            for b in levels {
                for (sa, ba) in [(1.0, 1.0), (0.6, 1.0), (1.0, 0.3), (0.5, 0.7), (0, 0.8), (0.4, 0)] {
                    // The other channels vary so that the non-separable modes see real colours.
                    fg.append([s, levels[(k + 3) % levels.count], levels[(k * 5 + 1) % levels.count], sa])
                    bg.append([b, levels[(k * 7 + 2) % levels.count], levels[(k + 6) % levels.count], ba])
                    k += 1
                }
            }
        }
        return (fg, bg)
    }()

    // MARK: An evaluator of plans over float RGBA rows, for recipes with composites

    /// Renders a recipe whose sources are `images` (one row each, `width` pixels of RGBA floats).
    func render(_ image: FilterImage, _ images: [String: [Float]], width: Int) throws -> [Float] {
        try evaluate(RenderPlan(image).root, images, width: width)
    }

    private func evaluate(_ node: RenderNode, _ images: [String: [Float]], width: Int) throws -> [Float] {
        switch node {
        case .source(let name):
            return try XCTUnwrap(images[name], "no image \(name)")
        case .points(let step, let next):
            let input = try evaluate(next, images, width: width)
            var output = input
            let kernel = PointChainKernel(operations: step.operations, transfer: .none, imageWidth: width, imageHeight: 1)
            input.withUnsafeBytes { src in
                output.withUnsafeMutableBytes { dst in
                    kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: width, bands: 4, sampleBytes: 4)
                }
            }
            return output
        case .composite(let kernel, let foreground, let background):
            let front = try evaluate(foreground, images, width: width), back = try evaluate(background, images, width: width)
            var output = [Float](repeating: 0, count: back.count)
            front.withUnsafeBufferPointer { f in
                back.withUnsafeBufferPointer { b in
                    output.withUnsafeMutableBufferPointer { o in
                        kernel.apply(first: f.baseAddress!, second: b.baseAddress!, to: o.baseAddress!, width: width,
                                     bands: 4, x: 0, y: 0)
                    }
                }
            }
            return output
        case .constant(let colour):
            return Array((0..<width).map { _ in [colour.x, colour.y, colour.z, colour.w] }.joined())
        case .region, .geometry, .measured:
            XCTFail("not a recipe of these tests")
            return []
        }
    }

    /// A filter over named sources for its image inputs.
    func recipe(_ name: String, _ images: [String: String], _ values: [String: FilterValue] = [:]) throws -> FilterImage {
        let filter = try XCTUnwrap(Filter(name: name), name)
        filter.setDefaults()
        for (key, value) in values { try filter.setValue(value, forKey: key) }
        for (key, source) in images { try filter.setValue(.image(.source(source)), forKey: key) }
        return try XCTUnwrap(filter.outputImage, name)
    }

    func flat(_ pixels: [Pixel]) -> [Float] { pixels.flatMap { $0.map(Float.init) } }

    /// Compares a rendered row with expected pixels: colours weighed by alpha (a transparent
    /// pixel's colour means nothing), alpha itself. 1e-4: float arithmetic against Double.
    func assertRow(_ output: [Float], _ expected: [Pixel], _ label: String, tolerance: Double = 1e-4,
                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(output.count, expected.count * 4, label, file: file, line: line)
        var worst = 0.0, worstAt = 0
        for (i, want) in expected.enumerated() where output.count == expected.count * 4 {
            let got = output[(i * 4)..<(i * 4 + 4)].map(Double.init)
            var d = abs(got[3] - want[3])
            for c in 0..<3 { d = max(d, abs(got[c] * got[3] - want[c] * want[3])) }
            if d > worst { worst = d; worstAt = i }
        }
        XCTAssertLessThanOrEqual(worst, tolerance,
                                 "\(label): worst at \(worstAt), fg \(Self.pairs.foreground[worstAt]) bg \(Self.pairs.background[worstAt])",
                                 file: file, line: line)
    }

    // MARK: The formulas, written from the specs

    static func clip(_ x: Double) -> Double { min(max(x, 0), 1) }
    static func screen(_ b: Double, _ s: Double) -> Double { b + s - b * s }
    static func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? b * 2 * s : screen(b, 2 * s - 1) }
    static func dodge(_ b: Double, _ s: Double) -> Double { b == 0 ? 0 : (s >= 1 ? 1 : min(1, b / (1 - s))) }
    static func burn(_ b: Double, _ s: Double) -> Double { b == 1 ? 1 : (s <= 0 ? 0 : 1 - min(1, (1 - b) / s)) }

    /// W3C § 9.1 (separable) and the Photoshop modes; B(Cb, Cs) per channel.
    static let separable: [(String, (Double, Double) -> Double)] = [
        ("CISourceOverCompositing", { _, s in s }),
        ("CIMultiplyBlendMode", { b, s in b * s }),
        ("CIScreenBlendMode", { b, s in screen(b, s) }),
        ("CIOverlayBlendMode", { b, s in hardLight(s, b) }),
        ("CIDarkenBlendMode", { b, s in min(b, s) }),
        ("CILightenBlendMode", { b, s in max(b, s) }),
        ("CIColorDodgeBlendMode", { b, s in dodge(b, s) }),
        ("CIColorBurnBlendMode", { b, s in burn(b, s) }),
        ("CIHardLightBlendMode", { b, s in hardLight(b, s) }),
        ("CISoftLightBlendMode", { b, s in
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (d - b)
        }),
        ("CIDifferenceBlendMode", { b, s in abs(b - s) }),
        ("CIExclusionBlendMode", { b, s in b + s - 2 * b * s }),
        ("CILinearBurnBlendMode", { b, s in clip(b + s - 1) }),
        ("CILinearDodgeBlendMode", { b, s in clip(b + s) }),
        ("CILinearLightBlendMode", { b, s in clip(b + 2 * s - 1) }),
        ("CIPinLightBlendMode", { b, s in s < 0.5 ? min(b, 2 * s) : max(b, 2 * s - 1) }),
        ("CIVividLightBlendMode", { b, s in s <= 0.5 ? burn(b, 2 * s) : dodge(b, 2 * (s - 0.5)) }),
        ("CISubtractBlendMode", { b, s in max(0, b - s) }),
        ("CIDivideBlendMode", { b, s in s > 0 ? clip(b / s) : (b > 0 ? 1 : 0) }),
    ]

    // W3C § 9.2's helpers, written as the spec words them (Cmax, Cmid, Cmin by sorting).
    static func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }
    static func clipColor(_ c: [Double]) -> [Double] {
        let l = lum(c), n = c.min()!, x = c.max()!
        var out = c
        if n < 0 { out = out.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { out = out.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return out
    }
    static func setLum(_ c: [Double], _ l: Double) -> [Double] {
        let d = l - lum(c)
        return clipColor(c.map { $0 + d })
    }
    static func sat(_ c: [Double]) -> Double { c.max()! - c.min()! }
    static func setSat(_ c: [Double], _ s: Double) -> [Double] {
        let order = [0, 1, 2].sorted { c[$0] < c[$1] }
        let (minI, midI, maxI) = (order[0], order[1], order[2])
        var out = [0.0, 0, 0]
        if c[maxI] > c[minI] {
            out[midI] = (c[midI] - c[minI]) * s / (c[maxI] - c[minI])
            out[maxI] = s
        }
        out[minI] = 0
        return out
    }

    static let nonSeparable: [(String, ([Double], [Double]) -> [Double])] = [
        ("CIHueBlendMode", { b, s in setLum(setSat(s, sat(b)), lum(b)) }),
        ("CISaturationBlendMode", { b, s in setLum(setSat(b, sat(s)), lum(b)) }),
        ("CIColorBlendMode", { b, s in setLum(s, lum(b)) }),
        ("CILuminosityBlendMode", { b, s in setLum(b, lum(s)) }),
    ]

    /// W3C § 5.8's general formula, unpremultiplied at the end.
    static func general(_ fg: Pixel, _ bg: Pixel, _ blended: [Double]) -> Pixel {
        let sa = fg[3], ba = bg[3]
        let oa = sa + ba * (1 - sa)
        let colour = (0..<3).map { c in
            (sa * (1 - ba) * fg[c] + sa * ba * blended[c] + (1 - sa) * ba * bg[c]) / (oa > 0 ? oa : 1)
        }
        return colour + [oa]
    }

    // MARK: Tests

    func testSeparableAndPhotoshopModesFollowTheirFormulas() throws {
        let (fg, bg) = Self.pairs
        for (name, formula) in Self.separable {
            let out = try render(recipe(name, ["inputImage": "fg", "inputBackgroundImage": "bg"]),
                                 ["fg": flat(fg), "bg": flat(bg)], width: fg.count)
            let expected = zip(fg, bg).map { s, b in Self.general(s, b, (0..<3).map { formula(b[$0], s[$0]) }) }
            assertRow(out, expected, name)
        }
    }

    func testNonSeparableModesFollowSetLumSetSatAndClipColor() throws {
        let (fg, bg) = Self.pairs
        for (name, formula) in Self.nonSeparable {
            let out = try render(recipe(name, ["inputImage": "fg", "inputBackgroundImage": "bg"]),
                                 ["fg": flat(fg), "bg": flat(bg)], width: fg.count)
            let expected = zip(fg, bg).map { s, b in Self.general(s, b, formula(Array(b[0..<3]), Array(s[0..<3]))) }
            assertRow(out, expected, name)
        }
    }

    func testHueOfAGreyKeepsTheBackdropsLuminosity() throws {
        // A worked example: the hue of grey is no hue, so Hue over red is a grey of red's luminosity
        // (0.3), and Luminosity of grey 0.5 over pure red moves red to Lum 0.5, clipped: (1, .29, .29).
        let hue = try render(recipe("CIHueBlendMode", ["inputImage": "fg", "inputBackgroundImage": "bg"]),
                             ["fg": [0.5, 0.5, 0.5, 1], "bg": [1, 0, 0, 1]], width: 1)
        assertClose(hue.map(Double.init), [0.3, 0.3, 0.3, 1])
        let luminosity = try render(recipe("CILuminosityBlendMode", ["inputImage": "fg", "inputBackgroundImage": "bg"]),
                                    ["fg": [0.5, 0.5, 0.5, 1], "bg": [1, 0, 0, 1]], width: 1)
        // SetLum(red, .5): red + .2 = (1.2, .2, .2), Lum .5, ClipColor: .5 + (c − .5)·.5/.7.
        assertClose(luminosity.map(Double.init), [0.5 + 0.7 * 0.5 / 0.7, 0.5 - 0.3 * 0.5 / 0.7, 0.5 - 0.3 * 0.5 / 0.7, 1])
    }

    func testCompositingOperatorsWorkOnPremultipliedComponents() throws {
        let (fg, bg) = Self.pairs
        let operators: [(String, (_ s: [Double], _ d: [Double]) -> [Double])] = [
            ("CIAdditionCompositing", { s, d in zip(s, d).map { $0 + $1 } }),
            ("CIMaximumCompositing", { s, d in zip(s, d).map { max($0, $1) } }),
            ("CIMinimumCompositing", { s, d in zip(s, d).map { min($0, $1) } }),
            ("CIMultiplyCompositing", { s, d in zip(s, d).map { $0 * $1 } }),
            ("CISourceAtopCompositing", { s, d in (0..<3).map { s[$0] * d[3] + d[$0] * (1 - s[3]) } + [d[3]] }),
            ("CISourceInCompositing", { s, d in s.map { $0 * d[3] } }),
            ("CISourceOutCompositing", { s, d in s.map { $0 * (1 - d[3]) } }),
        ]
        func premultiplied(_ p: Pixel) -> [Double] { [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]] }
        for (name, formula) in operators {
            let out = try render(recipe(name, ["inputImage": "fg", "inputBackgroundImage": "bg"]),
                                 ["fg": flat(fg), "bg": flat(bg)], width: fg.count)
            let expected: [Pixel] = zip(fg, bg).map { s, d in
                let r = formula(premultiplied(s), premultiplied(d))
                // Stored unpremultiplied with alpha clipped to 1: the colour is the premultiplied sum over that alpha.
                let alpha = min(r[3], 1)
                return alpha > 0 ? [r[0] / alpha, r[1] / alpha, r[2] / alpha, alpha] : [0, 0, 0, 0]
            }
            assertRow(out, expected, name)
        }
    }

    func testMaskedBlendsMixByTheMasksChannel() throws {
        let (fg, bg) = Self.pairs
        // The mask: every channel different, with its own alpha, so a wrong channel shows.
        let alphas: [Double] = [1, 0.5, 0.8]
        let mask: [Pixel] = (0..<fg.count).map { (i: Int) -> Pixel in
            let r: Double = Self.levels[i % 9], g: Double = Self.levels[(i + 4) % 9], b: Double = Self.levels[(i * 2 + 7) % 9]
            return [r, g, b, alphas[i % 3]]
        }
        let channels: [(String, (Pixel) -> Double)] = [
            ("CIBlendWithMask", { $0[1] * $0[3] }), ("CIBlendWithRedMask", { $0[0] * $0[3] }),
            ("CIBlendWithBlueMask", { $0[2] * $0[3] }), ("CIBlendWithAlphaMask", { $0[3] }),
        ]
        for (name, value) in channels {
            let out = try render(recipe(name, ["inputImage": "fg", "inputBackgroundImage": "bg", "inputMaskImage": "mask"]),
                                 ["fg": flat(fg), "bg": flat(bg), "mask": flat(mask)], width: fg.count)
            // Apple: mix(background, image, m) on premultiplied pixels.
            let expected: [Pixel] = (0..<fg.count).map { (i: Int) -> Pixel in
                let m: Double = value(mask[i]), s: Pixel = fg[i], d: Pixel = bg[i]
                let alpha: Double = d[3] + (s[3] - d[3]) * m
                let colour: [Double] = (0..<3).map { (c: Int) -> Double in
                    let premultiplied: Double = d[c] * d[3] + (s[c] * s[3] - d[c] * d[3]) * m
                    return premultiplied / (alpha > 0 ? alpha : 1)
                }
                return colour + [alpha]
            }
            assertRow(out, expected, name)
        }
    }

    func testMixInterpolatesAndClampsItsAmount() throws {
        let (fg, bg) = Self.pairs
        let amounts: [(Double, Double)] = [(0.25, 0.25), (1, 1), (0, 0), (-2, 0), (3, 1)]
        for (amount, used) in amounts {
            let out = try render(recipe("CIMix", ["inputImage": "fg", "inputBackgroundImage": "bg"],
                                        ["inputAmount": .number(amount)]),
                                 ["fg": flat(fg), "bg": flat(bg)], width: fg.count)
            let expected: [Pixel] = zip(fg, bg).map { (s: Pixel, d: Pixel) -> Pixel in
                let alpha: Double = d[3] + (s[3] - d[3]) * used
                let colour: [Double] = (0..<3).map { (c: Int) -> Double in
                    let premultiplied: Double = d[c] * d[3] + (s[c] * s[3] - d[c] * d[3]) * used
                    return premultiplied / (alpha > 0 ? alpha : 1)
                }
                return colour + [alpha]
            }
            assertRow(out, expected, "CIMix \(amount)")
        }
    }

    func testDeclarations() throws {
        let blends = Self.separable.map(\.0) + Self.nonSeparable.map(\.0)
        for name in blends + ["CIAdditionCompositing", "CIMaximumCompositing", "CIMinimumCompositing", "CIMultiplyCompositing",
                              "CISourceAtopCompositing", "CISourceInCompositing", "CISourceOutCompositing", "CIMix",
                              "CIBlendWithMask", "CIBlendWithRedMask", "CIBlendWithBlueMask", "CIBlendWithAlphaMask"] {
            let attributes = try XCTUnwrap(FilterRegistry.attributes(of: name), name)
            XCTAssertEqual(attributes.categories.first, "CICategoryCompositeOperation", name)
            XCTAssertEqual(attributes.parameter("inputBackgroundImage")?.type, .image, name)
        }
        XCTAssertEqual(FilterRegistry.attributes(of: "CIBlendWithMask")?.imageKeys,
                       ["inputImage", "inputBackgroundImage", "inputMaskImage"])
        XCTAssertEqual(FilterRegistry.attributes(of: "CIMix")?.parameter("inputAmount")?.defaultValue, .number(1))
        XCTAssertEqual(FilterRegistry.attributes(of: "CIAdditionCompositing")?.displayName, "Addition")
        XCTAssertTrue(FilterRegistry.attributes(of: "CIDivideBlendMode")?.reference.contains("Photoshop") ?? false)
        // A composite needs both images.
        let filter = try XCTUnwrap(Filter(name: "CIHueBlendMode"))
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        XCTAssertNil(filter.outputImage)
    }

    func testExtremeColoursGiveNoNaN() throws {
        // Out-of-range working values (a filter before may make them) and greys: the guards in
        // ClipColor and SetSat keep every result a number.
        let values: [Float] = [-3, 0, 0.5, 1, 7]
        var fg: [Float] = [], bg: [Float] = []
        for a in values { for b in values { fg += [a, a, a, 1]; bg += [b, -b, b, 1]; fg += [a, b, 0, 1]; bg += [b, b, b, 1] } }
        for name in Self.separable.map(\.0) + Self.nonSeparable.map(\.0) {
            let out = try render(recipe(name, ["inputImage": "fg", "inputBackgroundImage": "bg"]), ["fg": fg, "bg": bg],
                                 width: fg.count / 4)
            XCTAssertFalse(out.contains { $0.isNaN }, name)
        }
    }
}

extension XCTestCase {
    /// Element by element within 1e-6 (float arithmetic).
    func assertClose(_ a: [Double], _ b: [Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: 1e-6, "\(a) vs \(b)", file: file, line: line) }
    }
}
