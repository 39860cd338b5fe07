import Foundation
import MedleyKernels
import XCTest
@testable import MedleyCore

/// The parts of `analyze:` and `autoAdjust:` below the run: the rules that choose auto-enhance's
/// parameters (checked against numbers worked out by hand here), k-means on known pixels, the
/// manifest fields' round trip, and what the settings hash sees.
final class AnalyzeTests: XCTestCase {
    // MARK: auto-enhance rules

    func testToneCurvePointsComeFromThePercentilesOfAllSamples() {
        // 1000 samples: 10 at 20, 980 at 100, 10 at 200. The 0.5 % share (5 samples) is reached at
        // 20 and the 99.5 % share (995) at 200.
        var histogram = [Int](repeating: 0, count: 256)
        histogram[20] = 10
        histogram[100] = 980
        histogram[200] = 10
        let chosen = AutoAdjustment.choose(histogram: histogram, luminance: histogram, meanSaturation: 0.5, workingSpace: .none)
        // colorSpace none: the curve's domain is √(encoded value).
        let x0 = (20.0 / 255).squareRoot(), x1 = (200.0 / 255).squareRoot()
        for (index, q) in [0, 0.25, 0.5, 0.75, 1].enumerated() {
            XCTAssertEqual(chosen.toneCurve[index][0], x0 + q * (x1 - x0), accuracy: 0.00005)
            XCTAssertEqual(chosen.toneCurve[index][1], q)
        }
        XCTAssertEqual(chosen.vibranceAmount, 0, "saturation 0.5 is over the 0.3 target")
    }

    func testAFlatImageIsStretchedByAtMostFour() {
        var histogram = [Int](repeating: 0, count: 256)
        histogram[128] = 500
        let chosen = AutoAdjustment.choose(histogram: histogram, luminance: histogram, meanSaturation: 0, workingSpace: .none)
        let x = (128.0 / 255).squareRoot()
        // The span is widened to 0.25 about the value itself: gain 4, the grey stays where it was.
        XCTAssertEqual(chosen.toneCurve[0][0], x - 0.125, accuracy: 0.00005)
        XCTAssertEqual(chosen.toneCurve[4][0], x + 0.125, accuracy: 0.00005)
        XCTAssertEqual(chosen.toneCurve[2][0], x, accuracy: 0.00005)
        XCTAssertEqual(chosen.vibranceAmount, 0.3, "saturation 0: the most vibrance, 0.3")
    }

    func testShadowsAndHighlightsFollowTheShareOfDarkAndBrightPixels() {
        // Luminance: 60 % under 64, 40 % at or over 230.
        var luminance = [Int](repeating: 0, count: 256)
        luminance[10] = 600
        luminance[240] = 400
        let chosen = AutoAdjustment.choose(histogram: luminance, luminance: luminance, meanSaturation: 0.2, workingSpace: .sRGB)
        XCTAssertEqual(chosen.shadowAmount, 0.75 * (0.6 - 0.2), accuracy: 0.00005)
        XCTAssertEqual(chosen.highlightAmount, 1 - 0.75 * (0.4 - 0.2), accuracy: 0.00005)
        XCTAssertEqual(chosen.vibranceAmount, 0.1, accuracy: 0.00005)
        // Far past the bounds: clamped.
        luminance[10] = 1000
        luminance[240] = 0
        let dark = AutoAdjustment.choose(histogram: luminance, luminance: luminance, meanSaturation: .nan, workingSpace: .sRGB)
        XCTAssertEqual(dark.shadowAmount, 0.5)
        XCTAssertEqual(dark.highlightAmount, 1)
        XCTAssertEqual(dark.vibranceAmount, 0, "no measurement: no change")
    }

    func testAnEmptyHistogramChoosesWithoutTrapping() {
        let chosen = AutoAdjustment.choose(histogram: [], luminance: [], meanSaturation: 0, workingSpace: .sRGB)
        XCTAssertEqual(chosen.toneCurve.count, 5)
        XCTAssertTrue(chosen.toneCurve.allSatisfy { $0.allSatisfy(\.isFinite) })
    }

    // MARK: k-means

    func testKMeansFindsTheColoursAndTheirShares() {
        // 70 pixels of (200, 10, 10), 20 of (10, 10, 200), 10 of (10, 200, 10), interleaved RGB.
        var pixels: [UInt8] = []
        for _ in 0..<70 { pixels += [200, 10, 10] }
        for _ in 0..<20 { pixels += [10, 10, 200] }
        for _ in 0..<10 { pixels += [10, 200, 10] }
        let clusters = DominantColors.clusters(of: pixels, bands: 3)
        XCTAssertEqual(clusters.count, 3, "three colours: seeding stops when nothing lies apart")
        XCTAssertEqual(clusters.map(\.fraction), [0.7, 0.2, 0.1])
        XCTAssertEqual(clusters.map(\.centre), [SIMD3(200, 10, 10), SIMD3(10, 10, 200), SIMD3(10, 200, 10)])
        XCTAssertEqual(DominantColors.clusters(of: pixels, bands: 3), clusters, "deterministic")
    }

    func testKMeansLeavesOutTransparentPixelsAndOddInput() {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 0, 255, 0, 9, 9, 9]  // one red, one transparent blue, a partial pixel
        let clusters = DominantColors.clusters(of: pixels, bands: 4)
        XCTAssertEqual(clusters.count, 1)
        XCTAssertEqual(clusters.first?.fraction, 1)
        XCTAssertEqual(DominantColors.clusters(of: [], bands: 3), [])
        XCTAssertEqual(DominantColors.clusters(of: [1, 2], bands: 1), [])
    }

    // MARK: manifest

    func testManifestLinesWithAnalysisAndAutoAdjustRoundTrip() throws {
        let line = ##"{"job":"j","item":"a.png","input":"/in/a.png","status":"succeeded","mediaType":"image","output":"/out/a.png","##
            + ##""analysis":{"averageColor":[0.5,0.25,0,1],"averageColorHex":"#804000","histogram":{"bins":256,"red":[1,2],"green":[3],"blue":[4],"luminance":[5]},"##
            + ##""dominantColors":[{"color":"#ff0000","fraction":0.6},{"color":"#0000ff","fraction":0.4}]},"##
            + ##""autoAdjust":{"CIVibrance":{"inputAmount":0.1},"CIToneCurve":{"inputPoint0":[0.2,0],"inputPoint1":[0.3,0.25],"##
            + ##""inputPoint2":[0.4,0.5],"inputPoint3":[0.5,0.75],"inputPoint4":[0.6,1]},"##
            + ##""CIHighlightShadowAdjust":{"inputShadowAmount":0.2,"inputHighlightAmount":0.9}}}"##
        let record = try ManifestRecord(line: line)
        XCTAssertEqual(record.analysis?.dominantColors?.first?.fraction, 0.6)
        XCTAssertEqual(record.autoAdjust?.toneCurve[4], [0.6, 1])
        XCTAssertEqual(record.line, line, "written back byte for byte (merge and incremental runs rewrite lines)")
        // A line from before these fields, and one whose fields are damaged, still read.
        let old = try ManifestRecord(line: #"{"job":"j","item":"a.png","input":"/in/a.png","status":"succeeded"}"#)
        XCTAssertNil(old.analysis)
        XCTAssertNil(old.autoAdjust)
        let damaged = try ManifestRecord(line: #"{"status":"failed","analysis":7,"autoAdjust":{"CIVibrance":1}}"#)
        XCTAssertNil(damaged.analysis)
        XCTAssertNil(damaged.autoAdjust)
    }

    // MARK: pipeline

    func testSettingsSeeTheImageAnalysesAndAutoAdjustOnly() throws {
        let folder = NSTemporaryDirectory() + "medley-analyze-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func settings(_ extra: String) throws -> JobSettings {
            try XCTUnwrap(try PipelineReader.parse("""
                version: 1
                jobs:
                  - name: j
                    ingest: { from: [in], media: [image] }
                \(extra)
                    export: { to: out, format: png }
                """, file: "p.yaml", directory: folder).jobs.first).settings
        }
        let plain = try settings("")
        let analysed = try settings("    analyze: [histogram, averageColor]")
        let reordered = try settings("    analyze: [averageColor, histogram]")
        let enhanced = try settings("    autoAdjust: { enhance: true }")
        XCTAssertNotEqual(plain.image, analysed.image)
        XCTAssertEqual(analysed.image, reordered.image, "the order of the list does not change an output")
        XCTAssertNotEqual(plain.image, enhanced.image)
        XCTAssertFalse(plain.image.contains("autoAdjust") || plain.image.contains("analyze"),
                       "a job without them hashes as before they existed")
    }

    func testAutoAdjustAloneMakesAJobOfImages() throws {
        let folder = NSTemporaryDirectory() + "medley-analyze-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let job = try XCTUnwrap(try PipelineReader.parse("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [in] }
                autoAdjust: { enhance: true }
                analyze: dominantColors
                export: { to: out, format: png }
            """, file: "p.yaml", directory: folder).jobs.first)
        XCTAssertEqual(job.ingest.media, [.image])
        XCTAssertEqual(job.autoAdjust, AutoAdjustSettings(enhance: true))
        XCTAssertEqual(job.imageAnalyses, [.dominantColors])
    }
}
