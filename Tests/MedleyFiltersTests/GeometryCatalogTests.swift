import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// Halftones and generators (point operations, fused like any other) over in-memory pixels, each
/// checked against the formula the filter's `reference` names, written again here in Double.
/// Positions: Core Image's, from the bottom-left, pixel centres at half-integers.
final class GeometryCatalogTests: XCTestCase {
    let width = 32, height = 24

    /// A uniform image of one stored sRGB grey.
    func grey(_ value: UInt8, bands: Int = 3) -> [UInt8] {
        [UInt8](repeating: value, count: width * height * bands)
    }

    /// Core Image's (x, y) of the pixel at column x, row `row` from the top.
    func position(_ x: Int, _ row: Int) -> (Double, Double) { (Double(x) + 0.5, Double(height - row) - 0.5) }

    // MARK: halftones

    /// The screens of the reference: t over (u, v) = (p − centre) rotated by −angle, moved into
    /// e…1 − e (t' = e + (1 − 2e)·t) for a ramp half-width e.
    func threshold(_ pattern: String, _ x: Double, _ y: Double, centre: (Double, Double), angle: Double, w: Double,
                   e: Double) -> Double {
        let dx = x - centre.0, dy = y - centre.1
        let u = dx * cos(angle) + dy * sin(angle), v = -dx * sin(angle) + dy * cos(angle)
        let t: Double
        switch pattern {
        case "dot": t = 0.5 + 0.25 * (cos(2 * .pi * u / w) + cos(2 * .pi * v / w))
        case "line": t = 0.5 + 0.5 * cos(2 * .pi * v / w)
        default: t = 0.5 + 0.5 * cos(2 * .pi * (dx * dx + dy * dy).squareRoot() / w)
        }
        return e + (1 - 2 * e) * t
    }

    func testHardScreensPutInkWhereTheScreenIsAboveTheLuminance() throws {
        // Sharpness 1: the ramp is 0.002 wide, so each pixel is paper (255) where L > t and ink (0)
        // where L < t; pixels within 0.01 of the threshold are skipped (the ramp and float rounding).
        let l = SRGB.linear(140)  // Rec. 709 luminance of a grey is the grey itself
        let cases: [(filter: String, pattern: String, angle: Double)] = [
            ("CIDotScreen", "dot", 0.4), ("CILineScreen", "line", -1.1), ("CICircularScreen", "circular", 0),
        ]
        for c in cases {
            var values: [String: FilterValue] = ["inputCenter": .vector([7, 5]), "inputWidth": .number(7), "inputSharpness": .number(1)]
            if c.pattern != "circular" { values["inputAngle"] = .number(c.angle) }
            let out = Render.pixels(try Render.filter(c.filter, values), grey(140), width: width, height: height)
            var checked = 0, ink = 0
            for row in 0..<height {
                for x in 0..<width {
                    let (px, py) = position(x, row)
                    let t = threshold(c.pattern, px, py, centre: (7, 5), angle: c.angle, w: 7, e: 0.001)
                    guard abs(t - l) > 0.01 else { continue }
                    let expected: UInt8 = l > t ? 255 : 0
                    XCTAssertEqual(out[(row * width + x) * 3], expected, "\(c.filter) at (\(x), \(row))")
                    checked += 1
                    if expected == 0 { ink += 1 }
                }
            }
            XCTAssertGreaterThan(checked, width * height / 2, c.filter)
            XCTAssertGreaterThan(ink, 0, "\(c.filter): some ink")
        }
    }

    func testSoftScreenFollowsTheSmoothstepRamp() throws {
        // Sharpness 0.2: e = 0.4, out = smoothstep(t − e, t + e, L), encoded to sRGB.
        let l = SRGB.linear(100)
        let out = Render.pixels(try Render.filter("CIDotScreen", ["inputCenter": .vector([0, 0]), "inputWidth": .number(9),
                                                                  "inputSharpness": .number(0.2)]),
                                grey(100), width: width, height: height)
        var worst = 0.0
        for row in 0..<height {
            for x in 0..<width {
                let (px, py) = position(x, row)
                let t = threshold("dot", px, py, centre: (0, 0), angle: 0, w: 9, e: 0.4)
                let s = min(max((l - (t - 0.4)) / 0.8, 0), 1)
                worst = max(worst, abs(Double(out[(row * width + x) * 3]) - SRGB.stored(s * s * (3 - 2 * s))))
            }
        }
        // 8-bit rounding plus Float maths: ≤ 1 level.
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testHatchedScreenCrossesOnlyInTheDark() throws {
        // Above L = 0.5 the second set (threshold 0.5·t_line(u) ≤ 0.5) is always paper: the output
        // equals the line screen's. In the dark it adds ink.
        let light = SRGB.linear(200)  // 0.58 linear
        XCTAssertGreaterThan(light, 0.55)
        let values: [String: FilterValue] = ["inputCenter": .vector([3, 3]), "inputWidth": .number(6), "inputSharpness": .number(1)]
        let hatched = Render.pixels(try Render.filter("CIHatchedScreen", values), grey(200), width: width, height: height)
        let lines = Render.pixels(try Render.filter("CILineScreen", values), grey(200), width: width, height: height)
        XCTAssertEqual(hatched, lines)
        let darkHatched = Render.pixels(try Render.filter("CIHatchedScreen", values), grey(110), width: width, height: height)
        let darkLines = Render.pixels(try Render.filter("CILineScreen", values), grey(110), width: width, height: height)
        XCTAssertLessThan(darkHatched.filter { $0 == 255 }.count, darkLines.filter { $0 == 255 }.count)
    }

    func testCMYKHalftoneSeparatesWithGCRAndUCR() throws {
        // White paper stays white; a linear (r, g, b) of (0.2, 0.6, 1) gives c, m, y = 0.8, 0.4, 0,
        // k = GCR·min = 0, so only cyan and magenta dots fall, at 15° and 75°.
        let white = Render.pixels(try Render.filter("CICMYKHalftone"), grey(255), width: width, height: height)
        XCTAssertEqual(Set(white), [255])
        let stored: [UInt8] = [UInt8(SRGB.stored(0.2).rounded()), UInt8(SRGB.stored(0.6).rounded()), 255]
        let input = [UInt8]((0..<(width * height)).flatMap { _ in stored })
        let (r, g) = (SRGB.linear(stored[0]), SRGB.linear(stored[1]))
        let out = Render.pixels(try Render.filter("CICMYKHalftone", ["inputCenter": .vector([0, 0]), "inputWidth": .number(8),
                                                                     "inputSharpness": .number(0.5), "inputAngle": .number(0.3)]),
                                input, width: width, height: height)
        var worst = 0.0
        for row in 0..<height {
            for x in 0..<width {
                let (px, py) = position(x, row)
                func coverage(_ ink: Double, _ degrees: Double) -> Double {
                    let t = threshold("dot", px, py, centre: (0, 0), angle: 0.3 + degrees * .pi / 180, w: 8, e: 0.25)
                    let s = min(max((ink - (t - 0.25)) / 0.5, 0), 1)
                    return s * s * (3 - 2 * s)
                }
                let expected = [1 - coverage(1 - r, 15), 1 - coverage(1 - g, 75), 1.0]
                for c in 0..<3 {
                    worst = max(worst, abs(Double(out[(row * width + x) * 3 + c]) - SRGB.stored(expected[c])))
                }
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
        // Black: k = GCR·1 = 1, so black ink covers everything.
        let black = Render.pixels(try Render.filter("CICMYKHalftone"), grey(0), width: width, height: height)
        XCTAssertEqual(Set(black), [0])
    }

    // MARK: generators

    func testLinearGradientsBlendInTheWorkingSpace() throws {
        // From (4, 0) white to (28, 0) red: t = clamp((x − 4)/24); linear mix, then sRGB-encoded.
        for (name, smooth) in [("CILinearGradient", false), ("CISmoothLinearGradient", true)] {
            let out = Render.pixels(try Render.filter(name, ["inputPoint0": .vector([4, 0]), "inputPoint1": .vector([28, 0]),
                                                             "inputColor1": .color(red: 1, green: 0, blue: 0, alpha: 1)]),
                                    grey(0), width: width, height: height)
            for x in 0..<width {
                var t = min(max((Double(x) + 0.5 - 4) / 24, 0), 1)
                if smooth { t = t * t * (3 - 2 * t) }
                let expected = [1.0, 1 - t, 1 - t]
                for c in 0..<3 {
                    XCTAssertEqual(Double(out[(5 * width + x) * 3 + c]), SRGB.stored(expected[c]), accuracy: 1, "\(name) x \(x)")
                }
            }
        }
    }

    func testRadialGradientRisesBetweenItsRadii() throws {
        // Grey 0.8 (sRGB-encoded, so 0.6038 linear) inside radius 3, black beyond 12, around (10, 8).
        let out = Render.pixels(try Render.filter("CIRadialGradient", [
            "inputCenter": .vector([10, 8]), "inputRadius0": .number(3), "inputRadius1": .number(12),
            "inputColor0": .color(red: 0.8, green: 0.8, blue: 0.8, alpha: 1)]), grey(0), width: width, height: height)
        let inner = SRGB.toLinear(0.8)
        for (x, row) in [(10, 15), (3, 3), (20, 20), (31, 0), (12, 14)] {
            let (px, py) = position(x, row)
            let d = ((px - 10) * (px - 10) + (py - 8) * (py - 8)).squareRoot()
            let t = min(max((d - 3) / 9, 0), 1)
            XCTAssertEqual(Double(out[(row * width + x) * 3]), SRGB.stored(inner * (1 - t)), accuracy: 1, "(\(x), \(row))")
        }
    }

    func testCheckerboardAndStripesAlternateByWidthFromTheCentre() throws {
        // Sharpness 1: colour 0 (white) in cells where ⌊(x − cx)/w⌋ + ⌊(y − cy)/w⌋ is even.
        let board = Render.pixels(try Render.filter("CICheckerboardGenerator", ["inputCenter": .vector([3, 2]), "inputWidth": .number(5)]),
                                  grey(128), width: width, height: height)
        let stripes = Render.pixels(try Render.filter("CIStripesGenerator", ["inputCenter": .vector([3, 2]), "inputWidth": .number(5)]),
                                    grey(128), width: width, height: height)
        for row in 0..<height {
            for x in 0..<width {
                let (px, py) = position(x, row)
                let i = Int(((px - 3) / 5).rounded(.down)), j = Int(((py - 2) / 5).rounded(.down))
                XCTAssertEqual(board[(row * width + x) * 3], (i + j) % 2 == 0 ? 255 : 0, "checkerboard (\(x), \(row))")
                XCTAssertEqual(stripes[(row * width + x) * 3], i % 2 == 0 ? 255 : 0, "stripes (\(x), \(row))")
            }
        }
    }

    func testRandomGeneratorIsUniformAndFixedByPosition() throws {
        let image = try Render.filter("CIRandomGenerator")
        let a = Render.pixels(image, grey(0, bands: 4), width: width, height: height, bands: 4, transfer: .none)
        let b = Render.pixels(image, grey(77, bands: 4), width: width, height: height, bands: 4, transfer: .none)
        XCTAssertEqual(a, b, "the input does not matter and the same pixel gets the same values")
        // 3072 uniform samples in 0…255: mean 127.5 ± 1.3 (σ/√n); 4σ bounds, fixed values (no flakiness).
        let mean = Double(a.reduce(0) { $0 + Int($1) }) / Double(a.count)
        XCTAssertEqual(mean, 127.5, accuracy: 5.3)
        // Each of the 8 bins of 32 levels holds 1/8 of the samples (χ²-style, ±25 %).
        var bins = [Int](repeating: 0, count: 8)
        for v in a { bins[Int(v) / 32] += 1 }
        for count in bins { XCTAssertEqual(Double(count), Double(a.count) / 8, accuracy: Double(a.count) / 32) }
        // Neighbouring pixels are not correlated: the mean product of centred neighbours is near 0.
        var product = 0.0
        for i in stride(from: 0, to: a.count - 4, by: 4) { product += (Double(a[i]) - 127.5) * (Double(a[i + 4]) - 127.5) }
        XCTAssertLessThan(abs(product / Double(a.count / 4)) / (73.9 * 73.9), 0.1)
    }

    func testRoundedRectangleCoversItsDistanceField() throws {
        // [4 3 20 14], radius 5, red: coverage = clamp(0.5 − d, 0, 1) with d the distance to the
        // rounded box; alpha carries it.
        let out = Render.pixels(try Render.filter("CIRoundedRectangleGenerator", [
            "inputExtent": .vector([4, 3, 20, 14]), "inputRadius": .number(5),
            "inputColor": .color(red: 1, green: 0, blue: 0, alpha: 1)]), grey(0, bands: 4), width: width, height: height, bands: 4)
        for row in 0..<height {
            for x in 0..<width {
                let (px, py) = position(x, row)
                // Distance to the rectangle shrunk by the radius, minus the radius.
                let nearestX = min(max(px, 4 + 5), 24 - 5.0), nearestY = min(max(py, 3 + 5), 17 - 5.0)
                let inner = ((px - nearestX) * (px - nearestX) + (py - nearestY) * (py - nearestY)).squareRoot()
                let d = inner > 0 ? inner - 5 : -min(px - 4, 24 - px, py - 3, 17 - py)
                let coverage = min(max(0.5 - d, 0), 1)
                XCTAssertEqual(Double(out[(row * width + x) * 4 + 3]), coverage * 255, accuracy: 1, "alpha at (\(x), \(row))")
                if coverage > 0 { XCTAssertEqual(out[(row * width + x) * 4], 255) }
            }
        }
    }

    // MARK: declarations and barcodes

    func testDeclarationsCarryCoreImagesValues() throws {
        let expected: [(String, String, FilterValue)] = [
            ("CIDotScreen", "inputWidth", .number(6)), ("CIDotScreen", "inputSharpness", .number(0.7)),
            ("CIDotScreen", "inputCenter", .vector([150, 150])), ("CICMYKHalftone", "inputGCR", .number(1)),
            ("CICMYKHalftone", "inputUCR", .number(0.5)), ("CIBumpDistortion", "inputRadius", .number(300)),
            ("CIBumpDistortion", "inputScale", .number(0.5)), ("CITwirlDistortion", "inputAngle", .number(Double.pi)),
            ("CIVortexDistortion", "inputAngle", .number(56.55)), ("CIHoleDistortion", "inputRadius", .number(150)),
            ("CIPerspectiveTransform", "inputTopLeft", .vector([118, 484])), ("CIPerspectiveCorrection", "inputBottomRight", .vector([548, 140])),
            ("CILinearGradient", "inputPoint1", .vector([200, 200])), ("CIRadialGradient", "inputRadius1", .number(100)),
            ("CICheckerboardGenerator", "inputWidth", .number(80)), ("CIRoundedRectangleGenerator", "inputExtent", .vector([0, 0, 100, 100])),
            ("CIQRCodeGenerator", "inputCorrectionLevel", .text("M")), ("CICode128BarcodeGenerator", "inputQuietSpace", .number(7)),
            ("CICode128BarcodeGenerator", "inputBarcodeHeight", .number(32)),
        ]
        for (filter, key, value) in expected {
            let parameter = try XCTUnwrap(FilterRegistry.attributes(of: filter)?.parameter(key), "\(filter).\(key)")
            XCTAssertEqual(parameter.defaultValue, value, "\(filter).\(key)")
        }
        XCTAssertEqual(FilterRegistry.names(inCategory: "HalftoneEffect").count, 5)
        XCTAssertEqual(FilterRegistry.names(inCategory: "DistortionEffect").count, 6)
    }

    func testMessagesAreCheckedWhenSet() throws {
        let qr = try XCTUnwrap(FilterRegistry.attributes(of: "CIQRCodeGenerator"))
        XCTAssertThrowsError(try Filter.checked(.text(""), forKey: "inputMessage", of: qr))
        XCTAssertThrowsError(try Filter.checked(.text(String(repeating: "x", count: 2954)), forKey: "inputMessage", of: qr))
        XCTAssertNoThrow(try Filter.checked(.text("Grüße"), forKey: "inputMessage", of: qr))
        XCTAssertThrowsError(try Filter.checked(.text("X"), forKey: "inputCorrectionLevel", of: qr))
        // 1273 bytes fit level H, 1274 do not (ISO/IEC 18004 table 7); 1274 is fine at L.
        XCTAssertNil(Filter.problem(filter: "CIQRCodeGenerator", values: [("inputMessage", .text(String(repeating: "a", count: 1273))),
                                                                          ("inputCorrectionLevel", .text("H"))]))
        XCTAssertNil(Filter.problem(filter: "CIQRCodeGenerator", values: [("inputMessage", .text("Grüße")),
                                                                          ("inputCorrectionLevel", .text("H"))]))
        XCTAssertNotNil(Filter.problem(filter: "CIQRCodeGenerator", values: [("inputMessage", .text(String(repeating: "a", count: 1274))),
                                                                             ("inputCorrectionLevel", .text("H"))]))
        XCTAssertNil(Filter.problem(filter: "CIQRCodeGenerator", values: [("inputMessage", .text(String(repeating: "a", count: 1274))),
                                                                          ("inputCorrectionLevel", .text("L"))]))
        XCTAssertNotNil(Filter.problem(filter: "CICode128BarcodeGenerator", values: [("inputMessage", .text("café"))]))
        XCTAssertNil(Filter.problem(filter: "CICode128BarcodeGenerator", values: [("inputMessage", .text("cafe 42"))]))
    }
}
