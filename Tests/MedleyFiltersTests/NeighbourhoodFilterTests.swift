import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// Neighbourhood and position-dependent filters, run through their kernels on small float
/// blocks; expected values are written out from each filter's stated formula.
final class NeighbourhoodFilterTests: XCTestCase {
    /// Runs a recipe that is one region step over `input`, a float RGB block with the kernel's
    /// margin already around a `width` × `height` centre (the value function gets centre coordinates).
    func region(_ recipe: FilterImage, width: Int, height: Int,
                _ value: @escaping (Int, Int, Int) -> Float) throws -> (output: [Float], input: (Int, Int, Int) -> Float) {
        guard case .region(let kernel, .source) = recipe else {
            XCTFail("expected one region step")
            return ([], value)
        }
        let m = kernel.margin, w = width + 2 * m, h = height + 2 * m
        var input = [Float](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 { input[(y * w + x) * 3 + c] = value(x - m, y - m, c) } } }
        var output = [Float](repeating: .nan, count: width * height * 3)
        input.withUnsafeBufferPointer { src in output.withUnsafeMutableBufferPointer { dst in
            kernel.apply(input: src.baseAddress!, inputStride: w * 3, output: dst.baseAddress!, outputStride: width * 3,
                         width: width, height: height, bands: 3, x: 0, y: 0, imageWidth: width, imageHeight: height)
        } }
        return (output, value)
    }

    /// Exact 1-D Gaussian taps to ±3σ, normalised (as the filters state).
    func gaussian(_ sigma: Double) -> [Double] {
        let r = Int((3 * sigma).rounded(.up))
        let taps = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        return taps.map { $0 / total }
    }

    func testUnsharpMaskOnAStepEdge() throws {
        // A vertical step 0.2 | 0.8: the blurred value at column x is the sum of taps on the bright side.
        let recipe = try Render.filter("CIUnsharpMask", ["inputRadius": .number(2), "inputIntensity": .number(0.7)])
        let (out, input) = try region(recipe, width: 16, height: 4) { x, _, _ in x < 8 ? 0.2 : 0.8 }
        let taps = gaussian(2), r = taps.count / 2
        for x in [5, 7, 8, 10] {
            var blurred = 0.0
            for k in -r...r { blurred += taps[k + r] * Double(input(x + k, 0, 0)) }
            let original = Double(input(x, 0, 0))
            XCTAssertEqual(Double(out[(1 * 16 + x) * 3]), original + 0.7 * (original - blurred), accuracy: 1e-5, "x \(x)")
        }
    }

    func testSharpenLuminanceAddsTheSameDetailToEveryChannel() throws {
        let recipe = try Render.filter("CISharpenLuminance", ["inputSharpness": .number(1), "inputRadius": .number(1.5)])
        let (out, input) = try region(recipe, width: 12, height: 3) { x, _, c in (x < 6 ? 0.3 : 0.6) * [1, 0.8, 0.5][c] }
        let taps = gaussian(1.5), r = taps.count / 2
        let luma = [0.2125, 0.7154, 0.0721]
        for x in [4, 5, 6] {
            var detail = 0.0
            for c in 0..<3 {
                var blurred = 0.0
                for k in -r...r { blurred += taps[k + r] * Double(input(x + k, 0, c)) }
                detail += luma[c] * (Double(input(x, 0, c)) - blurred)
            }
            for c in 0..<3 {
                XCTAssertEqual(Double(out[(12 + x) * 3 + c]), Double(input(x, 0, c)) + detail, accuracy: 1e-5)
            }
        }
    }

    func testNoiseReductionRemovesDetailsBelowTheNoiseLevelAndKeepsEdges() throws {
        // Alternating ±0.01 grain on 0.5 (below the 0.02 noise level) next to a 0.5 → 0.9 edge.
        let recipe = try Render.filter("CINoiseReduction", ["inputNoiseLevel": .number(0.02), "inputSharpness": .number(0)])
        let (out, _) = try region(recipe, width: 30, height: 6) { x, y, _ in
            x < 15 ? 0.5 + ((x + y) % 2 == 0 ? 0.01 : -0.01) : 0.9
        }
        let flatRow = (1 * 30 + 4) * 3
        XCTAssertEqual(out[flatRow], 0.5, accuracy: 0.003, "grain is smoothed away")
        XCTAssertEqual(out[(1 * 30 + 28) * 3], 0.9, accuracy: 1e-4, "flat bright area unchanged")
        XCTAssertGreaterThan(out[(1 * 30 + 15) * 3] - out[(1 * 30 + 14) * 3], 0.25, "the edge stays sharp")
    }

    func testHighlightShadowLiftsShadowsByTheStatedCurve() throws {
        let image = Render.swatches()
        let recipe = try Render.filter("CIHighlightShadowAdjust", ["inputShadowAmount": .number(0.6),
                                                                   "inputHighlightAmount": .number(0.8)])
        assertPixels(Render.pixels(recipe, image.pixels, width: image.width, height: image.height), image.pixels) { r, g, b in
            let m = 0.2125 * r + 0.7154 * g + 0.0721 * b
            let gain = 1 + 0.6 * (1 - m) * (1 - m) - 0.2 * m * m
            return (r * gain, g * gain, b * gain)
        }
    }

    func testVignetteEffectUsesCoreImageCoordinates() throws {
        // A 64×48 grey image, centre (16, 12) from the bottom-left = pixel (16, 36) from the top.
        let width = 64, height = 48
        let grey = [UInt8](repeating: 200, count: width * height * 3)
        let recipe = try Render.filter("CIVignetteEffect", ["inputCenter": .vector([16, 12]), "inputRadius": .number(10),
                                                            "inputIntensity": .number(1), "inputFalloff": .number(0.5)])
        let out = Render.pixels(recipe, grey, width: width, height: height)
        func at(_ x: Int, _ y: Int) -> UInt8 { out[(y * width + x) * 3] }
        XCTAssertEqual(at(16, 35), 200, "inside radius·(1 − falloff) nothing changes")
        XCTAssertEqual(at(60, 5), 0, "beyond the radius: fully dark at intensity 1")
        // Pixel (22, 35): centre (22.5, 12.5 from the bottom) → d = √(6.5² + 0.5²); smoothstep(5, 10, d).
        let d = (6.5 * 6.5 + 0.5 * 0.5).squareRoot(), t = (d - 5) / 5
        let factor = 1 - t * t * (3 - 2 * t)
        XCTAssertEqual(Double(at(22, 35)), SRGB.stored(SRGB.linear(200) * factor), accuracy: 1)
    }
}
