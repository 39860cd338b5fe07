import Foundation
import MedleyKernels
import XCTest

/// The kernel against the sRGB formulas (IEC 61966-2-1) evaluated here in Double, not through
/// the kernel's tables.
final class ColorMatrixKernelTests: XCTestCase {
    static func srgbToLinear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    static func linearToSRGB(_ v: Double) -> Double {
        let x = min(max(v, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }

    let sepia: [[Double]] = [[0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912]]
    var sepiaMatrix: ColorMatrix {
        ColorMatrix(rows: sepia.map { SIMD3(Float($0[0]), Float($0[1]), Float($0[2])) })
    }

    /// Every (r, g, b) on a 4-step lattice plus a sweep of greys, so the steep start of the sRGB
    /// curve and saturation at 255 are both covered.
    func testcolours() -> [UInt8] {
        var pixels: [UInt8] = []
        for r in stride(from: 0, through: 255, by: 17) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 17) { pixels += [UInt8(r), UInt8(g), UInt8(b)] }
            }
        }
        for v in 0...255 { pixels += [UInt8(v), UInt8(v), UInt8(v)] }
        return pixels
    }

    func run(_ kernel: ColorMatrixKernel, _ input: [UInt8], bands: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count)
        input.withUnsafeBytes { src in
            output.withUnsafeMutableBytes { dst in
                kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: input.count / bands,
                             bands: bands, sampleBytes: 1)
            }
        }
        return output
    }

    func testSepiaInLinearLightMatchesTheFormulaWithinOneStep() {
        let input = testcolours()
        let output = run(ColorMatrixKernel(matrix: sepiaMatrix, transfer: .sRGB), input, bands: 3)
        var worst = 0.0
        for p in stride(from: 0, to: input.count, by: 3) {
            let linear = (0..<3).map { Self.srgbToLinear(Double(input[p + $0]) / 255) }
            for c in 0..<3 {
                let mixed = sepia[c][0] * linear[0] + sepia[c][1] * linear[1] + sepia[c][2] * linear[2]
                let expected = Self.linearToSRGB(mixed) * 255
                worst = max(worst, abs(Double(output[p + c]) - expected))
            }
        }
        // Rounding to 8 bits is ±0.5; fixed-point tables may add a little more, never a full step.
        XCTAssertLessThanOrEqual(worst, 1.0)
    }

    func testNoneTransferAppliesTheMatrixToStoredValues() {
        let input = testcolours()
        let output = run(ColorMatrixKernel(matrix: sepiaMatrix, transfer: .none), input, bands: 3)
        for p in stride(from: 0, to: input.count, by: 3) {
            let v = (0..<3).map { Double(input[p + $0]) / 255 }
            for c in 0..<3 {
                let expected = min(1, sepia[c][0] * v[0] + sepia[c][1] * v[1] + sepia[c][2] * v[2]) * 255
                XCTAssertEqual(Double(output[p + c]), expected, accuracy: 1.0, "pixel \(p / 3) channel \(c)")
            }
        }
    }

    func testIdentityReturnsEveryValueUnchanged() {
        var input: [UInt8] = []
        for v in 0...255 { input += [UInt8(v), UInt8(255 - v), UInt8(v / 2)] }
        XCTAssertEqual(run(ColorMatrixKernel(matrix: .identity, transfer: .sRGB), input, bands: 3), input)
    }

    func testAlphaPassesThroughAndColourIsStillFiltered() {
        let input: [UInt8] = [200, 100, 50, 0, 200, 100, 50, 128, 200, 100, 50, 255]
        let output = run(ColorMatrixKernel(matrix: sepiaMatrix, transfer: .sRGB), input, bands: 4)
        XCTAssertEqual([output[3], output[7], output[11]], [0, 128, 255])
        XCTAssertEqual(Array(output[0..<3]), Array(output[4..<7]))
        XCTAssertNotEqual(Array(output[0..<3]), [200, 100, 50])
    }

    func testSixteenBitRowsMatchTheFormula() {
        let input: [UInt16] = [0, 1000, 65535, 30000, 20000, 10000, 65535, 65535, 65535, 12, 300, 7000]
        var output = [UInt16](repeating: 0, count: input.count)
        let kernel = ColorMatrixKernel(matrix: sepiaMatrix, transfer: .sRGB)
        input.withUnsafeBytes { src in
            output.withUnsafeMutableBytes { dst in
                kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: 4, bands: 3, sampleBytes: 2)
            }
        }
        for p in stride(from: 0, to: input.count, by: 3) {
            let linear = (0..<3).map { Self.srgbToLinear(Double(input[p + $0]) / 65535) }
            for c in 0..<3 {
                let mixed = sepia[c][0] * linear[0] + sepia[c][1] * linear[1] + sepia[c][2] * linear[2]
                // Float maths on 16-bit data: within 2 of 65535 steps.
                XCTAssertEqual(Double(output[p + c]), Self.linearToSRGB(mixed) * 65535, accuracy: 2)
            }
        }
    }

    func testMatrixCompositionEqualsApplyingBothInTurn() {
        let a = ColorMatrix(rows: [SIMD3(0.5, 0.2, 0.1), SIMD3(0, 1, 0.3), SIMD3(0.2, 0.2, 0.2)], bias: SIMD3(0.1, 0, -0.1))
        let b = sepiaMatrix
        let colour = SIMD3<Float>(0.3, 0.6, 0.9)
        let both = b.after(a).apply(colour)
        let inTurn = b.apply(a.apply(colour))
        for i in 0..<3 { XCTAssertEqual(both[i], inTurn[i], accuracy: 1e-6) }
    }

    /// Coefficients past Float's range (a pipeline's `inputEV: 200` is 2²⁰⁰) saturate instead of trapping when
    /// the fixed-point tables are built: R = ∞·r + 10³⁸·g is white unless r = g = 0 (∞·0 counts as 0); the
    /// identity rows pass G and B unchanged.
    func testCoefficientsBeyondFloatSaturate() {
        let matrix = ColorMatrix(rows: [SIMD3(.infinity, 1e38, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])
        let input = testcolours()
        let output = run(ColorMatrixKernel(matrix: matrix, transfer: .sRGB), input, bands: 3)
        for i in stride(from: 0, to: input.count, by: 3) {
            XCTAssertEqual(output[i], input[i] > 0 || input[i + 1] > 0 ? 255 : 0, "pixel \(i / 3)")
            XCTAssertEqual(output[i + 1], input[i + 1])
            XCTAssertEqual(output[i + 2], input[i + 2])
        }
    }

    /// NaN from filter maths (∞ − ∞) is stored as 0 rather than reaching a conversion that traps.
    func testTransferEncodesNaNAsZero() {
        XCTAssertEqual(Transfer.sRGB.encode(.nan), 0)
        XCTAssertEqual(Transfer.none.encode(.nan), 0)
        XCTAssertEqual(Transfer.sRGB.encode(.infinity), 1, accuracy: 1e-6)
        XCTAssertEqual(Transfer.sRGB.encode(-.infinity), 0)
    }
}
