import Foundation
import XCTest

/// `analyze:` for images (average colour, histograms, dominant colours in the manifest) and
/// `autoAdjust: { enhance: true }`, checked against the vips command line (`vips avg`,
/// `vips hist_find`, `vips colourspace`), ImageMagick's decode and formulas written here.
final class AnalyzeRunTests: EndToEndCase {
    /// Copies fixtures (or files made by the test) into `in/` and runs one job over them with `extra` keys.
    func run(_ inputs: [String], _ extra: String, format: String = "png") throws -> [[String: Any]] {
        let folder = work + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for input in inputs {
            let target = folder + "/" + (input as NSString).lastPathComponent
            if !FileManager.default.fileExists(atPath: target) { try FileManager.default.copyItem(atPath: input, toPath: target) }
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: look
                ingest: { from: [in], media: [image] }
            \(extra)
                export: { to: out, format: \(format), name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try manifest()
    }

    /// The item events of the last run (itemFinished, itemSkipped, itemFailed).
    func itemEvents() throws -> [String] {
        try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let kind = event["event"] as? String, ["itemFinished", "itemSkipped", "itemFailed"].contains(kind) else { return nil }
            return kind
        }
    }

    func manifest() throws -> [[String: Any]] {
        try String(contentsOfFile: work + "/out/.medley/manifest-look.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func record(_ records: [[String: Any]], _ stem: String) throws -> [String: Any] {
        try XCTUnwrap(records.first { (($0["input"] as? String ?? "") as NSString).lastPathComponent.hasPrefix(stem + ".") }, stem)
    }

    /// `vips avg` of one band of an image.
    func vipsMean(_ path: String, band: Int) throws -> Double {
        let single = work + "/band-\(band).v"
        try Tool.vips(["extract_band", path, single, "\(band)"])
        let text = try Tool.run("vips", ["avg", single]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try XCTUnwrap(Double(text), text)
    }

    /// `vips hist_find` of an image: counts per band, `[band][value]`.
    func vipsHistogram(_ path: String) throws -> [[Int]] {
        let histogram = work + "/hist-\(UUID().uuidString).v"
        try Tool.vips(["hist_find", path, histogram])
        let floats = try Tool.vipsFloats(histogram, scratch: work)
        XCTAssertEqual(floats.width, 256)
        return (0..<floats.bands).map { band in (0..<256).map { Int(floats.samples[$0 * floats.bands + band]) } }
    }

    // MARK: analyze

    func testAverageColourMatchesVipsAvgOfTheExportedImage() throws {
        let records = try run([Tool.fixtures + "/images/landscape.jpg", Tool.fixtures + "/images/alpha.png"],
                              "    analyze: [averageColor]")
        for (stem, bands) in [("landscape", 3), ("alpha", 4)] {
            let analysis = try XCTUnwrap(try record(records, stem)["analysis"] as? [String: Any], stem)
            let average = try XCTUnwrap(analysis["averageColor"] as? [Double])
            XCTAssertEqual(average.count, 4)
            let output = work + "/out/\(stem).png"
            var means: [Double] = []
            for band in 0..<bands { means.append(try vipsMean(output, band: band)) }
            // The manifest rounds to 4 decimals: within 0.00005 plus float noise of the mean.
            for band in 0..<bands { XCTAssertEqual(average[band], means[band] / 255, accuracy: 0.0001, "\(stem) band \(band)") }
            if bands == 3 { XCTAssertEqual(average[3], 1, "an opaque image's alpha is 1") }
            let hex = "#" + means.prefix(3).map { String(format: "%02x", Int($0.rounded())) }.joined()
            XCTAssertEqual(analysis["averageColorHex"] as? String, hex)
        }
    }

    func testHistogramsMatchVipsHistFindAndImageMagicksCounts() throws {
        let records = try run([Tool.fixtures + "/images/landscape.jpg", Tool.fixtures + "/images/gray.png"], "    analyze: histogram")
        for stem in ["landscape", "gray"] {
            let analysis = try XCTUnwrap(try record(records, stem)["analysis"] as? [String: Any], stem)
            let histogram = try XCTUnwrap(analysis["histogram"] as? [String: Any])
            XCTAssertEqual(histogram["bins"] as? Int, 256)
            let red = try XCTUnwrap(histogram["red"] as? [Int]), green = try XCTUnwrap(histogram["green"] as? [Int])
            let blue = try XCTUnwrap(histogram["blue"] as? [Int]), luminance = try XCTUnwrap(histogram["luminance"] as? [Int])
            let output = work + "/out/\(stem).png"
            // vips: the output's own histogram per band, and of its B_W luminance.
            // A grey output (gray.png through no filters stays one band) counts as R = G = B.
            let found = try vipsHistogram(output)
            let expected = found.count == 1 ? [found[0], found[0], found[0]] : found
            XCTAssertEqual(expected.count, 3, stem)
            XCTAssertEqual([red, green, blue], expected, stem)
            let grey = work + "/\(stem)-grey.v"
            try Tool.vips(["colourspace", output, grey, "b-w"])
            XCTAssertEqual(luminance, try vipsHistogram(grey)[0], stem)
            // ImageMagick's decode, counted here: the same counts from a second decoder.
            let pixels = try Tool.pixels(output)
            var counted = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
            for (index, sample) in pixels.samples.enumerated() { counted[index % 3][sample] += 1 }
            XCTAssertEqual([red, green, blue], counted, stem)
            XCTAssertEqual(red.reduce(0, +), pixels.width * pixels.height)
        }
    }

    func testDominantColoursOfKnownAreas() throws {
        // 60 % red, 30 % blue, 10 % green, side by side.
        let areas = work + "/areas.png"
        _ = try Tool.run("convert", ["-size", "120x100", "xc:#ff0000", "-size", "60x100", "xc:#0000ff",
                                     "-size", "20x100", "xc:#00ff00", "+append", areas])
        let records = try run([areas], "    analyze: [dominantColors]")
        let analysis = try XCTUnwrap(try record(records, "areas")["analysis"] as? [String: Any])
        let colours = try XCTUnwrap(analysis["dominantColors"] as? [[String: Any]])
        XCTAssertLessThanOrEqual(colours.count, 5, "k = 5")
        XCTAssertGreaterThanOrEqual(colours.count, 3)
        func rgb(_ hex: String) -> [Int] {
            let digits = Array(hex.dropFirst())
            return stride(from: 0, to: 6, by: 2).map { Int(String(digits[$0...$0 + 1]), radix: 16) ?? -1 }
        }
        for (index, (colour, share)) in [([255, 0, 0], 0.6), ([0, 0, 255], 0.3), ([0, 255, 0], 0.1)].enumerated() {
            let found = try XCTUnwrap(colours[index]["color"] as? String)
            let fraction = try XCTUnwrap(colours[index]["fraction"] as? Double)
            // The clusters are measured on a downsampled copy: pixels at the two borders blend,
            // and a 128-pixel-wide copy puts its columns at multiples of 1.5625 source columns.
            XCTAssertEqual(fraction, share, accuracy: 0.02, found)
            for (got, want) in zip(rgb(found), colour) { XCTAssertEqual(Double(got), Double(want), accuracy: 8, found) }
        }
        let total = colours.compactMap { $0["fraction"] as? Double }.reduce(0, +)
        XCTAssertEqual(total, 1, accuracy: 0.001, "the fractions cover the picture")
    }

    func testChangingTheAnalysesRedoesTheImages() throws {
        let input = Tool.fixtures + "/images/landscape.jpg"
        var records = try run([input], "    analyze: [averageColor]")
        XCTAssertNotNil((try record(records, "landscape")["analysis"] as? [String: Any])?["averageColor"])
        XCTAssertEqual(try itemEvents(), ["itemFinished"])
        // The same pipeline again: unchanged, listed from the last run with its analysis kept.
        records = try run([input], "    analyze: [averageColor]")
        XCTAssertEqual(try itemEvents(), ["itemSkipped"])
        XCTAssertNotNil((try record(records, "landscape")["analysis"] as? [String: Any])?["averageColor"])
        // A different analysis: the image is done again.
        records = try run([input], "    analyze: [averageColor, histogram]")
        XCTAssertEqual(try itemEvents(), ["itemFinished"])
        XCTAssertNotNil((try record(records, "landscape")["analysis"] as? [String: Any])?["histogram"])
        // Turning auto-enhance on redoes it too.
        records = try run([input], """
                analyze: [averageColor, histogram]
                autoAdjust: { enhance: true }
            """)
        XCTAssertEqual(try itemEvents(), ["itemFinished"])
        XCTAssertNotNil(try record(records, "landscape")["autoAdjust"])
    }

    // MARK: autoAdjust

    /// The smallest sample value whose cumulative count reaches `share` of all samples.
    func percentile(_ samples: [Int], _ share: Double) -> Int {
        var counts = [Int](repeating: 0, count: 256)
        for sample in samples { counts[sample] += 1 }
        var running = 0
        for value in 0..<256 {
            running += counts[value]
            if Double(running) >= share * Double(samples.count) { return value }
        }
        return 255
    }

    func testAutoEnhanceStretchesALowContrastImage() throws {
        // A low-contrast grey picture: 41…253 squeezed to about 86…171. Grey, so vibrance changes
        // nothing, and nothing is under 64 or over 230, so highlights and shadows stay as they are.
        let low = work + "/low.png"
        try Tool.vips(["linear", Tool.fixtures + "/images/gray.png", low, "0.4", "70"])
        let before = try Tool.pixels(low)
        let lo = percentile(before.samples, 0.005), hi = percentile(before.samples, 0.995)
        let records = try run([low], "    autoAdjust: { enhance: true }")
        let adjust = try XCTUnwrap(try record(records, "low")["autoAdjust"] as? [String: [String: Any]])

        // The tone curve: 5 points evenly on the line from (x(lo), 0) to (x(hi), 1), x = √linear.
        let x0 = Reference.toLinear(Double(lo) / 255).squareRoot(), x1 = Reference.toLinear(Double(hi) / 255).squareRoot()
        XCTAssertGreaterThan(x1 - x0, 0.25, "a span the rules do not widen")
        let curve = try XCTUnwrap(adjust["CIToneCurve"])
        for (index, q) in [0, 0.25, 0.5, 0.75, 1].enumerated() {
            let point = try XCTUnwrap(curve["inputPoint\(index)"] as? [Double], "inputPoint\(index)")
            XCTAssertEqual(point[0], x0 + q * (x1 - x0), accuracy: 0.0001, "inputPoint\(index).x (4 decimals)")
            XCTAssertEqual(point[1], q)
        }
        XCTAssertEqual(try XCTUnwrap(adjust["CIHighlightShadowAdjust"]?["inputShadowAmount"] as? Double), 0)
        XCTAssertEqual(try XCTUnwrap(adjust["CIHighlightShadowAdjust"]?["inputHighlightAmount"] as? Double), 1)
        XCTAssertEqual(try XCTUnwrap(adjust["CIVibrance"]?["inputAmount"] as? Double), 0.3, "grey: saturation 0")

        // The pixels: toSRGB(f(√linear)²), f the straight line through the points, clamped to 0…1.
        // Within 1.5 steps: the curve is a 1024-entry table and 8-bit rounding comes twice.
        let after = try Tool.pixels(work + "/out/low.png")
        XCTAssertEqual(after.samples.count, before.samples.count)
        var worst = 0.0
        for (index, sample) in before.samples.enumerated() {
            let f = min(max((Reference.toLinear(Double(sample) / 255).squareRoot() - x0) / (x1 - x0), 0), 1)
            worst = max(worst, abs(Double(after.samples[index]) - Reference.toSRGB(f * f) * 255))
        }
        XCTAssertLessThanOrEqual(worst, 1.5)
        // Wider: the 0.5–99.5 % range goes from about 85 levels to at least 240.
        XCTAssertLessThan(hi - lo, 100)
        XCTAssertGreaterThanOrEqual(percentile(after.samples, 0.995) - percentile(after.samples, 0.005), 240)
    }

    func testAutoEnhanceOfAColourPictureRunsBeforeTheJobsFilters() throws {
        let low = work + "/dull.png"
        try Tool.vips(["linear", Tool.fixtures + "/images/landscape.jpg", low, "0.4", "76"])
        let before = try Tool.pixels(low)
        let records = try run([low], """
                autoAdjust: { enhance: true }
                filters: [ CIColorInvert ]
            """)
        let entry = try record(records, "dull")
        let adjust = try XCTUnwrap(entry["autoAdjust"] as? [String: [String: Any]])
        XCTAssertEqual(Set(adjust.keys), ["CIVibrance", "CIToneCurve", "CIHighlightShadowAdjust"])
        // Vibrance from the mean HSV saturation S: clamp(0.3 − S, 0, 0.3). Medley measures S on a
        // 64-pixel copy, which averages neighbours: within 0.03 of the full picture's S.
        var saturation = 0.0
        for p in stride(from: 0, to: before.samples.count, by: 3) {
            let rgb = before.samples[p..<p + 3], high = Double(rgb.max() ?? 0), lowest = Double(rgb.min() ?? 0)
            if high > 0 { saturation += (high - lowest) / high }
        }
        saturation /= Double(before.samples.count / 3)
        let amount = try XCTUnwrap(adjust["CIVibrance"]?["inputAmount"] as? Double)
        XCTAssertEqual(amount, min(max(0.3 - saturation, 0), 0.3), accuracy: 0.03)
        // The curve stretches, then the job's CIColorInvert runs on the stretched picture.
        let after = try Tool.pixels(work + "/out/dull.png")
        let spread = percentile(after.samples, 0.995) - percentile(after.samples, 0.005)
        XCTAssertLessThan(percentile(before.samples, 0.995) - percentile(before.samples, 0.005), 110)
        XCTAssertGreaterThanOrEqual(spread, 200)
        // The same auto-adjustment without the job's filter: CIColorInvert is 1 − x in linear light,
        // so the two outputs' linear values sum to 1, within their two 8-bit roundings (at most
        // 0.5 step each, ≤ 0.0043 in linear light where sRGB is steepest): 0.012.
        let plain = try Tool.medley(["run", try pipeline("""
            version: 1
            jobs:
              - name: plain
                ingest: { from: [in], media: [image] }
                autoAdjust: { enhance: true }
                export: { to: plain, format: png, name: "{stem}.{ext}" }
            """, name: "plain.yaml"), "--quiet"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let adjusted = try Tool.pixels(work + "/plain/dull.png")
        XCTAssertEqual(adjusted.samples.count, after.samples.count)
        let worst = zip(adjusted.samples, after.samples).map {
            abs(Reference.toLinear(Double($0) / 255) + Reference.toLinear(Double($1) / 255) - 1)
        }.max() ?? 9
        XCTAssertLessThanOrEqual(worst, 0.012)
    }

    func testMoviePostersAreAdjustedAndAnalysedLikeImages() throws {
        let folder = work + "/movies"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/movies/h264-aac.mp4", toPath: folder + "/clip.mp4")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: look
                ingest: { from: [movies], media: [movie] }
                poster: { at: "10%" }
                autoAdjust: { enhance: true }
                analyze: [averageColor]
                export: { to: out, format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let entry = try record(try manifest(), "clip")
        XCTAssertEqual(Set((entry["autoAdjust"] as? [String: Any])?.keys ?? [:].keys),
                       ["CIVibrance", "CIToneCurve", "CIHighlightShadowAdjust"])
        let average = try XCTUnwrap((entry["analysis"] as? [String: Any])?["averageColor"] as? [Double])
        for band in 0..<3 {
            XCTAssertEqual(average[band], try vipsMean(work + "/out/clip.png", band: band) / 255, accuracy: 0.0001)
        }
    }

    // MARK: validation

    func testMisspeltAnalysesAndMisplacedOnesFailValidationWithTheirPlace() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: one
                ingest: { from: [in], media: [image] }
                analyze: [averageColour, histogram]
                autoAdjust: { enhanse: true }
                export: { to: out, format: png }
              - name: two
                ingest: { from: [in], media: [music] }
                analyze: [dominantColors]
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM }
                export: { to: out2 }
              - name: three
                ingest: { from: [in], media: [image] }
                analyze: [metering]
                export: { to: out3, format: png }
            """)
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:15"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown analysis 'averageColour'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'averageColor'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:19"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'enhance'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:10:15"), result.stderr)
        XCTAssertTrue(result.stderr.contains("'dominantColors' works on images, but the job takes none and makes no posters"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:15:15"), result.stderr)
        XCTAssertTrue(result.stderr.contains("'metering' measures audio"), result.stderr)
        for folder in ["out", "out2", "out3"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/" + folder), "nothing written before validation passes")
        }
    }
}
