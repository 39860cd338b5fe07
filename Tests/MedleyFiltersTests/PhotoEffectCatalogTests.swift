import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

final class PhotoEffectCatalogTests: XCTestCase {
    let image = Render.swatches()
    let rgba = Render.swatches(bands: 4)

    /// A look as the reference attributes state it, computed here in Double: on sRGB-encoded values,
    /// saturation around Rec. 709 luma, S-curve mix(c, 3c² − 2c³, k), output levels, split tone,
    /// clamp to 0…1.
    struct Look {
        var saturation = 1.0
        var curve = 0.0
        var black = [0.0, 0.0, 0.0]
        var white = [1.0, 1.0, 1.0]
        var shadows = [0.0, 0.0, 0.0]
        var highlights = [0.0, 0.0, 0.0]

        static func luma(_ c: [Double]) -> Double { 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] }

        /// Linear in, linear out.
        func callAsFunction(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
            let c = onEncoded([r, g, b].map(SRGB.fromLinear)).map(SRGB.toLinear)
            return (c[0], c[1], c[2])
        }

        /// sRGB-encoded values in and out, 0…1.
        func onEncoded(_ encoded: [Double]) -> [Double] {
            var c = encoded.map { min(max($0, 0), 1) }
            let y = Self.luma(c)
            c = c.map { y + saturation * ($0 - y) }
            c = c.map { v in
                let t = min(max(v, 0), 1)
                return v + curve * (t * t * (3 - 2 * t) - v)
            }
            c = (0..<3).map { black[$0] + (white[$0] - black[$0]) * c[$0] }
            let y2 = Self.luma(c)
            c = (0..<3).map { c[$0] + (1 - y2) * shadows[$0] + y2 * highlights[$0] }
            return c.map { min(max($0, 0), 1) }
        }
    }

    /// The recipes the filters declare, restated.
    let looks: [String: Look] = [
        "CIPhotoEffectMono": Look(saturation: 0, curve: 0.3),
        "CIPhotoEffectNoir": Look(saturation: 0, curve: 1, black: [-0.08, -0.08, -0.08], white: [1.08, 1.08, 1.08]),
        "CIPhotoEffectTonal": Look(saturation: 0, black: [0.06, 0.06, 0.06], white: [0.94, 0.94, 0.94]),
        "CIPhotoEffectChrome": Look(saturation: 1.35, curve: 0.35),
        "CIPhotoEffectFade": Look(saturation: 0.6, black: [0.12, 0.12, 0.12], white: [0.95, 0.95, 0.95]),
        "CIPhotoEffectInstant": Look(saturation: 0.85, black: [0.08, 0.06, 0.03], white: [1, 0.97, 0.86]),
        "CIPhotoEffectProcess": Look(saturation: 0.9, curve: 0.25, shadows: [-0.03, 0, 0.07],
                                     highlights: [0.05, 0.02, -0.04]),
        "CIPhotoEffectTransfer": Look(saturation: 1.25, curve: 0.2, black: [0.05, 0.02, 0], white: [1, 0.95, 0.84]),
    ]

    func render(_ name: String, _ pixels: [UInt8], width: Int, height: Int, bands: Int = 3) throws -> [UInt8] {
        Render.pixels(try Render.filter(name), pixels, width: width, height: height, bands: bands)
    }

    /// A grey ramp 0…255 in steps of 5, as RGB.
    let ramp: [UInt8] = stride(from: 0, through: 255, by: 5).flatMap { [UInt8($0), UInt8($0), UInt8($0)] }

    func testEveryEffectFollowsItsStatedRecipe() throws {
        XCTAssertEqual(Set(looks.keys), Set(FilterRegistry.names.filter { $0.hasPrefix("CIPhotoEffect") }))
        for (name, look) in looks {
            let out = try render(name, image.pixels, width: image.width, height: image.height)
            assertPixels(out, image.pixels) { look($0, $1, $2) }
            // Alpha passes through untouched.
            let withAlpha = try render(name, rgba.pixels, width: rgba.width, height: rgba.height, bands: 4)
            assertPixels(withAlpha, rgba.pixels, bands: 4) { look($0, $1, $2) }
            XCTAssertEqual(RenderPlan(try Render.filter(name)).steps.count, 1, "\(name): one pass")
        }
    }

    func testWithColorSpaceNoneTheRecipeRunsOnTheStoredValues() throws {
        // `colorSpace: none`: the working values are the stored (already encoded) values.
        for (name, look) in looks {
            let filter = try XCTUnwrap(Filter(name: name))
            filter.workingSpace = .none
            try filter.setValue(.image(.source("input")), forKey: "inputImage")
            let out = Render.pixels(try XCTUnwrap(filter.outputImage), image.pixels, width: image.width,
                                    height: image.height, transfer: .none)
            var worst = 0.0
            for p in stride(from: 0, to: out.count, by: 3) {
                let expected = look.onEncoded(image.pixels[p..<p + 3].map { Double($0) / 255 })
                for c in 0..<3 { worst = max(worst, abs(Double(out[p + c]) - expected[c] * 255)) }
            }
            XCTAssertLessThanOrEqual(worst, 1, name)
        }
    }

    func testMonoNoirAndTonalAreGrey() throws {
        for name in ["CIPhotoEffectMono", "CIPhotoEffectNoir", "CIPhotoEffectTonal"] {
            let out = try render(name, image.pixels, width: image.width, height: image.height)
            for p in stride(from: 0, to: out.count, by: 3) {
                XCTAssertTrue(out[p] == out[p + 1] && out[p + 1] == out[p + 2], "\(name) pixel \(p / 3)")
            }
        }
    }

    func testNoirHasMoreContrastThanMonoAndTonalLess() throws {
        let width = ramp.count / 3
        func spread(_ name: String) throws -> Int {
            // The output distance between a dark and a light grey (input 75 and 180).
            let out = try render(name, ramp, width: width, height: 1)
            return Int(out[36 * 3]) - Int(out[15 * 3])
        }
        let mono = try spread("CIPhotoEffectMono"), noir = try spread("CIPhotoEffectNoir")
        let tonal = try spread("CIPhotoEffectTonal")
        XCTAssertGreaterThan(noir, mono)
        XCTAssertGreaterThan(mono, tonal)
        XCTAssertLessThan(tonal, 180 - 75, "tonal flattens")
        let noirRamp = try render("CIPhotoEffectNoir", ramp, width: width, height: 1)
        XCTAssertEqual(noirRamp.first, 0)
        XCTAssertEqual(noirRamp.last, 255)
    }

    func testFadeLiftsBlackAndLowersSaturation() throws {
        let black = try render("CIPhotoEffectFade", [0, 0, 0], width: 1, height: 1)
        XCTAssertGreaterThanOrEqual(Int(black[0]), 25, "pure black is lifted")
        XCTAssertLessThan(saturation(try render("CIPhotoEffectFade", image.pixels, width: image.width,
                                                height: image.height)), saturation(image.pixels))
    }

    func testChromeIsMoreSaturatedThanItsInput() throws {
        let out = try render("CIPhotoEffectChrome", image.pixels, width: image.width, height: image.height)
        XCTAssertGreaterThan(saturation(out), saturation(image.pixels) * 1.1)
    }

    func testWarmAndCoolCasts() throws {
        // Process: blue shadows, warm highlights. Instant and Transfer: warm (yellow) whites.
        let process = try render("CIPhotoEffectProcess", [0, 0, 0, 255, 255, 255], width: 2, height: 1)
        XCTAssertGreaterThan(process[2], process[0], "cool shadows")
        XCTAssertGreaterThan(process[3], process[5], "warm highlights")
        for name in ["CIPhotoEffectInstant", "CIPhotoEffectTransfer"] {
            let white = try render(name, [255, 255, 255], width: 1, height: 1)
            XCTAssertGreaterThan(white[0], white[2], name)
        }
    }

    func testEffectsTakeNoParametersBesidesTheImage() throws {
        for name in looks.keys {
            let attributes = try XCTUnwrap(FilterRegistry.attributes(of: name))
            XCTAssertEqual(attributes.parameters.map(\.name), ["inputImage"], name)
            XCTAssertEqual(attributes.categories, ["CICategoryColorEffect", "CICategoryVideo", "CICategoryStillImage",
                                                   "CICategoryInterlaced", "CICategoryNonSquarePixels",
                                                   "CICategoryBuiltIn", "CICategoryXMPSerializable"], name)
            XCTAssertTrue(attributes.summary.hasPrefix("Applies a preconfigured set of effects that imitate"), name)
            XCTAssertTrue(attributes.reference.contains("sRGB-encoded"), name)
            let filter = try XCTUnwrap(Filter(name: name))
            XCTAssertThrowsError(try filter.setValue(.number(1), forKey: "inputIntensity"), name)
            XCTAssertNil(filter.outputImage, "no output without an image")
        }
        XCTAssertEqual(FilterRegistry.attributes(of: "CIPhotoEffectNoir")?.displayName, "Photo Effect Noir")
    }

    /// Mean of max − min over the stored RGB values: a simple saturation measure.
    func saturation(_ pixels: [UInt8]) -> Double {
        var total = 0
        for p in stride(from: 0, to: pixels.count, by: 3) {
            let c = pixels[p..<p + 3]
            total += Int(c.max()!) - Int(c.min()!)
        }
        return Double(total) / Double(pixels.count / 3)
    }
}
