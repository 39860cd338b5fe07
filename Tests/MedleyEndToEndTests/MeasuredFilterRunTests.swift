import Foundation
import XCTest

/// The filters whose table comes from pixels at render time — CIColorThresholdOtsu (the input's
/// histogram), CIColorMap (a gradient image), CIPalettize (a palette image) — through `medley run`
/// on the landscape photo, against the published formulas written here over ImageMagick's decode of
/// the same PNG.
final class MeasuredFilterRunTests: EndToEndCase {
    /// The landscape as a PNG written by vips, and its samples as ImageMagick reads them.
    func landscape() throws -> (path: String, width: Int, height: Int, samples: [Int]) {
        let path = work + "/landscape.png"
        if !FileManager.default.fileExists(atPath: path) {
            try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path])
        }
        let pixels = try Tool.pixels(path)
        return (path, pixels.width, pixels.height, pixels.samples)
    }

    /// Runs one graph over the landscape and returns the output's samples (ImageMagick's reading).
    func run(graph nodes: String, colorSpace: String?, expectSuccess: Bool = true) throws -> (samples: [Int], result: Tool.Result) {
        let input = try landscape().path
        let folder = work + "/out-\(UUID().uuidString)"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: m
                ingest: { from: [\(input)] }
            \(colorSpace.map { "    colorSpace: \($0)" } ?? "")
                graph:
            \(nodes)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        guard expectSuccess else { return ([], result) }
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try Tool.pixels(folder + "/landscape.png").samples, result)
    }

    /// Otsu's split by brute force: for every k, the between-class variance from the two classes'
    /// own counts and means, recomputed from scratch (not the running sums the product uses).
    func otsuSplit(_ histogram: [Int]) -> Int {
        var best = 0, bestVariance = -1.0
        for k in 0..<255 {
            let low = (0...k).map { (Double($0), Double(histogram[$0])) }
            let high = ((k + 1)...255).map { (Double($0), Double(histogram[$0])) }
            let w0 = low.reduce(0) { $0 + $1.1 }, w1 = high.reduce(0) { $0 + $1.1 }
            guard w0 > 0, w1 > 0 else { continue }
            let m0 = low.reduce(0) { $0 + $1.0 * $1.1 } / w0, m1 = high.reduce(0) { $0 + $1.0 * $1.1 } / w1
            let variance = w0 * w1 * (m0 - m1) * (m0 - m1)
            if variance > bestVariance { bestVariance = variance; best = k }
        }
        return best
    }

    func testOtsuThresholdOnStoredValuesIsExact() throws {
        let input = try landscape()
        var histogram = [Int](repeating: 0, count: 256)
        for sample in input.samples { histogram[sample] += 1 }
        let k = otsuSplit(histogram)
        // A photo with sky and land: the split is neither end of the range.
        XCTAssertTrue((20...235).contains(k), "Otsu split \(k)")
        let expected = input.samples.map { $0 > k ? 255 : 0 }
        let mine = try run(graph: "      output: { filter: CIColorThresholdOtsu, inputImage: input }", colorSpace: "none").samples
        XCTAssertEqual(mine.count, expected.count)
        XCTAssertEqual(zip(mine, expected).filter { $0 != $1 }.count, 0, "samples on the wrong side of Otsu's threshold \(k)")
    }

    func testOtsuThresholdInLinearLight() throws {
        let input = try landscape()
        // The histogram of linear-light values, rounded to 1/255 steps.
        let linear = input.samples.map { Reference.toLinear(Double($0) / 255) }
        var histogram = [Int](repeating: 0, count: 256)
        for value in linear { histogram[Int((value * 255).rounded())] += 1 }
        let k = otsuSplit(histogram)
        let threshold = (Double(k) + 0.5) / 255
        let expected = linear.map { $0 > threshold ? 255 : 0 }
        let mine = try run(graph: "      output: { filter: CIColorThresholdOtsu, inputImage: input }", colorSpace: nil).samples
        // Float against double next to the threshold: a sample that sits exactly on it may fall either side.
        let wrong = zip(mine, expected).filter { $0 != $1 }.count
        XCTAssertLessThanOrEqual(Double(wrong) / Double(expected.count), 0.0005, "\(wrong) samples differ (split \(k))")
    }

    func testColorMapLooksUpTheGradientRowByLuminance() throws {
        let input = try landscape()
        // The gradient: the photo's own bottom row, its first 16 pixels (Core Image's y = 0 is the bottom).
        let bottom = (input.height - 1) * input.width * 3
        let gradient = (0..<16).map { i in (0..<3).map { Double(input.samples[bottom + i * 3 + $0]) } }
        let mine = try run(graph: """
                  row: { filter: CICrop, inputImage: input, inputRectangle: [0, 0, 16, 1] }
                  output: { filter: CIColorMap, inputImage: input, inputGradientImage: row }
            """, colorSpace: "none").samples
        var expected: [Double] = []
        for p in stride(from: 0, to: input.samples.count, by: 3) {
            let (r, g, b) = (Double(input.samples[p]) / 255, Double(input.samples[p + 1]) / 255, Double(input.samples[p + 2]) / 255)
            let luma = min(max(0.2126 * r + 0.7152 * g + 0.0722 * b, 0), 1)
            let position = luma * 15, low = min(Int(position), 15), high = min(low + 1, 15), t = position - Double(low)
            for c in 0..<3 { expected.append(gradient[low][c] + (gradient[high][c] - gradient[low][c]) * t) }
        }
        XCTAssertEqual(mine.count, expected.count)
        // ≤ 1 level: Medley rounds its float result to 8 bits once.
        let worst = zip(mine, expected).map { abs(Double($0) - $1) }.max() ?? .infinity
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testColorMapRunsInOnePassWithThePointFiltersAroundIt() throws {
        let input = try landscape()
        let bottom = (input.height - 1) * input.width * 3
        let gradient = (0..<16).map { i in (0..<3).map { Double(input.samples[bottom + i * 3 + $0]) / 255 } }
        // Inverted, mapped by the (uninverted) photo's bottom row, inverted again: on stored values
        // (colorSpace: none) CIColorInvert is 1 − v.
        let mine = try run(graph: """
                  row: { filter: CICrop, inputImage: input, inputRectangle: [0, 0, 16, 1] }
                  inverted: { filter: CIColorInvert, inputImage: input }
                  mapped: { filter: CIColorMap, inputImage: inverted, inputGradientImage: row }
                  output: { filter: CIColorInvert, inputImage: mapped }
            """, colorSpace: "none").samples
        var worst = 0.0
        for p in stride(from: 0, to: input.samples.count, by: 3) {
            let q = (0..<3).map { 1 - Double(input.samples[p + $0]) / 255 }
            let luma = min(max(0.2126 * q[0] + 0.7152 * q[1] + 0.0722 * q[2], 0), 1)
            let position = luma * 15, low = min(Int(position), 15), high = min(low + 1, 15), t = position - Double(low)
            for c in 0..<3 {
                let expected = 255 * (1 - (gradient[low][c] + (gradient[high][c] - gradient[low][c]) * t))
                worst = max(worst, abs(Double(mine[p + c]) - expected))
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testPalettizeTakesTheNearestPaletteColour() throws {
        let input = try landscape()
        // The palette: the bottom-left 4 × 2 pixels of the photo (Core Image's origin is bottom-left).
        var palette: [[Double]] = []
        for row in [input.height - 2, input.height - 1] {
            for column in 0..<4 {
                let at = (row * input.width + column) * 3
                palette.append((0..<3).map { Double(input.samples[at + $0]) })
            }
        }
        let nodes = """
                  few: { filter: CICrop, inputImage: input, inputRectangle: [0, 0, 4, 2] }
                  output: { filter: CIPalettize, inputImage: input, inputPaletteImage: few, inputPerceptual: PERCEPTUAL }
            """
        // Plain: Euclidean distance of the stored values.
        let plain = try run(graph: nodes.replacingOccurrences(of: "PERCEPTUAL", with: "false"), colorSpace: "none").samples
        var wrong = 0, notInPalette = 0
        for p in stride(from: 0, to: input.samples.count, by: 3) {
            let pixel = (0..<3).map { Double(input.samples[p + $0]) }
            let distances = palette.map { colour in zip(colour, pixel).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
            let best = distances.min() ?? 0
            let output = (0..<3).map { Double(plain[p + $0]) }
            if !palette.contains(output) { notInPalette += 1 }
            // Ties (two palette colours equally near) may go either way.
            if let index = palette.firstIndex(of: output), distances[index] > best + 1e-9 { wrong += 1 }
        }
        XCTAssertEqual(notInPalette, 0, "output colours that are not palette colours")
        XCTAssertEqual(wrong, 0, "pixels that did not take the nearest palette colour")

        // Perceptual: nearest in Oklab of linear light (Ottosson's published matrices, written here).
        func oklab(_ c: [Double]) -> [Double] {
            let r = Reference.toLinear(c[0] / 255), g = Reference.toLinear(c[1] / 255), b = Reference.toLinear(c[2] / 255)
            let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
            let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
            let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
            return [0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
                    1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
                    0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s]
        }
        let keys = palette.map(oklab)
        let perceptual = try run(graph: nodes.replacingOccurrences(of: "PERCEPTUAL", with: "true"), colorSpace: nil).samples
        var perceptualWrong = 0, total = 0
        for p in stride(from: 0, to: input.samples.count, by: 3) {
            let key = oklab((0..<3).map { Double(input.samples[p + $0]) })
            let distances = keys.map { k in zip(k, key).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
            let best = distances.min() ?? 0
            let output = (0..<3).map { Double(perceptual[p + $0]) }
            // The palette colour went to linear light and back to 8 bits: ≤ 1 level from the palette's own
            // (neighbouring pixels of a photo can be that close, so any of them may be the one taken).
            let candidates = palette.indices.filter { zip(palette[$0], output).allSatisfy { abs($0 - $1) <= 1 } }
            total += 1
            if candidates.contains(where: { distances[$0] <= best * (1 + 1e-4) + 1e-12 }) { continue }
            perceptualWrong += 1
        }
        // Float against double: a pixel almost equally near two palette colours may take the other one.
        XCTAssertLessThanOrEqual(Double(perceptualWrong) / Double(total), 0.001, "\(perceptualWrong) of \(total) pixels")
        XCTAssertNotEqual(plain, perceptual, "perceptual matching changed nothing")
    }

    func testAPaletteImageOverTheLimitFailsTheItemWithTheReason() throws {
        // The whole photo as its own palette: far more pixels than Medley compares each pixel with.
        let (_, result) = try run(graph: "      output: { filter: CIPalettize, inputImage: input, inputPaletteImage: input }",
                                  colorSpace: nil, expectSuccess: false)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("more than the 4096 Medley maps colours to"), result.stderr)
    }
}
