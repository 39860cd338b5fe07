import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// CIColorClamp, CIColorPolynomial, CIColorCrossPolynomial, CIColorThreshold, the sRGB tone
/// curves, CIDither, CIThermal and CIXRay over the 8-bit swatches, against formulas written here
/// (Apple's where it publishes one, else the open formulation each filter names).
final class ColorFunctionCatalogTests: XCTestCase {
    let image = Render.swatches()
    let rgba = Render.swatches(bands: 4)

    func render(_ name: String, _ values: [String: FilterValue] = [:], bands: Int = 3,
                transfer: Transfer = .sRGB) throws -> [UInt8] {
        let input = bands == 4 ? rgba : image
        let filter = try XCTUnwrap(Filter(name: name))
        filter.workingSpace = transfer
        filter.setDefaults()
        for (key, value) in values { try filter.setValue(value, forKey: key) }
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        return Render.pixels(try XCTUnwrap(filter.outputImage), input.pixels, width: input.width, height: input.height,
                             bands: bands, transfer: transfer)
    }

    /// Checks stored output against `expected` of the stored input (both 0…1), within `tolerance` levels.
    func assertStored(_ output: [UInt8], _ input: [UInt8], bands: Int = 3, tolerance: Double = 1,
                      file: StaticString = #filePath, line: UInt = #line,
                      _ expected: (Double, Double, Double) -> (Double, Double, Double)) {
        var worst = 0.0
        for p in stride(from: 0, to: input.count, by: bands) {
            let (r, g, b) = expected(Double(input[p]) / 255, Double(input[p + 1]) / 255, Double(input[p + 2]) / 255)
            for (c, value) in [r, g, b].enumerated() {
                worst = max(worst, abs(Double(output[p + c]) - min(max(value, 0), 1) * 255))
            }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, file: file, line: line)
    }

    func testColorClampClampsEachComponentInLinearLight() throws {
        let out = try render("CIColorClamp", ["inputMinComponents": .vector([0.1, 0.2, 0.05, 0]),
                                              "inputMaxComponents": .vector([0.6, 0.5, 0.9, 1])])
        // ≤ 1 level: the 8-bit encode rounds once.
        assertPixels(out, image.pixels) { r, g, b in (min(max(r, 0.1), 0.6), min(max(g, 0.2), 0.5), min(max(b, 0.05), 0.9)) }
    }

    func testColorClampClampsAlphaToo() throws {
        let out = try render("CIColorClamp", ["inputMinComponents": .vector([0, 0, 0, 0.5]),
                                              "inputMaxComponents": .vector([1, 1, 1, 0.9])], bands: 4)
        for p in stride(from: 3, to: rgba.pixels.count, by: 4) {
            let alpha = Double(rgba.pixels[p]) / 255
            XCTAssertEqual(Double(out[p]), min(max(alpha, 0.5), 0.9) * 255, accuracy: 0.501)
        }
    }

    func testColorPolynomialIsACubicPerChannel() throws {
        let red: [Double] = [0.1, 0.5, 0.3, 0.05], green: [Double] = [0, 2, -1, 0], blue: [Double] = [0.2, 0, 0, 0.7]
        func cubic(_ x: Double, _ k: [Double]) -> Double { k[0] + k[1] * x + k[2] * x * x + k[3] * x * x * x }
        for transfer in [Transfer.sRGB, .none] {
            let out = try render("CIColorPolynomial", ["inputRedCoefficients": .vector(red), "inputGreenCoefficients": .vector(green),
                                                       "inputBlueCoefficients": .vector(blue)], transfer: transfer)
            if transfer == .sRGB {
                assertPixels(out, image.pixels) { r, g, b in (cubic(r, red), cubic(g, green), cubic(b, blue)) }
            } else {
                // colorSpace: none: the stored values themselves.
                assertStored(out, image.pixels) { r, g, b in (cubic(r, red), cubic(g, green), cubic(b, blue)) }
            }
        }
        // Alpha: a0 + a1·α, on the RGBA swatches.
        let halved = try render("CIColorPolynomial", ["inputAlphaCoefficients": .vector([0.1, 0.5, 0, 0])], bands: 4)
        for p in stride(from: 3, to: rgba.pixels.count, by: 4) {
            // ≤ 0.5 level (+ float error at exact halves): one rounding to 8 bits.
            XCTAssertEqual(Double(halved[p]), (0.1 + 0.5 * Double(rgba.pixels[p]) / 255) * 255, accuracy: 0.501)
        }
    }

    func testColorCrossPolynomialFollowsApplesTenTerms() throws {
        let red: [Double] = [0.5, 0.2, 0.1, 0.1, 0, 0, 0.3, 0, 0, 0.02]
        let green: [Double] = [0, 0.8, 0, 0, 0.2, 0, 0, -0.1, 0, 0]
        let blue: [Double] = [0.1, 0, 0.6, 0, 0, 0.3, 0, 0, 0.2, -0.05]
        func terms(_ r: Double, _ g: Double, _ b: Double, _ k: [Double]) -> Double {
            let linear: Double = k[0] * r + k[1] * g + k[2] * b
            let squares: Double = k[3] * r * r + k[4] * g * g + k[5] * b * b
            let products: Double = k[6] * r * g + k[7] * g * b + k[8] * b * r
            return linear + squares + products + k[9]
        }
        let out = try render("CIColorCrossPolynomial", ["inputRedCoefficients": .vector(red),
                                                        "inputGreenCoefficients": .vector(green),
                                                        "inputBlueCoefficients": .vector(blue)])
        assertPixels(out, image.pixels) { r, g, b in (terms(r, g, b, red), terms(r, g, b, green), terms(r, g, b, blue)) }
    }

    func testCoefficientVectorsMustHaveTheirLength() throws {
        let polynomial = try XCTUnwrap(Filter(name: "CIColorPolynomial"))
        XCTAssertThrowsError(try polynomial.setValue(.vector([0, 1, 0]), forKey: "inputRedCoefficients"))
        let cross = try XCTUnwrap(Filter(name: "CIColorCrossPolynomial"))
        XCTAssertThrowsError(try cross.setValue(.vector([1, 0, 0, 0]), forKey: "inputRedCoefficients"))
        XCTAssertNoThrow(try cross.setValue(.vector([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), forKey: "inputRedCoefficients"))
        XCTAssertEqual(FilterRegistry.attributes(of: "CIColorClamp")?.parameter("inputMaxComponents")?.defaultValue,
                       .vector([1, 1, 1, 1]))
        XCTAssertEqual(FilterRegistry.attributes(of: "CIColorClamp")?.parameter("inputMaxComponents")?.type.attributeClass, "CIVector")
        XCTAssertEqual(FilterRegistry.attributes(of: "CIColorThreshold")?.parameter("inputThreshold")?.defaultValue, .number(0.5))
        XCTAssertEqual(FilterRegistry.attributes(of: "CIDither")?.parameter("inputIntensity")?.defaultValue, .number(0.1))
    }

    func testColorThresholdIsOneAboveAndZeroAtOrBelow() throws {
        let out = try render("CIColorThreshold", ["inputThreshold": .number(0.3)])
        assertPixels(out, image.pixels, tolerance: 1e-9) {  // exact: only 0 and 255 come out
            r, g, b in (r > 0.3 ? 1 : 0, g > 0.3 ? 1 : 0, b > 0.3 ? 1 : 0) }
        // With colorSpace: none the stored value is compared: 153/255 = 0.6 > 0.5, 102/255 = 0.4 is not.
        let stored = try render("CIColorThreshold", transfer: .none)
        assertStored(stored, image.pixels, tolerance: 1e-9) { r, g, b in (r > 0.5 ? 1 : 0, g > 0.5 ? 1 : 0, b > 0.5 ? 1 : 0) }
    }

    func testToneCurvesApplyTheSRGBFormulas() throws {
        // In linear light, LinearToSRGB turns each linear value into its sRGB encoding, which the
        // output then encodes again: twice encoded as stored. SRGBToLinear is the reverse.
        let toSRGB = try render("CILinearToSRGBToneCurve")
        assertPixels(toSRGB, image.pixels) { r, g, b in (SRGB.fromLinear(r), SRGB.fromLinear(g), SRGB.fromLinear(b)) }
        let toLinear = try render("CISRGBToneCurveToLinear")
        assertPixels(toLinear, image.pixels) { r, g, b in (SRGB.toLinear(r), SRGB.toLinear(g), SRGB.toLinear(b)) }
        let stored = try render("CISRGBToneCurveToLinear", transfer: .none)
        assertStored(stored, image.pixels) { r, g, b in (SRGB.toLinear(r), SRGB.toLinear(g), SRGB.toLinear(b)) }
    }

    func testThermalMapsLumaThroughBlueYellowRed() throws {
        func thermal(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
            let l = min(max(0.30 * r + 0.59 * g + 0.11 * b, 0), 1)
            if l < 0.5 { let t = 2 * l; return (t, t, 1 - t) }  // blue → yellow
            let t = 2 * l - 1
            return (1, 1 - t, 0)  // yellow → red
        }
        // The formula is on sRGB-encoded values: the stored ones, in either working space.
        for transfer in [Transfer.sRGB, .none] {
            assertStored(try render("CIThermal", transfer: transfer), image.pixels, tolerance: 1, thermal)
        }
    }

    func testXRayIsTheInvertedLumaOfTheEncodedColour() throws {
        for transfer in [Transfer.sRGB, .none] {
            assertStored(try render("CIXRay", transfer: transfer), image.pixels) { r, g, b in
                let v = 1 - (0.299 * r + 0.587 * g + 0.114 * b)
                return (v, v, v)
            }
        }
    }

    func testDitherIsDeterministicBoundedAndCentred() throws {
        // A flat mid-grey, 64 × 16, stored values as they are (colorSpace: none).
        let width = 64, height = 16
        let grey = [UInt8](repeating: 128, count: width * height * 3)
        let filter = try XCTUnwrap(Filter(name: "CIDither"))
        filter.workingSpace = .none
        filter.setDefaults()
        try filter.setValue(.number(0.2), forKey: "inputIntensity")
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        let recipe = try XCTUnwrap(filter.outputImage)
        let once = Render.pixels(recipe, grey, width: width, height: height, transfer: .none)
        XCTAssertEqual(once, Render.pixels(recipe, grey, width: width, height: height, transfer: .none), "re-runs match")
        // Noise of width 0.2: each value within ±0.1·255 (+ rounding) of 128, centred on it, and not flat.
        let offsets = once.map { Double($0) - 128 }
        XCTAssertLessThanOrEqual(offsets.map(abs).max() ?? 99, 0.1 * 255 + 0.5)
        XCTAssertEqual(offsets.reduce(0, +) / Double(offsets.count), 0, accuracy: 1.5)
        // A uniform spread of width 51 levels has standard deviation 51/√12 ≈ 14.7.
        let sd = (offsets.map { $0 * $0 }.reduce(0, +) / Double(offsets.count)).squareRoot()
        XCTAssertEqual(sd, 0.2 * 255 / 12.0.squareRoot(), accuracy: 1.5)
        // The noise depends on the position, not on how rows are split: the right half alone, placed at x = 32.
        let step = try XCTUnwrap(RenderPlan(recipe).steps.first)
        let kernel = step.kernel(transfer: .none, imageWidth: width, imageHeight: height)
        var half = [UInt8](repeating: 0, count: 32 * 3)
        grey.withUnsafeBytes { src in
            half.withUnsafeMutableBytes { dst in
                kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: 32, bands: 3, sampleBytes: 1, x: 32, y: 5)
            }
        }
        XCTAssertEqual(half, Array(once[(5 * width + 32) * 3..<(6 * width) * 3]))
    }

    func testColourFunctionsFuseIntoOnePass() throws {
        var recipe = FilterImage.source("input")
        for name in ["CIColorClamp", "CIColorPolynomial", "CIColorThreshold", "CIThermal", "CIXRay", "CIDither",
                     "CILinearToSRGBToneCurve", "CISRGBToneCurveToLinear", "CIColorCrossPolynomial"] {
            let values: [String: FilterValue] = name == "CIColorPolynomial" ? ["inputRedCoefficients": .vector([0, 0.5, 0, 0])]
                : name == "CIColorCrossPolynomial" ? ["inputRedCoefficients": .vector([0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0])] : [:]
            recipe = try Render.filter(name, values, over: recipe)
        }
        let steps = RenderPlan(recipe).steps
        XCTAssertEqual(steps.count, 1)
        if case .pointChain(let chain)? = steps.first { XCTAssertEqual(chain.operations.count, 9) } else { XCTFail("one point chain") }
        // Identity values leave no pass.
        XCTAssertTrue(RenderPlan(try Render.filter("CIColorPolynomial")).steps.isEmpty)
        XCTAssertTrue(RenderPlan(try Render.filter("CIColorCrossPolynomial")).steps.isEmpty)
        XCTAssertTrue(RenderPlan(try Render.filter("CIDither", ["inputIntensity": .number(0)])).steps.isEmpty)
    }
}
