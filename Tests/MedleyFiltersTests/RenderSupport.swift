import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// Runs filters over small in-memory images with the same optimiser and kernels a pipeline run
/// uses, so catalog tests need no files. Expected values in tests come from formulas written in
/// the tests (with the sRGB transfer functions below), never from this code.
enum Render {
    /// A filter created by name with `setDefaults()` and the given values, over `input`.
    static func filter(_ name: String, _ values: [String: FilterValue] = [:],
                       over input: FilterImage = .source("input")) throws -> FilterImage {
        let filter = try XCTUnwrap(Filter(name: name), "no filter \(name)")
        filter.setDefaults()
        for (key, value) in values { try filter.setValue(value, forKey: key) }
        if filter.attributes.parameter("inputImage") != nil { try filter.setValue(.image(input), forKey: "inputImage") }
        return try XCTUnwrap(filter.outputImage, "\(name) has no output")
    }

    /// Renders a recipe over 8-bit interleaved pixels (bands 3 or 4), in linear light unless
    /// `transfer` says otherwise. `fused: false` runs every step of the recipe as its own pass.
    static func pixels(_ image: FilterImage, _ input: [UInt8], width: Int, height: Int, bands: Int = 3,
                       transfer: Transfer = .sRGB) -> [UInt8] {
        var current = input
        for step in RenderPlan(image).steps {
            let kernel = step.kernel(transfer: transfer, imageWidth: width, imageHeight: height)
            var output = [UInt8](repeating: 0, count: current.count)
            current.withUnsafeBytes { src in
                output.withUnsafeMutableBytes { dst in
                    for y in 0..<height {
                        let offset = y * width * bands
                        kernel.apply(row: src.baseAddress! + offset, to: dst.baseAddress! + offset, width: width,
                                     bands: bands, sampleBytes: 1, x: 0, y: y)
                    }
                }
            }
            current = output
        }
        return current
    }

    /// A deterministic test image: every (r, g, b) on a coarse lattice, then a grey ramp.
    static func swatches(bands: Int = 3) -> (pixels: [UInt8], width: Int, height: Int) {
        var pixels: [UInt8] = []
        var count = 0
        for r in stride(from: 0, through: 255, by: 51) {
            for g in stride(from: 0, through: 255, by: 51) {
                for b in stride(from: 0, through: 255, by: 51) {
                    pixels += [UInt8(r), UInt8(g), UInt8(b)] + (bands == 4 ? [UInt8(count * 37 % 256)] : [])
                    count += 1
                }
            }
        }
        for v in stride(from: 0, through: 255, by: 5) {
            pixels += [UInt8(v), UInt8(v), UInt8(v)] + (bands == 4 ? [255] : [])
            count += 1
        }
        while count % 16 != 0 {
            pixels += [128, 64, 32] + (bands == 4 ? [200] : [])
            count += 1
        }
        return (pixels, 16, count / 16)
    }
}

/// The sRGB transfer functions (IEC 61966-2-1), in Double, for expected values.
enum SRGB {
    static func toLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func fromLinear(_ v: Double) -> Double {
        let x = min(max(v, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }
    /// 8-bit stored value → linear.
    static func linear(_ v: UInt8) -> Double { toLinear(Double(v) / 255) }
    /// Linear → 8-bit stored value (unrounded, for comparisons with a tolerance).
    static func stored(_ v: Double) -> Double { fromLinear(v) * 255 }
}

extension XCTestCase {
    /// Checks every pixel of `output` against `expected(r, g, b)` (linear in, linear out) within
    /// `tolerance` 8-bit steps, and that alpha passed through.
    func assertPixels(_ output: [UInt8], _ input: [UInt8], bands: Int = 3, tolerance: Double = 1,
                      file: StaticString = #filePath, line: UInt = #line,
                      _ expected: (Double, Double, Double) -> (Double, Double, Double)) {
        var worst = 0.0
        var worstAt = 0
        for p in stride(from: 0, to: input.count, by: bands) {
            let (r, g, b) = expected(SRGB.linear(input[p]), SRGB.linear(input[p + 1]), SRGB.linear(input[p + 2]))
            for (c, value) in [r, g, b].enumerated() {
                let difference = abs(Double(output[p + c]) - SRGB.stored(value))
                if difference > worst { worst = difference; worstAt = p / bands }
            }
            if bands == 4 { XCTAssertEqual(output[p + 3], input[p + 3], "alpha", file: file, line: line) }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "worst difference at pixel \(worstAt)", file: file, line: line)
    }
}
