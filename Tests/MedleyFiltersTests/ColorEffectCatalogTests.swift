import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

final class ColorEffectCatalogTests: XCTestCase {
    let image = Render.swatches()
    let rgba = Render.swatches(bands: 4)

    /// Rec. 709 luma, written out here rather than read from the code under test.
    func luma(_ r: Double, _ g: Double, _ b: Double) -> Double { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    /// Renders a filter by name over the swatches (RGB, or RGBA when `bands` is 4).
    func render(_ name: String, _ values: [String: FilterValue] = [:], bands: Int = 3) throws -> [UInt8] {
        let input = bands == 4 ? rgba : image
        return Render.pixels(try Render.filter(name, values), input.pixels, width: input.width,
                             height: input.height, bands: bands)
    }

    // MARK: CIColorMonochrome

    func testMonochromeIsLumaTimesTheLinearColourMixedByIntensity() throws {
        // The colour is given in sRGB, as a CIColor is, and enters the maths in linear light.
        let color = (SRGB.toLinear(0.2), SRGB.toLinear(0.5), SRGB.toLinear(0.9))
        for bands in [3, 4] {
            let out = try render("CIColorMonochrome", ["inputColor": .vector([0.2, 0.5, 0.9]),
                                                       "inputIntensity": .number(0.6)], bands: bands)
            assertPixels(out, bands == 4 ? rgba.pixels : image.pixels, bands: bands) { r, g, b in
                let y = self.luma(r, g, b)
                return (0.4 * r + 0.6 * y * color.0, 0.4 * g + 0.6 * y * color.1, 0.4 * b + 0.6 * y * color.2)
            }
        }
    }

    func testMonochromeDefaultsTintWhiteWithTheColourAsWritten() throws {
        let out = try render("CIColorMonochrome")
        assertPixels(out, image.pixels) { r, g, b in
            let y = self.luma(r, g, b)
            return (y * SRGB.toLinear(0.6), y * SRGB.toLinear(0.45), y * SRGB.toLinear(0.3))
        }
        // White comes out as the colour itself: (0.6, 0.45, 0.3)·255 = (153, 114.75, 76.5).
        let white = Render.pixels(try Render.filter("CIColorMonochrome"), [255, 255, 255], width: 1, height: 1)
        XCTAssertEqual(Double(white[0]), 153, accuracy: 1)
        XCTAssertEqual(Double(white[1]), 114.75, accuracy: 1)
        XCTAssertEqual(Double(white[2]), 76.5, accuracy: 1)
    }

    func testWithColorSpaceNoneColoursAreTakenAsStored() throws {
        // No colour management: the colour is used as written, on the stored values.
        let filter = try XCTUnwrap(Filter(name: "CIColorMonochrome"))
        filter.workingSpace = .none
        filter.setDefaults()
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        let out = Render.pixels(try XCTUnwrap(filter.outputImage), image.pixels, width: image.width,
                                height: image.height, transfer: .none)
        for p in stride(from: 0, to: out.count, by: 3) {
            let y = luma(Double(image.pixels[p]), Double(image.pixels[p + 1]), Double(image.pixels[p + 2]))
            XCTAssertEqual(Double(out[p]), y * 0.6, accuracy: 1)
            XCTAssertEqual(Double(out[p + 1]), y * 0.45, accuracy: 1)
            XCTAssertEqual(Double(out[p + 2]), y * 0.3, accuracy: 1)
        }
    }

    func testMonochromeAndFalseColorNeedAColour() throws {
        // As Core Image: no colour, no output (false colour needs at least one of its two).
        let monochrome = try XCTUnwrap(Filter(name: "CIColorMonochrome"))
        try monochrome.setValue(.image(.source("input")), forKey: "inputImage")
        XCTAssertNil(monochrome.outputImage)
        let falseColor = try XCTUnwrap(Filter(name: "CIFalseColor"))
        try falseColor.setValue(.image(.source("input")), forKey: "inputImage")
        XCTAssertNil(falseColor.outputImage)
        try falseColor.setValue(.vector([1, 1, 1]), forKey: "inputColor1")
        // Colour 0 missing is clear, i.e. black: out = luma·white = luma.
        let out = Render.pixels(try XCTUnwrap(falseColor.outputImage), image.pixels, width: image.width,
                                height: image.height)
        assertPixels(out, image.pixels) { r, g, b in
            let y = self.luma(r, g, b)
            return (y, y, y)
        }
    }

    // MARK: CIColorInvert

    func testInvertIsOneMinusTheColourInLinearLight() throws {
        for bands in [3, 4] {
            let out = try render("CIColorInvert", bands: bands)
            assertPixels(out, bands == 4 ? rgba.pixels : image.pixels, bands: bands) { (1 - $0, 1 - $1, 1 - $2) }
        }
        guard case .colorMatrix = try XCTUnwrap(RenderPlan(try Render.filter("CIColorInvert")).steps.first) else {
            return XCTFail("invert is one colour matrix")
        }
    }

    // MARK: CIColorPosterize

    func testPosterizeRoundsToLevelsMinusOneSteps() throws {
        // n = floor(levels − 1) steps, out = floor(c·n + 0.5)/n, on sRGB-encoded values.
        for (levels, n) in [(6.0, 5.0), (3.7, 2.0), (12.0, 11.0)] {
            for bands in [3, 4] {
                let out = try render("CIColorPosterize", ["inputLevels": .number(levels)], bands: bands)
                func step(_ c: Double) -> Double { SRGB.toLinear((SRGB.fromLinear(c) * n + 0.5).rounded(.down) / n) }
                assertPixels(out, bands == 4 ? rgba.pixels : image.pixels, bands: bands) { (step($0), step($1), step($2)) }
            }
        }
    }

    func testPosterizeDefaultGivesSixLevelsAndBelowTwoLevelsIsBlack() throws {
        let out = try render("CIColorPosterize")
        let distinct = Set(out)
        XCTAssertEqual(distinct, [0, 51, 102, 153, 204, 255], "six evenly spaced stored levels")
        let flat = try render("CIColorPosterize", ["inputLevels": .number(1.5)])
        XCTAssertEqual(Set(flat), [0])
    }

    // MARK: CIMaximumComponent, CIMinimumComponent

    func testMaximumAndMinimumComponentAreGrey() throws {
        for bands in [3, 4] {
            let input = bands == 4 ? rgba.pixels : image.pixels
            let maximum = try render("CIMaximumComponent", bands: bands)
            assertPixels(maximum, input, bands: bands) { r, g, b in
                let m = max(r, g, b)
                return (m, m, m)
            }
            let minimum = try render("CIMinimumComponent", bands: bands)
            assertPixels(minimum, input, bands: bands) { r, g, b in
                let m = min(r, g, b)
                return (m, m, m)
            }
        }
    }

    // MARK: CIFalseColor

    func testFalseColorMixesTheTwoColoursByLuma() throws {
        let defaults = try render("CIFalseColor")
        let dark = (SRGB.toLinear(0.3), 0.0, 0.0)
        let light = (1.0, SRGB.toLinear(0.9), SRGB.toLinear(0.8))
        assertPixels(defaults, image.pixels) { r, g, b in
            let y = self.luma(r, g, b)
            return (dark.0 + (light.0 - dark.0) * y, dark.1 + (light.1 - dark.1) * y, dark.2 + (light.2 - dark.2) * y)
        }
        let custom = try render("CIFalseColor", ["inputColor0": .vector([0, 0.2, 0.6]),
                                                 "inputColor1": .color(red: 1, green: 1, blue: 0, alpha: 1)], bands: 4)
        let c0 = (0.0, SRGB.toLinear(0.2), SRGB.toLinear(0.6))
        assertPixels(custom, rgba.pixels, bands: 4) { r, g, b in
            let y = self.luma(r, g, b)
            return (c0.0 + (1 - c0.0) * y, c0.1 + (1 - c0.1) * y, c0.2 + (0 - c0.2) * y)
        }
    }

    // MARK: Declarations, identities, validation

    func testIdentityParametersLeaveTheImageUnchanged() throws {
        for (name, identity) in [("CIColorMonochrome", ["inputIntensity": FilterValue.number(0)]),
                                 ("CIColorPosterize", ["inputLevels": .number(300)])] {
            XCTAssertEqual(FilterRegistry.attributes(of: name)?.parameter(identity.keys.first!)?.identity,
                           identity.values.first, name)
            for input in [image, rgba] {
                let bands = input.pixels.count / (input.width * input.height)
                let out = Render.pixels(try Render.filter(name, identity), input.pixels, width: input.width,
                                        height: input.height, bands: bands)
                let worst = zip(out, input.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
                XCTAssertLessThanOrEqual(worst, 1, "\(name), \(bands) bands")
            }
            XCTAssertTrue(RenderPlan(try Render.filter(name, identity)).steps.isEmpty, "\(name): no pass at all")
        }
    }

    func testDefaultsAndRangesMatchCoreImage() throws {
        let monochrome = try XCTUnwrap(FilterRegistry.attributes(of: "CIColorMonochrome"))
        XCTAssertEqual(monochrome.parameter("inputColor")?.defaultValue, .color(red: 0.6, green: 0.45, blue: 0.3, alpha: 1))
        XCTAssertEqual(monochrome.parameter("inputColor")?.type, .opaqueColor)
        let intensity = try XCTUnwrap(monochrome.parameter("inputIntensity"))
        XCTAssertEqual(intensity.defaultValue, .number(1))
        XCTAssertEqual(intensity.identity, .number(0))
        XCTAssertEqual(intensity.minimum, 0)
        XCTAssertNil(intensity.maximum, "Core Image declares no maximum")
        XCTAssertEqual(intensity.sliderMinimum, 0)
        XCTAssertEqual(intensity.sliderMaximum, 1)

        let levels = try XCTUnwrap(FilterRegistry.attributes(of: "CIColorPosterize")?.parameter("inputLevels"))
        XCTAssertEqual(levels.defaultValue, .number(6))
        XCTAssertEqual(levels.identity, .number(300))
        XCTAssertEqual(levels.minimum, 1)
        XCTAssertNil(levels.maximum)
        XCTAssertEqual(levels.sliderMinimum, 2)
        XCTAssertEqual(levels.sliderMaximum, 30)

        let falseColor = try XCTUnwrap(FilterRegistry.attributes(of: "CIFalseColor"))
        XCTAssertEqual(falseColor.parameter("inputColor0")?.defaultValue, .color(red: 0.3, green: 0, blue: 0, alpha: 1))
        XCTAssertEqual(falseColor.parameter("inputColor1")?.defaultValue, .color(red: 1, green: 0.9, blue: 0.8, alpha: 1))
        XCTAssertEqual(falseColor.parameter("inputColor0")?.type, .color)
        XCTAssertEqual(falseColor.parameter("inputColor0")?.displayName, "Color 1")

        for name in ["CIColorInvert", "CIMaximumComponent", "CIMinimumComponent"] {
            XCTAssertEqual(FilterRegistry.attributes(of: name)?.parameters.map(\.name), ["inputImage"], name)
        }
        for name in ["CIColorInvert", "CIColorMonochrome", "CIColorPosterize", "CIFalseColor", "CIMaximumComponent",
                     "CIMinimumComponent"] {
            let attributes = try XCTUnwrap(FilterRegistry.attributes(of: name), name)
            XCTAssertEqual(attributes.categories.first, "CICategoryColorEffect", name)
            XCTAssertTrue(FilterRegistry.names(inCategory: "ColorEffect").contains(name), name)
            XCTAssertFalse(attributes.reference.isEmpty, name)
        }
    }

    func testInvalidParametersAreRefused() throws {
        let posterize = try XCTUnwrap(Filter(name: "CIColorPosterize"))
        XCTAssertThrowsError(try posterize.setValue(.number(0.5), forKey: "inputLevels")) { error in
            XCTAssertEqual(error as? FilterError, .outOfRange(filter: "CIColorPosterize", key: "inputLevels",
                                                              value: 0.5, minimum: 1, maximum: nil))
        }
        let monochrome = try XCTUnwrap(Filter(name: "CIColorMonochrome"))
        XCTAssertThrowsError(try monochrome.setValue(.number(-0.1), forKey: "inputIntensity")) { error in
            XCTAssertEqual(error as? FilterError, .outOfRange(filter: "CIColorMonochrome", key: "inputIntensity",
                                                              value: -0.1, minimum: 0, maximum: nil))
        }
        // An opaque colour takes three components; a number is no colour at all.
        XCTAssertThrowsError(try monochrome.setValue(.vector([1, 0, 0, 0.5]), forKey: "inputColor"))
        XCTAssertThrowsError(try monochrome.setValue(.number(1), forKey: "inputColor"))
        XCTAssertNoThrow(try monochrome.setValue(.vector([1, 0, 0]), forKey: "inputColor"))
        let falseColor = try XCTUnwrap(Filter(name: "CIFalseColor"))
        XCTAssertThrowsError(try falseColor.setValue(.vector([1, 0]), forKey: "inputColor1"))
        XCTAssertNoThrow(try falseColor.setValue(.vector([1, 0, 0, 0.5]), forKey: "inputColor1"))
        for name in ["CIColorInvert", "CIMaximumComponent", "CIMinimumComponent"] {
            let filter = try XCTUnwrap(Filter(name: name))
            XCTAssertThrowsError(try filter.setValue(.number(1), forKey: "inputIntensity"), name) { error in
                guard case .unknownKey? = error as? FilterError else { return XCTFail("\(name): \(error)") }
            }
        }
    }

    // MARK: Fusion

    func testInvertMonochromeFalseColorFuseIntoOneMatrix() throws {
        let steps: [(String, [String: FilterValue])] = [
            ("CIColorInvert", [:]),
            ("CIColorMonochrome", ["inputColor": .vector([0.9, 0.7, 0.5]), "inputIntensity": .number(0.8)]),
            ("CIFalseColor", ["inputColor0": .vector([0.1, 0.2, 0.5]), "inputColor1": .vector([1, 0.8, 0.2])]),
        ]
        var recipe = FilterImage.source("input")
        var separately = rgba.pixels
        for (name, values) in steps {
            recipe = try Render.filter(name, values, over: recipe)
            separately = Render.pixels(try Render.filter(name, values), separately, width: rgba.width,
                                       height: rgba.height, bands: 4)
        }
        let plan = RenderPlan(recipe)
        XCTAssertEqual(plan.steps.count, 1, "one pass")
        guard case .colorMatrix? = plan.steps.first else { return XCTFail("all three are affine: one colour matrix") }
        let fused = Render.pixels(recipe, rgba.pixels, width: rgba.width, height: rgba.height, bands: 4)

        // The three maps applied one after another, in Double.
        let tint = (SRGB.toLinear(0.9), SRGB.toLinear(0.7), SRGB.toLinear(0.5))
        let c0 = (SRGB.toLinear(0.1), SRGB.toLinear(0.2), SRGB.toLinear(0.5))
        let c1 = (1.0, SRGB.toLinear(0.8), SRGB.toLinear(0.2))
        assertPixels(fused, rgba.pixels, bands: 4) { r, g, b in
            let (ir, ig, ib) = (1 - r, 1 - g, 1 - b)
            let y1 = self.luma(ir, ig, ib)
            let (mr, mg, mb) = (0.2 * ir + 0.8 * y1 * tint.0, 0.2 * ig + 0.8 * y1 * tint.1, 0.2 * ib + 0.8 * y1 * tint.2)
            let y2 = self.luma(mr, mg, mb)
            return (c0.0 + (c1.0 - c0.0) * y2, c0.1 + (c1.1 - c0.1) * y2, c0.2 + (c1.2 - c0.2) * y2)
        }
        // Rendering each filter on its own (quantised to 8 bits in between) lands close by.
        let worst = zip(fused, separately).map { abs(Int($0) - Int($1)) }.max() ?? 99
        XCTAssertLessThanOrEqual(worst, 2)
    }
}
