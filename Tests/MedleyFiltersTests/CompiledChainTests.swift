import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// Chains of colour matrices and channel-wise curves, which the optimiser compiles into tables
/// (`CompiledChainKernel`), against the filters' documented maths written here in Double: sRGB
/// decode, each filter's formula, sRGB encode. Every 8-bit grey and a dense deterministic sample of
/// 2²⁰ RGB inputs spread over the whole cube; the bound is one 8-bit step (before the output's own
/// rounding, as `assertPixels` measures it: |out − 255·encode(exact)| ≤ 1).
final class CompiledChainTests: XCTestCase {
    /// Every grey, then 2²⁰ points of the 2²⁴ cube: n·k mod 2²⁴ for an odd k visits distinct colours.
    static let sample: (pixels: [UInt8], width: Int, height: Int) = {
        var pixels: [UInt8] = []
        pixels.reserveCapacity((256 + (1 << 20)) * 3)
        for v in 0..<256 { pixels += [UInt8(v), UInt8(v), UInt8(v)] }
        for n in 0..<(1 << 20) {
            let colour = (n &* 0x9E_3779 &+ 0x1234) & 0xFF_FFFF
            pixels += [UInt8(colour >> 16), UInt8((colour >> 8) & 255), UInt8(colour & 255)]
        }
        let width = 1024
        let count = pixels.count / 3
        let height = (count + width - 1) / width
        while pixels.count < width * height * 3 { pixels += [128, 64, 32] }
        return (pixels, width, height)
    }()

    private func chain(_ filters: [(String, [String: FilterValue])]) throws -> FilterImage {
        var image = FilterImage.source("input")
        for (name, values) in filters { image = try Render.filter(name, values, over: image) }
        return image
    }

    /// The one pass of the chain's plan runs as a compiled kernel over sRGB 8-bit rows.
    private func assertCompiled(_ image: FilterImage, file: StaticString = #filePath, line: UInt = #line) {
        let steps = RenderPlan(image).steps
        XCTAssertEqual(steps.count, 1, "one pass", file: file, line: line)
        guard let step = steps.first else { return }
        let kernel = step.kernel(transfer: .sRGB, imageWidth: 64, imageHeight: 64)
        XCTAssertTrue(kernel is CompiledChainKernel, "compiled into tables, not \(type(of: kernel))", file: file, line: line)
    }

    /// `compiled`: whether the chain must run as tables (chains with a curve after a matrix keep the
    /// float path for now, see CompiledChainKernel.compile; their output is checked all the same).
    private func assertChain(_ image: FilterImage, bands: Int = 3, compiled: Bool = true,
                             file: StaticString = #filePath, line: UInt = #line,
                             _ expected: (Double, Double, Double) -> (Double, Double, Double)) {
        if compiled { assertCompiled(image, file: file, line: line) }
        var input = Self.sample.pixels
        if bands == 4 {
            input = []
            for (i, v) in Self.sample.pixels.enumerated() {
                input.append(v)
                if i % 3 == 2 { input.append(UInt8((i / 3) * 37 % 256)) }
            }
        }
        let output = Render.pixels(image, input, width: Self.sample.width, height: Self.sample.height, bands: bands)
        assertPixels(output, input, bands: bands, tolerance: 1, file: file, line: line, expected)
    }

    // MARK: - The formulas (Double)

    static func gamma(_ v: Double, _ power: Double) -> Double { v > 0 ? pow(v, power) : 0 }
    static func exposure(_ v: (Double, Double, Double), _ ev: Double) -> (Double, Double, Double) {
        let gain = pow(2, ev)
        return (v.0 * gain, v.1 * gain, v.2 * gain)
    }
    /// CIColorControls: mix with Rec. 709 luma, + brightness, contrast around 0.5.
    static func controls(_ v: (Double, Double, Double), saturation s: Double, brightness: Double,
                         contrast c: Double) -> (Double, Double, Double) {
        let luma = 0.2125 * v.0 + 0.7154 * v.1 + 0.0721 * v.2
        func one(_ x: Double) -> Double { ((luma + s * (x - luma)) + brightness - 0.5) * c + 0.5 }
        return (one(v.0), one(v.1), one(v.2))
    }
    /// CISepiaTone: mix(in, M·in, intensity) with the GPUImage matrix.
    static func sepia(_ v: (Double, Double, Double), _ intensity: Double) -> (Double, Double, Double) {
        let r = 0.3588 * v.0 + 0.7044 * v.1 + 0.1368 * v.2
        let g = 0.2990 * v.0 + 0.5870 * v.1 + 0.1140 * v.2
        let b = 0.2392 * v.0 + 0.4696 * v.1 + 0.0912 * v.2
        return (v.0 + (r - v.0) * intensity, v.1 + (g - v.1) * intensity, v.2 + (b - v.2) * intensity)
    }
    static func matrix(_ v: (Double, Double, Double), _ m: [[Double]], _ bias: [Double]) -> (Double, Double, Double) {
        (m[0][0] * v.0 + m[0][1] * v.1 + m[0][2] * v.2 + bias[0],
         m[1][0] * v.0 + m[1][1] * v.1 + m[1][2] * v.2 + bias[1],
         m[2][0] * v.0 + m[2][1] * v.1 + m[2][2] * v.2 + bias[2])
    }

    static let mixing: [[Double]] = [[0.9, 0.1, 0.05], [0.05, 0.85, 0.1], [0.1, 0.05, 0.8]]
    static let mixingBias: [Double] = [0.02, -0.01, 0.03]
    static var mixingValues: [String: FilterValue] {
        ["inputRVector": .vector(mixing[0] + [0]), "inputGVector": .vector(mixing[1] + [0]),
         "inputBVector": .vector(mixing[2] + [0]), "inputBiasVector": .vector(mixingBias + [0])]
    }

    // MARK: - Chains

    func testFiveFilterChainStaysWithinOneStepOfTheExactMaths() throws {
        let image = try chain([
            ("CIExposureAdjust", ["inputEV": .number(0.5)]),
            ("CIColorControls", ["inputSaturation": .number(1.2), "inputBrightness": .number(0.02),
                                 "inputContrast": .number(1.1)]),
            ("CISepiaTone", ["inputIntensity": .number(0.8)]),
            ("CIGammaAdjust", ["inputPower": .number(0.8)]),
            ("CIColorMatrix", Self.mixingValues),
        ])
        for bands in [3, 4] {
            assertChain(image, bands: bands) { r, g, b in
                var v = Self.exposure((r, g, b), 0.5)
                v = Self.controls(v, saturation: 1.2, brightness: 0.02, contrast: 1.1)
                v = Self.sepia(v, 0.8)
                v = (Self.gamma(v.0, 0.8), Self.gamma(v.1, 0.8), Self.gamma(v.2, 0.8))
                return Self.matrix(v, Self.mixing, Self.mixingBias)
            }
        }
    }

    /// Curves before the first matrix fold into the exact input table: gamma, exposure, sepia, matrix.
    func testCurvesThenMatricesAreOneTable() throws {
        let image = try chain([
            ("CIGammaAdjust", ["inputPower": .number(0.7)]),
            ("CIExposureAdjust", ["inputEV": .number(0.4)]),
            ("CISepiaTone", ["inputIntensity": .number(0.6)]),
            ("CIColorMatrix", Self.mixingValues),
        ])
        for bands in [3, 4] {
            assertChain(image, bands: bands) { r, g, b in
                var v = (Self.gamma(r, 0.7), Self.gamma(g, 0.7), Self.gamma(b, 0.7))
                v = Self.exposure(v, 0.4)
                v = Self.sepia(v, 0.6)
                return Self.matrix(v, Self.mixing, Self.mixingBias)
            }
        }
    }

    func testGammaAloneIsOneTable() throws {
        let image = try chain([("CIGammaAdjust", ["inputPower": .number(1.7)])])
        assertChain(image) { r, g, b in (Self.gamma(r, 1.7), Self.gamma(g, 1.7), Self.gamma(b, 1.7)) }
    }

    /// Exposure +1.5 EV takes most values past 1 before the gamma; contrast 1.6 with a negative
    /// brightness takes shadows below 0 (where the gamma gives 0); the matrix brings values back.
    func testValuesOutsideZeroToOneMidChainAreCarried() throws {
        let image = try chain([
            ("CIExposureAdjust", ["inputEV": .number(1.5)]),
            ("CIColorControls", ["inputBrightness": .number(-0.3), "inputContrast": .number(1.6)]),
            ("CIGammaAdjust", ["inputPower": .number(0.6)]),
            ("CIColorMatrix", ["inputRVector": .vector([0.4, 0, 0, 0]), "inputGVector": .vector([0, 0.3, 0.1, 0]),
                               "inputBVector": .vector([0.1, 0.1, 0.25, 0])]),
            ("CIGammaAdjust", ["inputPower": .number(1.3)]),
        ])
        assertChain(image) { r, g, b in
            var v = Self.exposure((r, g, b), 1.5)
            v = Self.controls(v, saturation: 1, brightness: -0.3, contrast: 1.6)
            v = (Self.gamma(v.0, 0.6), Self.gamma(v.1, 0.6), Self.gamma(v.2, 0.6))
            v = Self.matrix(v, [[0.4, 0, 0], [0, 0.3, 0.1], [0.1, 0.1, 0.25]], [0, 0, 0])
            return (Self.gamma(v.0, 1.3), Self.gamma(v.1, 1.3), Self.gamma(v.2, 1.3))
        }
    }

    /// Posterize is a step function, so it runs in float after the tables ("the tail"); Core
    /// Image's steps on the sRGB-encoded values: n = floor(levels − 1), floor(c·n + 0.5)/n. A value
    /// the tables move across a level boundary jumps a whole level, so the check before compiling
    /// may refuse such a chain (the float path then runs it): the output must be right either way.
    func testExposureGammaMatrixPosterize() throws {
        let image = try chain([
            ("CIExposureAdjust", ["inputEV": .number(-0.4)]),
            ("CIGammaAdjust", ["inputPower": .number(1.25)]),
            ("CIColorMatrix", Self.mixingValues),
            ("CIColorPosterize", ["inputLevels": .number(8)]),
        ])
        let output = Render.pixels(image, Self.sample.pixels, width: Self.sample.width, height: Self.sample.height)
        var mismatches = 0
        var total = 0
        for p in stride(from: 0, to: Self.sample.pixels.count, by: 3) {
            let input = Self.sample.pixels
            var v = Self.exposure((SRGB.linear(input[p]), SRGB.linear(input[p + 1]), SRGB.linear(input[p + 2])), -0.4)
            v = (Self.gamma(v.0, 1.25), Self.gamma(v.1, 1.25), Self.gamma(v.2, 1.25))
            v = Self.matrix(v, Self.mixing, Self.mixingBias)
            for (c, value) in [v.0, v.1, v.2].enumerated() {
                // The level the exact value falls on, in stored 8-bit units.
                let encoded = SRGB.fromLinear(value)
                let level = (encoded * 7 + 0.5).rounded(.down) / 7
                let expected = (level * 255).rounded()
                let distance = abs(Double(output[p + c]) - expected)
                // Within a step of the level; a value within 1e-3 of a level boundary may round either way.
                let boundary = abs((encoded * 7 + 0.5) - (encoded * 7 + 0.5).rounded()) < 7e-3
                if distance > 1 && !boundary { mismatches += 1 }
                total += 1
            }
        }
        XCTAssertEqual(mismatches, 0, "of \(total) samples")
    }

    /// CIToneCurve through collinear points is the line f(u) = 0.8·u in its gamma-2 space, so
    /// out = (0.8·√clamp(in))² = 0.64·clamp(in, 0, 1): the clamp bites after the exposure.
    func testToneCurveClampsValuesPushedPastOne() throws {
        let points: [String: FilterValue] = [
            "inputPoint0": .vector([0, 0]), "inputPoint1": .vector([0.25, 0.2]), "inputPoint2": .vector([0.5, 0.4]),
            "inputPoint3": .vector([0.75, 0.6]), "inputPoint4": .vector([1, 0.8]),
        ]
        let image = try chain([
            ("CIExposureAdjust", ["inputEV": .number(1)]),
            ("CIToneCurve", points),
            ("CISepiaTone", ["inputIntensity": .number(0.5)]),
        ])
        assertChain(image) { r, g, b in
            let v = Self.exposure((r, g, b), 1)
            func curve(_ x: Double) -> Double { 0.64 * min(max(x, 0), 1) }
            return Self.sepia((curve(v.0), curve(v.1), curve(v.2)), 0.5)
        }
    }

    /// A chain the tables cannot follow within a step falls back to the float path: a gamma of
    /// 0.05 after a matrix is too steep near black for a grid over the matrix's range.
    func testTooSteepACurveKeepsTheFloatPath() throws {
        let image = try chain([
            ("CISepiaTone", ["inputIntensity": .number(1)]),
            ("CIGammaAdjust", ["inputPower": .number(0.05)]),
            ("CIColorMatrix", Self.mixingValues),
        ])
        let steps = RenderPlan(image).steps
        XCTAssertEqual(steps.count, 1)
        let kernel = try XCTUnwrap(steps.first).kernel(transfer: .sRGB, imageWidth: 64, imageHeight: 64)
        XCTAssertTrue(kernel is PointChainKernel, "not \(type(of: kernel))")
    }

    /// Ten filters, values in and out of range, colorSpace none (stored values as they are).
    func testTenFilterChainWithoutTransfer() throws {
        let filters: [(String, [String: FilterValue])] = [
            ("CIExposureAdjust", ["inputEV": .number(0.3)]),
            ("CIGammaAdjust", ["inputPower": .number(1.2)]),
            ("CIColorControls", ["inputSaturation": .number(0.9), "inputContrast": .number(1.2)]),
            ("CIGammaAdjust", ["inputPower": .number(0.9)]),
            ("CISepiaTone", ["inputIntensity": .number(0.3)]),
            ("CIGammaAdjust", ["inputPower": .number(1.1)]),
            ("CIColorMatrix", Self.mixingValues),
            ("CIExposureAdjust", ["inputEV": .number(-0.2)]),
            ("CIGammaAdjust", ["inputPower": .number(0.95)]),
            ("CIColorControls", ["inputBrightness": .number(0.03)]),
        ]
        let image = try chain(filters)
        let steps = RenderPlan(image).steps
        XCTAssertEqual(steps.count, 1)
        let output = Render.pixels(image, Self.sample.pixels, width: Self.sample.width, height: Self.sample.height,
                                   transfer: .none)
        var worst = 0.0
        let input = Self.sample.pixels
        for p in stride(from: 0, to: input.count, by: 3) {
            var v = (Double(input[p]) / 255, Double(input[p + 1]) / 255, Double(input[p + 2]) / 255)
            v = Self.exposure(v, 0.3)
            v = (Self.gamma(v.0, 1.2), Self.gamma(v.1, 1.2), Self.gamma(v.2, 1.2))
            v = Self.controls(v, saturation: 0.9, brightness: 0, contrast: 1.2)
            v = (Self.gamma(v.0, 0.9), Self.gamma(v.1, 0.9), Self.gamma(v.2, 0.9))
            v = Self.sepia(v, 0.3)
            v = (Self.gamma(v.0, 1.1), Self.gamma(v.1, 1.1), Self.gamma(v.2, 1.1))
            v = Self.matrix(v, Self.mixing, Self.mixingBias)
            v = Self.exposure(v, -0.2)
            v = (Self.gamma(v.0, 0.95), Self.gamma(v.1, 0.95), Self.gamma(v.2, 0.95))
            v = Self.controls(v, saturation: 1, brightness: 0.03, contrast: 1)
            for (c, value) in [v.0, v.1, v.2].enumerated() {
                worst = max(worst, abs(Double(output[p + c]) - min(max(value, 0), 1) * 255))
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }
}
