import Foundation
@testable import MedleyKernels
import XCTest

/// CompiledChainKernel's planar row loop against a straightforward per-pixel evaluation of the same
/// tables written here: each value's cell from its exponent and mantissa (Float's own accessors, not
/// bit masks), the channel's curve entry, the matrix as scalar Float maths in the order the former
/// SIMD4 loop used, then clampedToUnit · 65536 into the encode table. The loop must give the same
/// bytes, not just close ones, over more than 2²⁰ pixels of each chain.
final class CompiledChainPlanarTests: XCTestCase {
    struct Gamma: PointOperation {
        let power: Float
        var isChannelwise: Bool { true }
        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = VectorMath.pow(r, power); g = VectorMath.pow(g, power); b = VectorMath.pow(b, power)
            }
        }
    }

    /// Not channel-wise (mixes channels and depends on x): ends the compiled run, so it is the tail.
    struct Mix: PointOperation {
        func apply(_ block: PixelBlock) {
            for i in 0..<block.count {
                let r = block.red[i], g = block.green[i]
                block.red[i] = r * 0.7 + g * g * 0.3
                block.green[i] = g + Float((block.x + i) % 7) * 0.01
                block.alpha[i] *= 0.9
            }
        }
    }

    static let sepia = ColorMatrix(rows: [SIMD3(0.3588, 0.7044, 0.1368), SIMD3(0.2990, 0.5870, 0.1140),
                                          SIMD3(0.2392, 0.4696, 0.0912)])
    static let front = ColorMatrix.identity.mixed(with: sepia, amount: 0.8)
        .after(ColorMatrix(rows: [SIMD3(1.1, 0, 0), SIMD3(0, 1.1, 0), SIMD3(0, 0, 1.1)], bias: SIMD3(repeating: -0.03)))
        .after(ColorMatrix(rows: [SIMD3(1.41, 0, 0), SIMD3(0, 1.41, 0), SIMD3(0, 0, 1.41)]))
    static let mixing = ColorMatrix(rows: [SIMD3(0.9, 0.1, 0.05), SIMD3(0.05, 0.85, 0.1), SIMD3(0.1, 0.05, 0.8)],
                                    bias: SIMD3(0.02, -0.01, 0.03))
    static let five: [PointOperation] = [ColorMatrixOperation(front), Gamma(power: 0.8), ColorMatrixOperation(mixing)]
    static let ten: [PointOperation] = (0..<5).flatMap { i -> [PointOperation] in
        [ColorMatrixOperation(i == 0 ? front : mixing), Gamma(power: i % 2 == 0 ? 0.9 : 1.1)]
    }
    /// Stage values well outside 0…1 (down to about −0.9, up to about 2.6) between the matrices.
    static let outside: [PointOperation] = [
        ColorMatrixOperation(ColorMatrix(rows: [SIMD3(2.5, 0.3, -0.2), SIMD3(-0.4, 2.2, 0.1), SIMD3(0.2, -0.3, 2.4)],
                                         bias: SIMD3(-0.7, -0.5, -0.6))),
        Gamma(power: 1.3),
        ColorMatrixOperation(ColorMatrix(rows: [SIMD3(0.4, 0.1, 0), SIMD3(0, 0.35, 0.1), SIMD3(0.1, 0, 0.4)],
                                         bias: SIMD3(0.3, 0.35, 0.3))),
        Gamma(power: 0.7),
        ColorMatrixOperation(mixing),
    ]

    // MARK: - The reference

    /// The cell of `value` on `grid`, from the definition: magnitudes below 2^lowestExponent in the
    /// first cell; otherwise (octave above the lowest) · 2^mantissaBits + the first mantissaBits of
    /// the mantissa, at most the last cell (NaN and ∞ too); negative values after the positive cells.
    static func cell(of value: Float, _ grid: CompiledChainKernel.CellGrid) -> Int {
        let perSign = Int(grid.cellsPerSign)
        let bits = Int(CompiledChainKernel.CellGrid.mantissaBits)
        let magnitude = value.magnitude
        var cell: Int
        if !magnitude.isFinite {
            cell = perSign - 1
        } else if magnitude < Float(sign: .plus, exponent: CompiledChainKernel.CellGrid.lowestExponent, significand: 1) {
            cell = 0
        } else {
            let octave = Int(magnitude.exponent) - CompiledChainKernel.CellGrid.lowestExponent
            let fraction = Int(magnitude.significandBitPattern) >> (23 - bits)
            cell = min(octave * (1 << bits) + fraction, perSign - 1)
        }
        if value.sign == .minus && grid.hasNegatives { cell += perSign }
        return cell
    }

    /// The row as the kernel's tables say it should come out, pixel by pixel.
    static func reference(_ kernel: CompiledChainKernel, _ src: [UInt8], width: Int, bands: Int, y: Int) -> [UInt8] {
        let t = kernel.input
        let encode = TransferTables.of(.sRGB).encode8
        var red = [Float](repeating: 0, count: width), green = red, blue = red
        for i in 0..<width {
            let v = (0..<3).map { Int(src[i * bands + $0]) }
            var value = (0..<3).map { c in (t[(c * 3) * 256 + v[0]] + t[(c * 3 + 1) * 256 + v[1]]) + t[(c * 3 + 2) * 256 + v[2]] }
            for stage in kernel.stages {
                let cells = stage.grid.cells
                let curved = (0..<3).map { k in stage.curves[k * cells + cell(of: value[k], stage.grid)] }
                let (c0, c1, c2) = stage.columns
                value = (0..<3).map { c in ((c0[c] * curved[0] + c1[c] * curved[1]) + c2[c] * curved[2]) + stage.bias[c] }
            }
            (red[i], green[i], blue[i]) = (value[0], value[1], value[2])
        }
        var alpha = (0..<width).map { bands == 4 ? Float(src[$0 * 4 + 3]) * (1 / 255) : 1 }
        if !kernel.tail.isEmpty {
            red.withUnsafeMutableBufferPointer { r in
                green.withUnsafeMutableBufferPointer { g in
                    blue.withUnsafeMutableBufferPointer { b in
                        alpha.withUnsafeMutableBufferPointer { a in
                            let block = PixelBlock(red: r.baseAddress!, green: g.baseAddress!, blue: b.baseAddress!,
                                                   alpha: a.baseAddress!, count: width, x: 0, y: y,
                                                   imageWidth: width, imageHeight: 1)
                            for operation in kernel.tail { operation.apply(block) }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: width * bands)
        for i in 0..<width {
            for (c, plane) in [red, green, blue].enumerated() { out[i * bands + c] = encode[Int(plane[i].clampedToUnit * 65536)] }
            if bands == 4 {
                out[i * 4 + 3] = kernel.tail.isEmpty ? src[i * 4 + 3] : UInt8(alpha[i].clampedToUnit * 255 + 0.5)
            }
        }
        return out
    }

    // MARK: - The comparison

    /// Makes `rows` rows of `width` pseudo-random pixels (xorshift from `seed`), runs each through
    /// `kernel` and hands row number, input and output to `body`.
    static func forEachRow(_ kernel: CompiledChainKernel, bands: Int, width: Int, rows: Int, seed: UInt64,
                           _ body: (_ y: Int, _ src: [UInt8], _ dst: [UInt8]) -> Void) {
        var state = seed
        var src = [UInt8](repeating: 0, count: width * bands), dst = src
        for y in 0..<rows {
            for i in 0..<src.count {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                src[i] = UInt8(truncatingIfNeeded: state >> 24)
            }
            src.withUnsafeBytes { s in
                dst.withUnsafeMutableBytes { d in
                    kernel.apply(row: s.baseAddress!, to: d.baseAddress!, width: width, bands: bands,
                                 inputBytes: 1, outputBytes: 1, x: 0, y: y)
                }
            }
            body(y, src, dst)
        }
    }

    /// `rows` rows of `width` pseudo-random pixels (xorshift, fixed seed), every row through the kernel
    /// and through the reference; counts the differing bytes.
    private func assertIdentical(_ operations: [PointOperation], bands: Int = 3, width: Int, rows: Int,
                                 file: StaticString = #filePath, line: UInt = #line) {
        guard let kernel = CompiledChainKernel.compile(operations, transfer: .sRGB, imageWidth: width, imageHeight: rows)
        else { return XCTFail("the chain compiles", file: file, line: line) }
        XCTAssertFalse(kernel.stages.isEmpty, "runs the stage loop, not the single-matrix path", file: file, line: line)
        var differing = 0, first: String?
        Self.forEachRow(kernel, bands: bands, width: width, rows: rows, seed: 0x9E37_79B9_7F4A_7C15) { y, src, dst in
            let expected = Self.reference(kernel, src, width: width, bands: bands, y: y)
            for i in 0..<dst.count where dst[i] != expected[i] {
                differing += 1
                if first == nil { first = "row \(y) byte \(i): \(dst[i]), expected \(expected[i])" }
            }
        }
        XCTAssertEqual(differing, 0, "bytes that differ from the reference; first: \(first ?? "-")", file: file, line: line)
    }

    // MARK: - The tables against the chain itself

    /// The chain as plain Double maths, from the definitions alone — the sRGB transfer of
    /// IEC 61966-2-1, each matrix's rows and bias, `Gamma` as this file defines it (0 at and below 0)
    /// — and none of the kernel's tables: what the compiled tables must reproduce within one 8-bit
    /// step (the compiler's promise; its sampling, cells and encode may each cost a little).
    static func exact(_ operations: [PointOperation], _ pixel: [UInt8]) -> [Int] {
        func decode(_ v: UInt8) -> Double {
            let x = Double(v) / 255
            return x <= 0.04045 ? x / 12.92 : Foundation.pow((x + 0.055) / 1.055, 2.4)
        }
        func encode(_ x: Double) -> Int {
            let c = min(max(x, 0), 1)
            let e = c <= 0.0031308 ? 12.92 * c : 1.055 * Foundation.pow(c, 1 / 2.4) - 0.055
            return Int((e * 255).rounded())
        }
        var value = pixel.prefix(3).map(decode)
        for operation in operations {
            if let matrix = operation as? ColorMatrixOperation {
                let rows = matrix.matrix.rows.map { [Double($0.x), Double($0.y), Double($0.z)] }
                let bias = [Double(matrix.matrix.bias.x), Double(matrix.matrix.bias.y), Double(matrix.matrix.bias.z)]
                value = (0..<3).map { c in rows[c][0] * value[0] + rows[c][1] * value[1] + rows[c][2] * value[2] + bias[c] }
            } else if let gamma = operation as? Gamma {
                value = value.map { $0 > 0 ? Foundation.pow($0, Double(gamma.power)) : 0 }
            }
        }
        return value.map(encode)
    }

    /// Every byte the compiled kernel writes for `rows` pseudo-random rows is within one step of
    /// `exact`; returns the largest difference seen.
    @discardableResult
    private func assertWithinOneStep(_ operations: [PointOperation], width: Int, rows: Int,
                                     file: StaticString = #filePath, line: UInt = #line) -> Int {
        guard let kernel = CompiledChainKernel.compile(operations, transfer: .sRGB, imageWidth: width, imageHeight: rows)
        else { XCTFail("the chain compiles", file: file, line: line); return -1 }
        XCTAssertFalse(kernel.stages.isEmpty, "runs the stage loop", file: file, line: line)
        var largest = 0, first: String?
        Self.forEachRow(kernel, bands: 3, width: width, rows: rows, seed: 0x2545_F491_4F6C_DD1D) { y, src, dst in
            for i in 0..<width {
                let expected = Self.exact(operations, Array(src[i * 3..<i * 3 + 3]))
                for c in 0..<3 {
                    let difference = abs(Int(dst[i * 3 + c]) - expected[c])
                    if difference > largest {
                        largest = difference
                        first = "row \(y) pixel \(i) channel \(c): \(dst[i * 3 + c]), exactly \(expected[c])"
                    }
                }
            }
        }
        XCTAssertLessThanOrEqual(largest, 1, "largest difference from the chain in Double: \(first ?? "-")", file: file, line: line)
        return largest
    }

    func testCompiledTablesStayWithinOneStepOfTheChainInDouble() {
        assertWithinOneStep(Self.five, width: 509, rows: 300)
        assertWithinOneStep(Self.ten, width: 509, rows: 300)
        assertWithinOneStep(Self.outside, width: 509, rows: 300)
    }

    func testFiveFilterChainMatchesTheReferenceByteForByte() {
        assertIdentical(Self.five, width: 1021, rows: 1030)
    }

    func testTenFilterChainMatchesTheReferenceByteForByte() {
        assertIdentical(Self.ten, width: 4093, rows: 257)
    }

    func testValuesOutsideUnitMidChainMatchTheReference() {
        assertIdentical(Self.outside, width: 777, rows: 1350)
    }

    func testRGBAKeepsAlphaAndMatchesTheReference() {
        assertIdentical(Self.five, bands: 4, width: 300, rows: 3500)
    }

    func testTailMatchesTheReference() {
        assertIdentical(Self.five + [Mix()], width: 1021, rows: 1030)
        assertIdentical(Self.ten + [Mix()], bands: 4, width: 259, rows: 2030)
    }

    /// Short rows: a block shorter than a vector, and one pixel.
    func testShortRowsMatchTheReference() {
        assertIdentical(Self.five, width: 5, rows: 3000)
        assertIdentical(Self.outside, bands: 4, width: 1, rows: 3000)
    }

    /// The exact-integer truncation the encode uses is ⌊x⌋ over every float of 0…65536 it can meet
    /// (all of them near the integers, where rounding up would show, and a dense sweep).
    func testTruncationIsFloor() {
        var wrong = 0
        for n in 0...65536 {
            let x = Float(n)
            for v in [x, x.nextUp, x.nextDown, x + 0.5, (x + 0.5).nextDown, (x + 0.5).nextUp] where v >= 0 && v <= 65536 {
                if CompiledChainKernel.truncated(v) != UInt32(v.rounded(.down)) { wrong += 1 }
            }
        }
        var v: Float = 0
        while v <= 65536 {
            if CompiledChainKernel.truncated(v) != UInt32(v.rounded(.down)) { wrong += 1 }
            v += 0.013
        }
        XCTAssertEqual(wrong, 0)
    }
}
