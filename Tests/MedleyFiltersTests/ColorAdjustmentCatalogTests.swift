import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// CIColorMatrix, CIHueAdjust, CIVibrance, CIWhitePointAdjust, CITemperatureAndTint and
/// CIToneCurve. Expected values are computed here, in Double, from the formulas each filter's
/// `reference` names — never from the filters' own code.
final class ColorAdjustmentCatalogTests: XCTestCase {
    let image = Render.swatches()

    private func render(_ name: String, _ values: [String: FilterValue]) throws -> [UInt8] {
        Render.pixels(try Render.filter(name, values), image.pixels, width: image.width, height: image.height)
    }

    private func isColorMatrix(_ recipe: FilterImage) -> Bool {
        if case .colorMatrix = recipe { return true }
        return false
    }

    // MARK: - Identity

    func testIdentityParametersLeaveTheImageUnchanged() throws {
        let cases: [(String, [String: FilterValue])] = [
            ("CIColorMatrix", [:]),
            ("CIColorMatrix", ["inputRVector": .vector([1, 0, 0, 0]), "inputAVector": .vector([0, 0, 0, 1]),
                               "inputBiasVector": .vector([0, 0, 0, 0])]),
            ("CIHueAdjust", ["inputAngle": .number(0)]),
            ("CIVibrance", ["inputAmount": .number(0)]),
            ("CIWhitePointAdjust", ["inputColor": .vector([1, 1, 1])]),
            ("CITemperatureAndTint", [:]),
            ("CITemperatureAndTint", ["inputNeutral": .vector([4200, 15]), "inputTargetNeutral": .vector([4200, 15])]),
            ("CIToneCurve", [:]),
            // Points on the diagonal but not the default ones: the curve runs (through its table)
            // and must still be the identity.
            ("CIToneCurve", ["inputPoint1": .vector([0.1, 0.1]), "inputPoint2": .vector([0.3, 0.3]),
                             "inputPoint3": .vector([0.6, 0.6])]),
        ]
        for (name, values) in cases {
            for bands in [3, 4] {
                let swatches = Render.swatches(bands: bands)
                let out = Render.pixels(try Render.filter(name, values), swatches.pixels, width: swatches.width,
                                        height: swatches.height, bands: bands)
                let worst = zip(out, swatches.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
                XCTAssertLessThanOrEqual(worst, 1, "\(name) \(values), \(bands) bands")
            }
        }
        let diagonal = try Render.filter("CIToneCurve", ["inputPoint1": .vector([0.1, 0.1]),
                                                         "inputPoint2": .vector([0.3, 0.3]),
                                                         "inputPoint3": .vector([0.6, 0.6])])
        XCTAssertEqual(RenderPlan(diagonal).steps.count, 1, "a non-default diagonal curve still runs its table")
    }

    func testDeclaredIdentitiesLeaveNoPass() throws {
        for name in ["CIColorMatrix", "CIHueAdjust", "CIVibrance", "CIWhitePointAdjust", "CITemperatureAndTint",
                     "CIToneCurve"] {
            let attributes = try XCTUnwrap(FilterRegistry.attributes(of: name))
            var values: [String: FilterValue] = [:]
            for parameter in attributes.parameters where parameter.type != .image {
                values[parameter.name] = try XCTUnwrap(parameter.identity, "\(name).\(parameter.name) has an identity")
            }
            XCTAssertTrue(RenderPlan(try Render.filter(name, values)).steps.isEmpty, name)
        }
    }

    // MARK: - Declarations

    func testDefaultsMatchCoreImage() throws {
        func parameter(_ filter: String, _ key: String) throws -> ParameterAttributes {
            try XCTUnwrap(FilterRegistry.attributes(of: filter)?.parameter(key), "\(filter).\(key)")
        }
        let vectors: [(String, [Double])] = [("inputRVector", [1, 0, 0, 0]), ("inputGVector", [0, 1, 0, 0]),
                                             ("inputBVector", [0, 0, 1, 0]), ("inputAVector", [0, 0, 0, 1]),
                                             ("inputBiasVector", [0, 0, 0, 0])]
        for (key, value) in vectors {
            let p = try parameter("CIColorMatrix", key)
            XCTAssertEqual(p.defaultValue, .vector(value), key)
            XCTAssertEqual(p.identity, .vector(value), key)
            XCTAssertEqual(p.type, .rectangle, key)
            XCTAssertNil(p.minimum)
            XCTAssertNil(p.sliderMinimum)
        }

        let angle = try parameter("CIHueAdjust", "inputAngle")
        XCTAssertEqual(angle.type, .angle)
        XCTAssertEqual(angle.defaultValue, .number(0))
        XCTAssertEqual(angle.identity, .number(0))
        XCTAssertEqual(angle.sliderMinimum, -3.141592653589793)
        XCTAssertEqual(angle.sliderMaximum, 3.141592653589793)
        XCTAssertNil(angle.minimum)
        XCTAssertNil(angle.maximum)

        let amount = try parameter("CIVibrance", "inputAmount")
        XCTAssertEqual(amount.type, .scalar)
        XCTAssertEqual(amount.defaultValue, .number(0))
        XCTAssertEqual(amount.identity, .number(0))
        XCTAssertEqual(amount.minimum, -1)
        XCTAssertEqual(amount.maximum, 1)
        XCTAssertEqual(amount.sliderMinimum, -1)
        XCTAssertEqual(amount.sliderMaximum, 1)

        let color = try parameter("CIWhitePointAdjust", "inputColor")
        XCTAssertEqual(color.type, .color)
        XCTAssertEqual(color.defaultValue, .color(red: 1, green: 1, blue: 1, alpha: 1))
        XCTAssertEqual(color.identity, .color(red: 1, green: 1, blue: 1, alpha: 1))

        for key in ["inputNeutral", "inputTargetNeutral"] {
            let p = try parameter("CITemperatureAndTint", key)
            XCTAssertEqual(p.type, .offset, key)
            XCTAssertEqual(p.defaultValue, .vector([6500, 0]), key)
            XCTAssertEqual(p.identity, .vector([6500, 0]), key)
        }
        XCTAssertEqual(try parameter("CITemperatureAndTint", "inputTargetNeutral").displayName, "Target Neutral")

        let points: [[Double]] = [[0, 0], [0.25, 0.25], [0.5, 0.5], [0.75, 0.75], [1, 1]]
        for (i, point) in points.enumerated() {
            let p = try parameter("CIToneCurve", "inputPoint\(i)")
            XCTAssertEqual(p.type, .offset)
            XCTAssertEqual(p.defaultValue, .vector(point), "inputPoint\(i)")
            XCTAssertEqual(p.identity, .vector(point), "inputPoint\(i)")
            XCTAssertEqual(p.displayName, "Point \(i)")
        }

        let names = ["CIColorMatrix": "Color Matrix", "CIHueAdjust": "Hue Adjust", "CIVibrance": "Vibrance",
                     "CIWhitePointAdjust": "White Point Adjust", "CITemperatureAndTint": "Temperature and Tint",
                     "CIToneCurve": "Tone Curve"]
        for (name, displayName) in names {
            let attributes = try XCTUnwrap(FilterRegistry.attributes(of: name))
            XCTAssertEqual(attributes.displayName, displayName)
            XCTAssertEqual(attributes.categories, ["CICategoryColorAdjustment", "CICategoryVideo", "CICategoryStillImage",
                                                   "CICategoryInterlaced", "CICategoryNonSquarePixels",
                                                   "CICategoryBuiltIn"], name)
            XCTAssertEqual(attributes.imageKeys, ["inputImage"])
            XCTAssertTrue(FilterRegistry.names(inCategory: "ColorAdjustment").contains(name))
        }
        XCTAssertEqual(FilterRegistry.attributes(of: "CIHueAdjust")?.summary,
                       "Changes the overall hue, or tint, of the source pixels.")
    }

    func testInvalidParametersAreRejected() throws {
        let vibrance = try XCTUnwrap(Filter(name: "CIVibrance"))
        XCTAssertThrowsError(try vibrance.setValue(.number(2), forKey: "inputAmount")) { error in
            XCTAssertEqual(error as? FilterError, .outOfRange(filter: "CIVibrance", key: "inputAmount", value: 2,
                                                              minimum: -1, maximum: 1))
        }
        XCTAssertThrowsError(try vibrance.setValue(.number(-1.5), forKey: "inputAmount"))

        let bad: [(String, String, FilterValue)] = [
            ("CIColorMatrix", "inputRVector", .vector([1, 0, 0])),
            ("CIColorMatrix", "inputBiasVector", .number(0.1)),
            ("CIHueAdjust", "inputAngle", .vector([1, 2])),
            ("CIWhitePointAdjust", "inputColor", .vector([1, 0.5])),
            ("CITemperatureAndTint", "inputNeutral", .vector([6500])),
            ("CITemperatureAndTint", "inputTargetNeutral", .vector([6500, 0, 1])),
            ("CIToneCurve", "inputPoint2", .number(0.5)),
            ("CIToneCurve", "inputPoint5", .vector([1, 1])),
        ]
        for (name, key, value) in bad {
            let filter = try XCTUnwrap(Filter(name: name))
            XCTAssertThrowsError(try filter.setValue(value, forKey: key), "\(name).\(key) = \(value)")
        }
    }

    // MARK: - CIColorMatrix

    func testColorMatrixFollowsApplesFormula() throws {
        let values: [String: FilterValue] = [
            "inputRVector": .vector([0.9, 0.15, -0.05, 0]), "inputGVector": .vector([0.1, 0.8, 0.1, 0]),
            "inputBVector": .vector([0.05, 0.25, 0.7, 0]), "inputBiasVector": .vector([0.02, -0.01, 0.03, 0]),
        ]
        XCTAssertTrue(isColorMatrix(try Render.filter("CIColorMatrix", values)), "alpha untouched: one colour matrix")
        assertPixels(try render("CIColorMatrix", values), image.pixels) { r, g, b in
            (0.9 * r + 0.15 * g - 0.05 * b + 0.02, 0.1 * r + 0.8 * g + 0.1 * b - 0.01, 0.05 * r + 0.25 * g + 0.7 * b + 0.03)
        }
    }

    func testColorMatrixReadsAndWritesAlpha() throws {
        // out.r = r + 0.1·a; out.a = 0.5·a + 0.2 (unpremultiplied), G and B untouched.
        let values: [String: FilterValue] = ["inputRVector": .vector([1, 0, 0, 0.1]),
                                             "inputAVector": .vector([0, 0, 0, 0.5]),
                                             "inputBiasVector": .vector([0, 0, 0, 0.2])]
        let recipe = try Render.filter("CIColorMatrix", values)
        XCTAssertFalse(isColorMatrix(recipe), "alpha terms need the 4×4 point operation")
        let rgba = Render.swatches(bands: 4)
        let out = Render.pixels(recipe, rgba.pixels, width: rgba.width, height: rgba.height, bands: 4)
        var worst = 0.0
        for p in stride(from: 0, to: rgba.pixels.count, by: 4) {
            let a = Double(rgba.pixels[p + 3]) / 255
            let expected = [SRGB.stored(SRGB.linear(rgba.pixels[p]) + 0.1 * a), SRGB.stored(SRGB.linear(rgba.pixels[p + 1])),
                            SRGB.stored(SRGB.linear(rgba.pixels[p + 2])), min(max(0.5 * a + 0.2, 0), 1) * 255]
            for c in 0..<4 { worst = max(worst, abs(Double(out[p + c]) - expected[c])) }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }

    // MARK: - CIHueAdjust

    func testHueAdjustIsARotationAboutTheGreyAxis() throws {
        let theta = 0.9
        let recipe = try Render.filter("CIHueAdjust", ["inputAngle": .number(theta)])
        XCTAssertTrue(isColorMatrix(recipe))
        // Rodrigues: v' = v·cos θ + (k × v)·sin θ + k·(k·v)·(1 − cos θ), k = (1, 1, 1)/√3.
        assertPixels(Render.pixels(recipe, image.pixels, width: image.width, height: image.height), image.pixels) { r, g, b in
            let k = 1 / 3.0.squareRoot()
            let cross = (k * (b - g), k * (r - b), k * (g - r))
            let along = k * (k * r + k * g + k * b) * (1 - cos(theta))
            return (r * cos(theta) + cross.0 * sin(theta) + along,
                    g * cos(theta) + cross.1 * sin(theta) + along,
                    b * cos(theta) + cross.2 * sin(theta) + along)
        }
        // A third of a turn takes red to green and green to blue.
        let third = try Render.filter("CIHueAdjust", ["inputAngle": .number(2 * Double.pi / 3)])
        let out = Render.pixels(third, [255, 0, 0, 0, 255, 0], width: 2, height: 1)
        for (got, want) in zip(out, [0, 255, 0, 0, 0, 255] as [Int]) { XCTAssertLessThanOrEqual(abs(Int(got) - want), 1) }
    }

    // MARK: - CIVibrance

    func testVibranceFollowsGPUImagesFormula() throws {
        for amount in [0.6, -0.8] {
            let recipe = try Render.filter("CIVibrance", ["inputAmount": .number(amount)])
            assertPixels(Render.pixels(recipe, image.pixels, width: image.width, height: image.height), image.pixels) { r, g, b in
                let average = (r + g + b) / 3
                let mx = max(r, g, b)
                let amt = (mx - average) * (-3 * amount)
                return (r + (mx - r) * amt, g + (mx - g) * amt, b + (mx - b) * amt)
            }
        }
    }

    // MARK: - CIWhitePointAdjust

    func testWhitePointAdjustMultipliesByTheColour() throws {
        let recipe = try Render.filter("CIWhitePointAdjust", ["inputColor": .vector([0.9, 0.75, 0.5])])
        XCTAssertTrue(isColorMatrix(recipe))
        // The colour is a CIColor (sRGB components), converted to linear light like Core Image does.
        let (wr, wg, wb) = (SRGB.toLinear(0.9), SRGB.toLinear(0.75), SRGB.toLinear(0.5))
        assertPixels(Render.pixels(recipe, image.pixels, width: image.width, height: image.height), image.pixels) { r, g, b in
            (r * wr, g * wg, b * wb)
        }
    }

    // MARK: - CITemperatureAndTint

    func testTemperatureAndTintKeepsGreyNeutralWhenNeutralEqualsTarget() throws {
        let greys = (0..<64).flatMap { i -> [UInt8] in let v = UInt8(i * 4); return [v, v, v] }
        let recipe = try Render.filter("CITemperatureAndTint", ["inputNeutral": .vector([3800, -20]),
                                                                "inputTargetNeutral": .vector([3800, -20])])
        let out = Render.pixels(recipe, greys, width: 16, height: 4)
        XCTAssertEqual(out, greys)
    }

    func testLowerTargetTemperatureWarmsAndHigherCools() throws {
        let grey: [UInt8] = [150, 150, 150]
        let warm = Render.pixels(try Render.filter("CITemperatureAndTint", ["inputTargetNeutral": .vector([4000, 0])]),
                                 grey, width: 1, height: 1)
        XCTAssertGreaterThan(warm[0], 150, "warmer: red up")
        XCTAssertLessThan(warm[2], 150, "warmer: blue down")
        let cool = Render.pixels(try Render.filter("CITemperatureAndTint", ["inputTargetNeutral": .vector([9500, 0])]),
                                 grey, width: 1, height: 1)
        XCTAssertLessThan(cool[0], cool[2], "cooler: blue above red")
        let magenta = Render.pixels(try Render.filter("CITemperatureAndTint", ["inputTargetNeutral": .vector([6500, 40])]),
                                    grey, width: 1, height: 1)
        XCTAssertLessThan(magenta[1], magenta[0], "positive tint: green below red")
        XCTAssertLessThan(magenta[1], magenta[2], "positive tint: green below blue")
    }

    func testTemperatureAndTintMapsTheSourceWhiteOntoTheTargetWhite() throws {
        let pairs: [([Double], [Double])] = [([6500, 0], [4000, 0]), ([3000, 0], [7500, 0]), ([5000, 0], [5000, 40]),
                                             ([2000, -30], [12000, 25]), ([6500, 0], [6500, -60])]
        for (source, target) in pairs {
            let recipe = try Render.filter("CITemperatureAndTint", ["inputNeutral": .vector(source),
                                                                    "inputTargetNeutral": .vector(target)])
            guard case .colorMatrix(let matrix, _) = recipe else { XCTFail("one colour matrix"); continue }
            let from = Self.linearSRGBWhite(temperature: source[0], tint: source[1])
            let to = Self.linearSRGBWhite(temperature: target[0], tint: target[1])
            for i in 0..<3 {
                let mapped = (0..<3).reduce(0.0) { $0 + Double(matrix.rows[i][$1]) * from[$1] }
                XCTAssertEqual(mapped, to[i], accuracy: 1e-3, "\(source) → \(target), channel \(i)")
            }
        }
    }

    /// Linear sRGB (Y = 1) of a (temperature, tint) white: Kang et al. 2002's Planckian locus, moved
    /// by tint/3000 along the locus normal in CIE 1960 uv (positive = below the locus, magenta).
    static func linearSRGBWhite(temperature t: Double, tint: Double) -> [Double] {
        func planck(_ t: Double) -> (Double, Double) {
            let x = t <= 4000
                ? -0.2661239e9 / (t * t * t) - 0.2343589e6 / (t * t) + 0.8776956e3 / t + 0.179910
                : -3.0258469e9 / (t * t * t) + 2.1070379e6 / (t * t) + 0.2226347e3 / t + 0.240390
            let y: Double
            if t <= 2222 {
                y = -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
            } else if t <= 4000 {
                y = -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
            } else {
                y = 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
            }
            return (x, y)
        }
        func uv(_ xy: (Double, Double)) -> (Double, Double) {
            let d = -2 * xy.0 + 12 * xy.1 + 3
            return (4 * xy.0 / d, 6 * xy.1 / d)
        }
        // The normal by a central difference along the locus, turned to point up in v (green).
        let (u, v) = uv(planck(t))
        let before = uv(planck(t * (1 - 1e-6))), after = uv(planck(t * (1 + 1e-6)))
        var normal = (-(after.1 - before.1), after.0 - before.0)
        let length = (normal.0 * normal.0 + normal.1 * normal.1).squareRoot()
        normal = (normal.0 / length, normal.1 / length)
        if normal.1 < 0 { normal = (-normal.0, -normal.1) }
        let u2 = u - normal.0 * tint / 3000, v2 = v - normal.1 * tint / 3000
        let x = 3 * u2 / (2 * u2 - 8 * v2 + 4), y = 2 * v2 / (2 * u2 - 8 * v2 + 4)
        let xyz = [x / y, 1, (1 - x - y) / y]
        // XYZ → linear sRGB (D65), IEC 61966-2-1.
        let m: [[Double]] = [[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560],
                             [0.0556434, -0.2040259, 1.0572252]]
        return m.map { row in zip(row, xyz).reduce(0) { $0 + $1.0 * $1.1 } }
    }

    // MARK: - CIToneCurve

    func testToneCurveIsAMonotoneCubicInGammaTwo() throws {
        let points: [(Double, Double)] = [(0, 0), (0.1, 0.02), (0.3, 0.7), (0.6, 0.8), (1, 1)]
        var values: [String: FilterValue] = [:]
        for (i, p) in points.enumerated() { values["inputPoint\(i)"] = .vector([p.0, p.1]) }
        let recipe = try Render.filter("CIToneCurve", values)
        XCTAssertFalse(isColorMatrix(recipe))

        // Fritsch–Carlson: secants; tangents = mean of neighbouring secants (0 where they differ in
        // sign), ends = end secants; then (α, β) scaled back onto the circle of radius 3 if outside.
        let xs: [Double] = points.map(\.0), ys: [Double] = points.map(\.1)
        var delta: [Double] = []
        for k in 0..<4 { delta.append((ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k])) }
        var m: [Double] = [delta[0]]
        for k in 1..<4 { m.append(delta[k - 1] * delta[k] > 0 ? (delta[k - 1] + delta[k]) / 2 : 0) }
        m.append(delta[3])
        for k in 0..<4 {
            let a: Double = m[k] / delta[k], b: Double = m[k + 1] / delta[k]
            if a * a + b * b > 9 {
                let tau: Double = 3 / (a * a + b * b).squareRoot()
                m[k] = tau * a * delta[k]
                m[k + 1] = tau * b * delta[k]
            }
        }
        func curve(_ x: Double) -> Double {
            let k = (0..<4).last { xs[$0] <= x } ?? 0
            let h: Double = xs[k + 1] - xs[k], t: Double = (x - xs[k]) / h
            let h00: Double = 2 * t * t * t - 3 * t * t + 1, h10: Double = t * t * t - 2 * t * t + t
            let h01: Double = -2 * t * t * t + 3 * t * t, h11: Double = t * t * t - t * t
            return h00 * ys[k] + h10 * h * m[k] + h01 * ys[k + 1] + h11 * h * m[k + 1]
        }
        func perceptual(_ v: Double) -> Double { let y = curve(min(max(v, 0), 1).squareRoot()); return y * y }
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        assertPixels(out, image.pixels) { (perceptual($0), perceptual($1), perceptual($2)) }

        // The order the points are given in does not matter.
        var shuffled: [String: FilterValue] = [:]
        for (i, p) in [points[3], points[0], points[4], points[2], points[1]].enumerated() {
            shuffled["inputPoint\(i)"] = .vector([p.0, p.1])
        }
        XCTAssertEqual(try render("CIToneCurve", shuffled), out)
    }

    // MARK: - Fusion

    func testThreeAffineFiltersFuseIntoOneExactMatrix() throws {
        let chain: [(String, [String: FilterValue])] = [
            ("CIHueAdjust", ["inputAngle": .number(0.5)]),
            ("CIColorMatrix", ["inputRVector": .vector([0.8, 0.2, 0, 0]), "inputGVector": .vector([0.1, 0.9, 0, 0]),
                               "inputBVector": .vector([0, 0.1, 0.85, 0]), "inputBiasVector": .vector([0.01, 0, 0.02, 0])]),
            ("CIWhitePointAdjust", ["inputColor": .vector([0.95, 0.85, 0.7])]),
        ]
        var recipe = FilterImage.source("input")
        for (name, values) in chain { recipe = try Render.filter(name, values, over: recipe) }
        let plan = RenderPlan(recipe)
        XCTAssertEqual(plan.steps.count, 1, "one pass")
        guard case .colorMatrix? = plan.steps.first else { return XCTFail("fused into a single colour matrix") }

        let fused = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        assertPixels(fused, image.pixels) { r0, g0, b0 in
            // Hue rotation as a matrix this time: cos θ·I + (1 − cos θ)/3·ones + sin θ/√3·[k]ₓ.
            let c = cos(0.5), s = sin(0.5) / 3.0.squareRoot(), o = (1 - c) / 3
            let r1 = (c + o) * r0 + (o - s) * g0 + (o + s) * b0
            let g1 = (o + s) * r0 + (c + o) * g0 + (o - s) * b0
            let b1 = (o - s) * r0 + (o + s) * g0 + (c + o) * b0
            let r2 = 0.8 * r1 + 0.2 * g1 + 0.01, g2 = 0.1 * r1 + 0.9 * g1, b2 = 0.1 * g1 + 0.85 * b1 + 0.02
            return (r2 * SRGB.toLinear(0.95), g2 * SRGB.toLinear(0.85), b2 * SRGB.toLinear(0.7))
        }
    }
}
