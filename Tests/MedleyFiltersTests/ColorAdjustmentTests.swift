import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

final class ColorAdjustmentTests: XCTestCase {
    let image = Render.swatches()

    func testExposureIsTwoToTheEVInLinearLight() throws {
        let out = Render.pixels(try Render.filter("CIExposureAdjust", ["inputEV": .number(0.5)]), image.pixels,
                                width: image.width, height: image.height)
        let gain = pow(2.0, 0.5)
        assertPixels(out, image.pixels) { ($0 * gain, $1 * gain, $2 * gain) }
    }

    func testGammaIsPowInLinearLight() throws {
        let out = Render.pixels(try Render.filter("CIGammaAdjust", ["inputPower": .number(0.6)]), image.pixels,
                                width: image.width, height: image.height)
        assertPixels(out, image.pixels) { (pow($0, 0.6), pow($1, 0.6), pow($2, 0.6)) }
    }

    func testColorControlsFollowsApplesFormula() throws {
        let out = Render.pixels(try Render.filter("CIColorControls", ["inputSaturation": .number(1.5),
                                                                      "inputBrightness": .number(0.05),
                                                                      "inputContrast": .number(1.2)]),
                                image.pixels, width: image.width, height: image.height)
        assertPixels(out, image.pixels) { r, g, b in
            let luma = 0.2125 * r + 0.7154 * g + 0.0721 * b
            func one(_ v: Double) -> Double { ((luma + (v - luma) * 1.5) + 0.05 - 0.5) * 1.2 + 0.5 }
            return (one(r), one(g), one(b))
        }
    }

    func testIdentityParametersLeaveTheImageUnchanged() throws {
        for (name, identity) in [("CIExposureAdjust", ["inputEV": FilterValue.number(0)]),
                                 ("CIGammaAdjust", ["inputPower": .number(1)]),
                                 ("CIColorControls", [:]), ("CIVignette", ["inputIntensity": .number(0)])] {
            let rgba = Render.swatches(bands: 4)
            let out = Render.pixels(try Render.filter(name, identity), rgba.pixels, width: rgba.width,
                                    height: rgba.height, bands: 4)
            let worst = zip(out, rgba.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
            XCTAssertLessThanOrEqual(worst, 1, name)
        }
    }

    func testFusedAndUnfusedChainsAgree() throws {
        // exposure → colour controls → gamma → sepia: fused into one pass by the optimiser,
        // versus each filter rendered (and quantised to 8 bits) on its own.
        let names: [(String, [String: FilterValue])] = [
            ("CIExposureAdjust", ["inputEV": .number(-0.3)]), ("CIColorControls", ["inputSaturation": .number(0.7)]),
            ("CIGammaAdjust", ["inputPower": .number(1.1)]), ("CISepiaTone", ["inputIntensity": .number(0.4)]),
        ]
        var recipe = FilterImage.source("input")
        var separately = image.pixels
        for (name, values) in names {
            recipe = try Render.filter(name, values, over: recipe)
            separately = Render.pixels(try Render.filter(name, values), separately, width: image.width, height: image.height)
        }
        XCTAssertEqual(RenderPlan(recipe).steps.count, 1, "one pass")
        let fused = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        // Unfused quantises to 8 bits between every filter; dark tones amplify that (the sRGB curve
        // is steep there), so allow two steps.
        let worst = zip(fused, separately).map { abs(Int($0) - Int($1)) }.max() ?? 99
        XCTAssertLessThanOrEqual(worst, 2)
    }

    func testDefaultsMatchTheSpec() throws {
        let expected: [(String, String, Double)] = [
            ("CIColorControls", "inputSaturation", 1), ("CIColorControls", "inputBrightness", 0),
            ("CIColorControls", "inputContrast", 1), ("CIExposureAdjust", "inputEV", 0),
            ("CIGammaAdjust", "inputPower", 1), ("CIVignette", "inputIntensity", 0), ("CIVignette", "inputRadius", 1),
        ]
        for (filter, key, value) in expected {
            XCTAssertEqual(FilterRegistry.attributes(of: filter)?.parameter(key)?.defaultValue, .number(value), "\(filter).\(key)")
        }
        let contrast = FilterRegistry.attributes(of: "CIColorControls")?.parameter("inputContrast")
        XCTAssertEqual(contrast?.sliderMinimum, 0.25)
        XCTAssertEqual(contrast?.sliderMaximum, 4)
        XCTAssertEqual(contrast?.minimum, 0)
    }

    func testVignetteKeepsTheCentreAndDarkensTheCorners() throws {
        let width = 64, height = 48
        let grey = [UInt8](repeating: 180, count: width * height * 3)
        let out = Render.pixels(try Render.filter("CIVignette", ["inputIntensity": .number(1)]), grey,
                                width: width, height: height)
        func at(_ x: Int, _ y: Int) -> UInt8 { out[(y * width + x) * 3] }
        XCTAssertEqual(at(32, 24), 180, "the centre is untouched")
        XCTAssertLessThan(at(0, 0), 150, "corners are darker")
        XCTAssertEqual(at(0, 0), at(63, 47), "the falloff is symmetric")
        XCTAssertEqual(at(0, 0), at(63, 0))
        // By the stated formula at the corner pixel (0, 0): d = |(0.5 − 32, 0.5 − 24)| / 40.
        let d = ((31.5 * 31.5 + 23.5 * 23.5) as Double).squareRoot() / 40
        let t = min(max((d - 0.5) / 1.0, 0), 1)
        let factor = 1 - t * t * (3 - 2 * t)
        XCTAssertEqual(Double(at(0, 0)), SRGB.stored(SRGB.linear(180) * factor), accuracy: 1)
    }
}
