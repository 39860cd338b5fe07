import Foundation
import XCTest

/// Issue 16's convolution, rank, morphology and blur filters through `medley run` on the landscape
/// fixture, against the vips command line (`vips conv` with matrix files written here, `vips rank`)
/// and formulas written here. vips extends edges by copying for conv and rank, as Medley does.
final class NeighbourhoodRunTests: EndToEndCase {
    private var runs = 0

    /// Runs one job of `filters` over the landscape (as a PNG written by vips, so every tool reads the
    /// same stored samples) and returns Medley's output samples.
    func run(_ filters: String, colorSpace: String? = nil) throws -> (width: Int, height: Int, samples: [Int]) {
        runs += 1
        let folder = work + "/out-\(runs)"
        let space = colorSpace.map { "    colorSpace: \($0)" } ?? ""
        let path = try pipeline("""
            version: 1
            jobs:
              - name: n
                ingest: { from: [\(try landscapePNG())] }
            \(space)
                filters:
            \(filters)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try Tool.pixels(folder + "/landscape.png")
    }

    func landscapePNG() throws -> String {
        let path = work + "/landscape.png"
        if !FileManager.default.fileExists(atPath: path) { try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path]) }
        return path
    }

    /// A vips matrix file: "columns rows scale offset" then the rows, top first.
    func matrix(_ weights: [Double], columns: Int, rows: Int, scale: Double = 1) throws -> String {
        runs += 1
        var text = "\(columns) \(rows) \(scale) 0\n"
        for r in 0..<rows { text += weights[(r * columns)..<((r + 1) * columns)].map { "\($0)" }.joined(separator: " ") + "\n" }
        let path = work + "/matrix-\(runs).mat"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `vips conv` (float precision) of the landscape's stored values, or of its linear light (vips'
    /// sRGB → scRGB) encoded back to 8-bit sRGB by the formula in Support.swift.
    func vipsConv(_ matrix: String, linear: Bool) throws -> [Double] {
        runs += 1
        let source = work + "/source-\(runs).v", out = work + "/conv-\(runs).v"
        if linear { try Tool.vips(["sRGB2scRGB", try landscapePNG(), source]) } else { try Tool.vips(["cast", try landscapePNG(), source, "float"]) }
        try Tool.vips(["conv", source, out, matrix, "--precision", "float"])
        let samples = try Tool.vipsFloats(out, scratch: work).samples.map(Double.init)
        return linear ? samples.map { Reference.toSRGB($0) * 255 } : samples.map { min(max($0, 0), 255) }
    }

    /// The largest difference between Medley's samples and a reference.
    func worst(_ mine: [Int], _ reference: [Double], file: StaticString = #filePath, line: UInt = #line) -> Double {
        XCTAssertEqual(mine.count, reference.count, "sample counts", file: file, line: line)
        guard mine.count == reference.count, !mine.isEmpty else { return .infinity }
        var worst = 0.0
        for (a, b) in zip(mine, reference) { worst = max(worst, abs(Double(a) - b)) }
        return worst
    }

    func testConvolution3X3OnStoredValuesMatchesVipsConv() throws {
        // An asymmetric sharpening matrix summing to 1: any flip or transpose shows at the house's edges.
        let weights: [Double] = [0, -0.5, 0, -0.25, 2.5, -0.5, 0, -0.25, 0]
        let mine = try run("      - CIConvolution3X3: { inputWeights: [\(weights.map { "\($0)" }.joined(separator: ", "))] }",
                           colorSpace: "none")
        // ≤ 1 level: Medley rounds its float result to 8 bits (0.5) after float arithmetic; vips is kept
        // unrounded. Measured 0.5; the flipped matrix below is 63 levels off.
        XCTAssertLessThanOrEqual(worst(mine.samples, try vipsConv(try matrix(weights, columns: 3, rows: 3), linear: false)), 1)
        // The same weights upside down (a convolution instead of a correlation) are far off.
        let flipped = Array(weights.reversed())
        XCTAssertGreaterThan(worst(mine.samples, try vipsConv(try matrix(flipped, columns: 3, rows: 3), linear: false)), 10)
    }

    func testConvolution7X7AndRGBVariantsInLinearLightMatchVipsConvOnScRGB() throws {
        // A lopsided 7 × 7 blur (weights grow to the bottom right), normalised.
        var weights: [Double] = (0..<49).map { (i: Int) -> Double in Double(i % 7 + 1) * Double(i / 7 + 1) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        let list = weights.map { "\($0)" }.joined(separator: ", ")
        let reference = try vipsConv(try matrix(weights, columns: 7, rows: 7), linear: true)
        for name in ["CIConvolution7X7", "CIConvolutionRGB7X7"] {
            let mine = try run("      - \(name): { inputWeights: [\(list)] }")
            // ≤ 1 level: 8-bit rounding (0.5) plus float sums of 49 taps; measured 0.53.
            XCTAssertLessThanOrEqual(worst(mine.samples, reference), 1, name)
        }
        // 9-tap vertical against vips' 1 × 9 column.
        let column: [Double] = [0.3, 0.2, 0.1, 0.05, 0.1, 0.05, 0.1, 0.05, 0.05]
        let mine = try run("      - CIConvolution9Vertical: { inputWeights: [\(column.map { "\($0)" }.joined(separator: ", "))] }")
        XCTAssertLessThanOrEqual(worst(mine.samples, try vipsConv(try matrix(column, columns: 1, rows: 9), linear: true)), 1)
    }

    func testMedianMatchesVipsRank() throws {
        // The median commutes with the (monotonic) sRGB transfer, so Medley's linear-light median is the
        // median of the stored values that `vips rank 3 3 4` takes.
        let mine = try run("      - CIMedianFilter: {}")
        let out = work + "/median.png"
        try Tool.vips(["rank", try landscapePNG(), out, "3", "3", "4"])
        let reference = try Tool.pixels(out).samples.map(Double.init)
        // ≤ 1 level: the 8-bit → linear float → 8-bit round trip; measured 0 (and 129 against the input).
        XCTAssertLessThanOrEqual(worst(mine.samples, reference), 1)
        XCTAssertGreaterThan(worst(mine.samples, try Tool.pixels(try landscapePNG()).samples.map(Double.init)), 20,
                             "the median does change the picture")
    }

    func testRectangleMorphologyMatchesVipsRankAtIndexZeroAndLast() throws {
        // 5 × 3 (width 4 rounds up to 5): vips rank 5 3 with index 0 (minimum) and 14 (maximum).
        for (name, index) in [("CIMorphologyRectangleMinimum", 0), ("CIMorphologyRectangleMaximum", 14)] {
            let mine = try run("      - \(name): { inputWidth: 4, inputHeight: 3 }")
            let out = work + "/rank-\(index).png"
            try Tool.vips(["rank", try landscapePNG(), out, "5", "3", "\(index)"])
            XCTAssertLessThanOrEqual(worst(mine.samples, try Tool.pixels(out).samples.map(Double.init)), 1, name)
        }
    }

    func testDiscMorphologyIsTheExtremeOverTheDisc() throws {
        let source = try Tool.pixels(try landscapePNG())
        let width = source.width, height = source.height, radius = 3.0
        func at(_ x: Int, _ y: Int, _ c: Int) -> Int {
            source.samples[(min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)) * 3 + c]
        }
        for (name, maximum) in [("CIMorphologyMaximum", true), ("CIMorphologyMinimum", false)] {
            let mine = try run("      - \(name): { inputRadius: 3 }")
            var reference: [Double] = []
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var best = maximum ? Int.min : Int.max
                        for dy in -3...3 { for dx in -3...3 where Double(dx * dx + dy * dy) <= radius * radius {
                            best = maximum ? max(best, at(x + dx, y + dy, c)) : min(best, at(x + dx, y + dy, c))
                        } }
                        reference.append(Double(best))
                    }
                }
            }
            // Extremes commute with the monotonic transfer: ≤ 1 level for the round trip.
            XCTAssertLessThanOrEqual(worst(mine.samples, reference), 1, name)
        }
    }

    func testDiscBlurMatchesVipsConvWithTheDiscMask() throws {
        // r = 4: the 49 pixels with dx² + dy² ≤ 16, written out as a 9 × 9 mask of ones, scale = their count.
        let mask: [Double] = (0..<81).map { (i: Int) -> Double in
            let dx = i % 9 - 4, dy = i / 9 - 4
            return dx * dx + dy * dy <= 16 ? 1 : 0
        }
        let reference = try vipsConv(try matrix(mask, columns: 9, rows: 9, scale: mask.reduce(0, +)), linear: true)
        let mine = try run("      - CIDiscBlur: { inputRadius: 4 }")
        // ≤ 1 level: rounding plus Float running sums; measured 0.52 (radius 5 instead: 24.9).
        XCTAssertLessThanOrEqual(worst(mine.samples, reference), 1)
        // A radius of 5 instead is clearly different.
        let wider = try run("      - CIDiscBlur: { inputRadius: 5 }")
        XCTAssertGreaterThan(worst(wider.samples, reference), 3)
    }

    func testMotionBlurMatchesVipsConvWithALineOfTaps() throws {
        // Radius 5: eleven equal taps along the row (angle 0) or the column (angle π/2).
        let line = [Double](repeating: 1, count: 11)
        let horizontal = try run("      - CIMotionBlur: { inputRadius: 5, inputAngle: 0 }")
        XCTAssertLessThanOrEqual(worst(horizontal.samples, try vipsConv(try matrix(line, columns: 11, rows: 1, scale: 11), linear: true)), 1)
        let vertical = try run("      - CIMotionBlur: { inputRadius: 5, inputAngle: 1.5707963267948966 }")
        // cos(π/2) in Double is 6e-17, not 0: bilinear weights of 1e-16 on the neighbour columns change nothing visible.
        XCTAssertLessThanOrEqual(worst(vertical.samples, try vipsConv(try matrix(line, columns: 1, rows: 11, scale: 11), linear: true)), 1)
    }

    func testBadWeightsFailValidationWithTheirPosition() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: n
                ingest: { from: [\(try landscapePNG())] }
                filters:
                  - CIConvolution3X3: { inputWeights: [1, 2, 3] }
                  - CIMorphologyMaximum: { inputRadius: 5000 }
                export: { to: \(work!)/never, format: png }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("inputWeights"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:7:") && result.stderr.contains("Medley's limit"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/never"))
    }
}
