import Foundation
import MedleyKernels
import XCTest

/// The 8-bit colour-matrix path over every one of the 16.7 M RGB inputs, against the matrix and
/// the sRGB formulas (IEC 61966-2-1) evaluated here in Double. For each matrix the sweep counts
/// the outputs that are not the correctly rounded value `round(255 · encode(M · decode(in) + b))`
/// and the largest distance of an output from the unrounded value; a wrong output is only
/// allowed where the exact value lies within `tieBand` of a rounding midpoint, i.e. where the
/// kernel's 16.16 fixed point cannot tell which way it rounds.
final class ColorMatrixSweepTests: XCTestCase {
    static func srgbToLinear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    static func linearToSRGB(_ v: Double) -> Double {
        let x = min(max(v, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }

    /// How far (in 8-bit steps) from a midpoint an exact value may be and still round the other way.
    static let tieBand = 0.1
    /// The largest share of outputs that may miss the correctly rounded value.
    static let maxMisroundedShare = 0.01

    static let sepia = ColorMatrix(rows: [SIMD3(0.3588, 0.7044, 0.1368), SIMD3(0.2990, 0.5870, 0.1140),
                                          SIMD3(0.2392, 0.4696, 0.0912)])
    /// CIColorControls' saturation 1.6 with Rec. 709 luma weights: s·I + (1 − s)·luma.
    static let saturation: ColorMatrix = {
        let s: Float = 1.6, w = SIMD3<Float>(0.2126, 0.7152, 0.0722)
        return ColorMatrix(rows: (0..<3).map { c in
            var row = w * (1 - s)
            row[c] += s
            return row
        })
    }()
    /// Negative coefficients and a bias: sums leave 0…1 on both sides.
    static let mixedSigns = ColorMatrix(rows: [SIMD3(1.3, -0.4, 0.2), SIMD3(-0.6, 1.5, 0.3), SIMD3(0.4, 0.5, -0.7)],
                                        bias: SIMD3(0.05, -0.1, 0.25))

    struct Report {
        var samples = 0
        var misrounded = 0
        var worstFromExact = 0.0
        var worstFromRounded = 0
        var worstMisroundFromTie = 0.0
        var alphaChanged = 0
        var share: Double { Double(misrounded) / Double(max(samples, 1)) }
    }

    /// Runs the kernel on every (r, g, b), one row of 65,536 (g, b) pairs per r, and compares.
    func sweep(_ matrix: ColorMatrix, transfer: Transfer, bands: Int) -> Report {
        let kernel = ColorMatrixKernel(matrix: matrix, transfer: transfer)
        let decode: [Double] = (0..<256).map {
            transfer == .sRGB ? Self.srgbToLinear(Double($0) / 255) : Double($0) / 255
        }
        let encode: (Double) -> Double = transfer == .sRGB ? Self.linearToSRGB : { min(max($0, 0), 1) }
        let m = (0..<3).map { c in (0..<3).map { Double(matrix.rows[c][$0]) } }
        let bias = (0..<3).map { Double(matrix.bias[$0]) }
        var input = [UInt8](repeating: 0, count: 65536 * bands)
        var output = [UInt8](repeating: 0, count: 65536 * bands)
        var report = Report()
        for r in 0..<256 {
            for i in 0..<65536 {
                input[i * bands] = UInt8(r)
                input[i * bands + 1] = UInt8(i >> 8)
                input[i * bands + 2] = UInt8(i & 255)
                if bands == 4 { input[i * bands + 3] = UInt8(truncatingIfNeeded: r &+ 7 &* i) }
            }
            input.withUnsafeBytes { src in
                output.withUnsafeMutableBytes { dst in
                    kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: 65536, bands: bands, sampleBytes: 1)
                }
            }
            let lr = decode[r]
            for i in 0..<65536 {
                let lg = decode[i >> 8], lb = decode[i & 255]
                for c in 0..<3 {
                    let exact = encode(m[c][0] * lr + m[c][1] * lg + m[c][2] * lb + bias[c]) * 255
                    let rounded = Int(exact.rounded())
                    let got = Int(output[i * bands + c])
                    report.samples += 1
                    report.worstFromExact = max(report.worstFromExact, abs(Double(got) - exact))
                    if got != rounded {
                        report.misrounded += 1
                        report.worstFromRounded = max(report.worstFromRounded, abs(got - rounded))
                        let fromTie = abs(exact - (exact.rounded(.down) + 0.5))
                        report.worstMisroundFromTie = max(report.worstMisroundFromTie, fromTie)
                    }
                }
                if bands == 4 && output[i * 4 + 3] != input[i * 4 + 3] { report.alphaChanged += 1 }
            }
        }
        return report
    }

    func check(_ name: String, _ matrix: ColorMatrix, transfer: Transfer = .sRGB, bands: Int = 3) {
        let report = sweep(matrix, transfer: transfer, bands: bands)
        print("\(name), \(bands == 4 ? "RGBA" : "RGB"): \(report.samples) samples, "
              + "\(report.misrounded) not correctly rounded (\(String(format: "%.4f", report.share * 100)) %), "
              + "max |out − exact| = \(String(format: "%.4f", report.worstFromExact)) steps, "
              + "misrounded ones within \(String(format: "%.4f", report.worstMisroundFromTie)) of a midpoint")
        XCTAssertEqual(report.samples, 256 * 65536 * 3)
        XCTAssertLessThanOrEqual(report.worstFromRounded, 1, name)
        XCTAssertLessThan(report.worstFromExact, 0.5 + Self.tieBand, name)
        XCTAssertLessThanOrEqual(report.worstMisroundFromTie, Self.tieBand, name)
        XCTAssertLessThanOrEqual(report.share, Self.maxMisroundedShare, name)
        XCTAssertEqual(report.alphaChanged, 0, "\(name): alpha must pass through exactly")
    }

    func testSepiaAtFullIntensityOverEveryInput() {
        check("sepia 1.0", Self.sepia)
    }

    func testSepiaAtIntensity0_8OverEveryInputRGBA() {
        check("sepia 0.8", ColorMatrix.identity.mixed(with: Self.sepia, amount: 0.8), bands: 4)
    }

    func testSaturationOverEveryInput() {
        check("saturation 1.6", Self.saturation)
    }

    func testNegativeCoefficientsAndBiasOverEveryInputRGBA() {
        check("mixed signs + bias", Self.mixedSigns, bands: 4)
    }

    func testStoredValuesTransferOverEveryInput() {
        check("sepia 0.8, colorSpace none", ColorMatrix.identity.mixed(with: Self.sepia, amount: 0.8), transfer: .none)
    }
}
