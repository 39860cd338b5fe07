import Foundation
import XCTest

/// `medley run` over the fixtures, checked with ImageMagick and exiftool.
final class SepiaRunTests: EndToEndCase {
    func sepiaPipeline(from: String, intensity: Double = 0.8, format: String = "png", extra: String = "") throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: sepia
                ingest: { from: [\(from)], media: [image] }
                filters:
                  - CISepiaTone: { inputIntensity: \(intensity) }
                export: { to: out, format: \(format), name: "{relpath}/{stem}.{ext}"\(extra) }
            """)
    }

    func testSepiaPixelsMatchTheSpecFormulaInLinearLight() throws {
        let input = Tool.fixtures + "/images/alpha.png"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try Tool.pixels(input, channels: "rgba")
        let after = try Tool.pixels(work + "/out/alpha.png", channels: "rgba")
        XCTAssertEqual(after.width, before.width)
        XCTAssertEqual(after.samples.count, before.samples.count)
        var worst = 0.0
        for p in stride(from: 0, to: before.samples.count, by: 4) {
            let expected = Reference.sepia(Array(before.samples[p..<p + 3]), intensity: 0.8)
            for c in 0..<3 { worst = max(worst, abs(Double(after.samples[p + c]) - expected[c])) }
            XCTAssertEqual(after.samples[p + 3], before.samples[p + 3], "alpha must pass through")
        }
        XCTAssertLessThanOrEqual(worst, 1.0, "largest difference from the formula, in 8-bit steps")
    }

    func testSixteenBitInputStaysSixteenBitAndMatchesTheFormula() throws {
        let input = Tool.fixtures + "/images/deep16.png"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input, intensity: 1), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/deep16.png"
        XCTAssertEqual(try Tool.run("identify", ["-format", "%z", output]).stdout, "16")
        let before = try Tool.pixels(input, depth: 16)
        let after = try Tool.pixels(output, depth: 16)
        var worst = 0.0
        for p in stride(from: 0, to: before.samples.count, by: 3) {
            let expected = Reference.sepia(Array(before.samples[p..<p + 3]), intensity: 1, max: 65535)
            for c in 0..<3 { worst = max(worst, abs(Double(after.samples[p + c]) - expected[c])) }
        }
        XCTAssertLessThanOrEqual(worst, 2.0, "largest difference in 16-bit steps")
    }

    func testZeroIntensityIsIdentityWithinOneStep() throws {
        let input = Tool.fixtures + "/images/alpha.png"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input, intensity: 0), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try Tool.pixels(input, channels: "rgba")
        let after = try Tool.pixels(work + "/out/alpha.png", channels: "rgba")
        XCTAssertEqual(before.samples.count, after.samples.count)
        let worst = zip(before.samples, after.samples).map { abs($0 - $1) }.max() ?? 99
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testGreyInputBecomesSepiaColour() throws {
        let input = Tool.fixtures + "/images/gray.png"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input, intensity: 1), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try Tool.pixels(input, channels: "gray")
        let after = try Tool.pixels(work + "/out/gray.png")
        for (index, grey) in before.samples.enumerated() where index % 97 == 0 {
            let expected = Reference.sepia([grey, grey, grey], intensity: 1)
            for c in 0..<3 { XCTAssertEqual(Double(after.samples[index * 3 + c]), expected[c], accuracy: 1.0) }
        }
    }

    func testOrientationIsAppliedAndExifAndICCAreKept() throws {
        let input = Tool.fixtures + "/images/portrait-exif6.jpg"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input, intensity: 0.5, format: "jpeg", extra: ", quality: 95"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/portrait-exif6.jpg"
        let pixels = try Tool.pixels(output)
        XCTAssertEqual([pixels.width, pixels.height], [120, 160], "stored 160×120 with orientation 6 displays as 120×160")
        // fixtures/README.md: rotated correctly, the red marker (stored top-left) is at the top-right.
        func pixel(_ x: Int, _ y: Int) -> [Int] { Array(pixels.samples[(y * 120 + x) * 3..<(y * 120 + x) * 3 + 3]) }
        let topRight = pixel(108, 12), topLeft = pixel(12, 12)
        XCTAssertGreaterThan(topRight[0], topRight[2] + 60, "top-right should be the (sepia-toned) red marker: \(topRight)")
        XCTAssertLessThan(topLeft[0], 200, "top-left should be the toned blue marker: \(topLeft)")
        let orientation = try Tool.exif(output, "Orientation")
        XCTAssertTrue(orientation == nil || orientation == "1", "orientation must be reset, found \(orientation ?? "-")")
        XCTAssertEqual(try Tool.exif(output, "Make"), "Medley")
        XCTAssertEqual(try Tool.exif(output, "DateTimeOriginal"), "2024:05:06 07:08:09")
        XCTAssertEqual(try Tool.exif(output, "ProfileDescription"), try Tool.exif(input, "ProfileDescription"))
        XCTAssertNotNil(try Tool.exif(output, "ProfileDescription"), "the ICC profile must be kept")
    }

    func testStripDropsMetadata() throws {
        let input = Tool.fixtures + "/images/portrait-exif6.jpg"
        let result = try Tool.medley(["run", try sepiaPipeline(from: input, format: "jpeg", extra: ", strip: true"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertNil(try Tool.exif(work + "/out/portrait-exif6.jpg", "Make"))
    }

    func testDemoPipelineExportsEveryImageUnderItsRelativePath() throws {
        let out = work + "/demo"
        let result = try Tool.medley(["run", Tool.packageRoot + "/pipelines/sepia-photos.yaml",
                                      "--set", "sepia-photos.export.to=\(out)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Tool.files(under: out), [
            "alpha-sepia.jpg", "deep16-sepia.jpg", "gray-sepia.jpg", "landscape-sepia.jpg",
            "nested/deeper/tiny-sepia.jpg", "photo-sepia.jpg", "portrait-exif6-sepia.jpg",
        ], "thumbs/ is excluded, not-media.txt ignored, nothing of Medley's left behind")
        for file in Tool.files(under: out) {
            XCTAssertEqual(try Tool.run("identify", ["-format", "%m", out + "/" + file]).stdout, "JPEG", file)
        }
        XCTAssertTrue(result.stderr.contains("sepia-photos: 7 succeeded, 0 failed, 0 skipped"), result.stderr)
    }

    func testEventsAreJSONLinesInOrder() throws {
        let events = work + "/events.jsonl"
        let result = try Tool.medley(["run", try sepiaPipeline(from: Tool.fixtures + "/broken"), "--quiet", "--events", events])
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let names = objects.map { $0["event"] as? String ?? "?" }
        XCTAssertEqual(names.first, "jobStarted")
        XCTAssertEqual(names.last, "jobFinished")
        XCTAssertEqual(names.filter { $0 == "itemFinished" }.count, 2)
        XCTAssertEqual(names.filter { $0 == "itemFailed" }.count, 4)
        XCTAssertEqual(names.filter { $0 == "itemStarted" }.count, 6)
        let finished = try XCTUnwrap(objects.last)
        XCTAssertEqual(finished["succeeded"] as? Int, 2)
        XCTAssertEqual(finished["failed"] as? Int, 4)
        for object in objects where object["event"] as? String == "itemFinished" {
            let output = try XCTUnwrap(object["output"] as? String)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
            XCTAssertEqual(object["bytes"] as? Int, size)
        }
    }
}
