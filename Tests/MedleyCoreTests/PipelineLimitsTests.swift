import Foundation
import MedleyCore
import XCTest

/// Pipelines written to exhaust memory or the stack are refused at validation, each at the
/// FILE:LINE:COL counted by hand from the text.
final class PipelineLimitsTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-limits-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func diagnostics(_ text: String, overrides: [String] = []) -> [String] {
        do {
            _ = try PipelineReader.parse(text, file: "p.yaml", directory: folder, overrides: overrides)
            return []
        } catch let failure as ValidationFailure {
            return failure.diagnostics.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    /// "Billion laughs": level 0 is a list of ten scalars, each further level a list of ten
    /// aliases of the one before, so level k expands to (10^(k+2) − 1)/9 nodes.
    static func aliasBomb(levels: Int) -> String {
        var lines = ["version: 1", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1..<levels {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ",") + "]")
        }
        lines.append("jobs: []")
        return lines.joined(separator: "\n")
    }

    func testAnAliasBombIsRefusedAtTheAliasThatCrossesTheLimit() {
        // Nodes counted by hand, in file order: the root mapping and version: 1 make 3; each
        // key adds 1 and level k adds 11, 111, 1111, …: after a4 the total is 123,463. Line 7
        // (a5) adds its key and list (123,465), then each *a4 adds 111,111; the 8th alias
        // makes 1,012,353, over 1,000,000. "a5: &a5 [" is 9 columns; alias n starts at 10 + 4(n − 1).
        // Six levels are enough to cross the limit and cheap if a regression expanded them all;
        // the nine-level bomb runs in HostilePipelineTests under a memory limit.
        let text = Self.aliasBomb(levels: 6)
        XCTAssertEqual(diagnostics(text), [
            "p.yaml:7:38: error: the alias *a4 (111,111 nodes) makes the file expand to more than 1,000,000 nodes; "
                + "aliases of aliases grow exponentially; write the repeated part once per use, or alias it fewer times",
        ])
    }

    func testAliasesWithinTheLimitStillExpand() throws {
        let pipeline = try PipelineReader.parse("""
            version: 1
            jobs:
              - name: a
                ingest: &in { from: [photos] }
                filters: [ CISepiaTone: &tone { inputIntensity: 0.25 } ]
                export: { to: out-a }
              - name: b
                ingest: *in
                filters: [ CISepiaTone: *tone ]
                export: { to: out-b }
            """, file: "p.yaml", directory: folder)
        XCTAssertEqual(pipeline.jobs.map { $0.ingest.roots }, [[folder + "/photos"], [folder + "/photos"]])
        XCTAssertEqual(pipeline.jobs[1].imageGraph?.nodes.first?.parameters.first?.value, .number(0.25))
    }

    func testBadAliasesAreErrorsAtTheAlias() {
        XCTAssertEqual(diagnostics("version: 1\njobs: [*nowhere]"), [
            "p.yaml:2:8: error: the alias *nowhere refers to no anchor &nowhere written before it",
        ])
        XCTAssertEqual(diagnostics("version: 1\njobs: &loop [ [ *loop ] ]"), [
            "p.yaml:2:17: error: the alias *loop refers to a node that contains it",
        ])
        XCTAssertEqual(diagnostics("version: 1\na: &x 1\nb: &x 2\njobs: []"), [
            "p.yaml:3:4: error: the anchor &x is defined twice",
        ])
    }

    func testNestingDeeperThanTheLimitIsRefusedAtTheFirstLevelTooDeep() {
        // The root mapping is level 1; "jobs: " is 6 columns, so the n-th "[" is at column 6 + n
        // and level n + 1. Level 65 is the 64th "[", at column 70.
        let text = "version: 1\njobs: " + String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)
        XCTAssertEqual(diagnostics(text), [
            "p.yaml:2:70: error: lists and mappings nest more than 64 levels deep here; "
                + "a pipeline needs about ten levels; look for unclosed '[' or '{'",
        ])
        // 64 levels are fine as YAML (the schema then says what is wrong with the first job).
        let deepest = "version: 1\njobs: " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        XCTAssertEqual(diagnostics(deepest), ["p.yaml:2:8: error: a job must be a mapping of keys to values, found a list"])
    }

    func testASetPathDeeperThanAnyKeyIsRefused() {
        let path = "a." + Array(repeating: "k", count: 40).joined(separator: ".")
        XCTAssertEqual(diagnostics("version: 1\njobs: [{name: a, ingest: {from: [photos]}, filters: [CISepiaTone], export: {to: out}}]", overrides: [path + "=1"]), [
            "p.yaml:1:1: error: --set: a key path of 41 parts is longer than any pipeline key; "
                + "a key path has at most 32 parts, like my-job.export.quality",
        ])
    }

    func testAChainOfMoreThanAThousandFiltersIsRefusedAtTheFirstOneTooMany() {
        // Line 5 is "filters:", so filter n is on line 5 + n; "      - " puts its name at column 9.
        let text = """
            version: 1
            jobs:
              - name: long
                ingest: { from: [photos] }
                filters:
            """ + "\n" + String(repeating: "      - CISepiaTone\n", count: 30_000) + "    export: { to: out }\n"
        XCTAssertEqual(diagnostics(text), [
            "p.yaml:1006:9: error: 'filters' has 30000 filters, more than the 1000 a chain may have; "
                + "split the work into several jobs, one exporting into the next one's ingest folder",
        ])
        let thousand = text.replacingOccurrences(of: String(repeating: "      - CISepiaTone\n", count: 30_000),
                                                 with: String(repeating: "      - CISepiaTone\n", count: 1000))
        XCTAssertEqual(diagnostics(thousand), [])
    }

    func testAGraphOfMoreThanAThousandNodesIsRefusedAtTheFirstOneTooMany() {
        // Node n (from 1) is on line 5 + n, its name at column 7.
        let nodes = (1...1001).map { "      n\($0): { filter: CISepiaTone, inputImage: \($0 == 1 ? "input" : "n\($0 - 1)") }" }
        let text = """
            version: 1
            jobs:
              - name: wide
                ingest: { from: [photos] }
                graph:
            """ + "\n" + nodes.joined(separator: "\n") + "\n    export: { to: out }\n"
        XCTAssertEqual(diagnostics(text), [
            "p.yaml:1006:7: error: 'graph' has 1001 nodes, more than the 1000 a graph may have; "
                + "split the work into several jobs, one exporting into the next one's ingest folder",
        ])
    }

    /// Each node blends the one before with itself, so the recipe of node k (from 0) has
    /// 2^(k+1) − 1 steps: node 9 is the first over 1000 (1023). Its "filter:" value is on line
    /// 6 + 9 = 15, at column 21 (after the 20 characters of "      n9: { filter: ").
    func testAGraphWhoseRecipeDoublesAtEveryNodeIsRefusedWhereItPassesTheLimit() {
        let nodes = ["      n0: { filter: CISepiaTone, inputImage: input }"] + (1...20).map {
            "      n\($0): { filter: CIScreenBlendMode, inputImage: n\($0 - 1), inputBackgroundImage: n\($0 - 1) }"
        }
        let text = """
            version: 1
            jobs:
              - name: doubling
                ingest: { from: [photos] }
                graph:
            """ + "\n" + nodes.joined(separator: "\n") + "\n    export: { to: out }\n"
        XCTAssertEqual(diagnostics(text), [
            "p.yaml:15:21: error: node 'n9' would run more than 1000 filter steps: a node that feeds several others is "
                + "rendered once for each; use fewer nodes that feed the same node twice, or split the work into several jobs",
        ])
    }

    /// One job whose chain is `filter` (the text after "- "), on line 5 from column 9.
    func filterDiagnostics(_ filter: String, limits: String = "") -> [String] {
        diagnostics("""
            version: 1
            jobs:
              - name: p
                ingest: { from: [photos] }
                filters:
                  - \(filter)
                export: { to: out }\(limits)
            """)
    }

    func testParametersThatWouldOverflowOrExhaustMemoryAreValidationErrors() {
        // "      - CIGaussianBlur: { inputRadius: " is 39 characters: the value is at column 40.
        XCTAssertEqual(filterDiagnostics("CIGaussianBlur: { inputRadius: 1e19 }"), [
            "p.yaml:6:40: error: CIGaussianBlur.inputRadius = 1e+19 is over Medley's limit of 300: "
                + "a blur reaches 3 × its radius on every side, and a wider one needs hundreds of MB per tile; useful values are 0…100",
        ])
        XCTAssertEqual(filterDiagnostics("CIUnsharpMask: { inputRadius: 301 }").first?.hasPrefix(
            "p.yaml:6:39: error: CIUnsharpMask.inputRadius = 301 is over Medley's limit of 300"), true)
        XCTAssertEqual(filterDiagnostics("CIGaussianBlur: { inputRadius: 300 }"), [])
        XCTAssertEqual(filterDiagnostics("CIPixellate: { inputScale: 1e19 }"), [
            "p.yaml:6:36: error: CIPixellate.inputScale = 1e+19 is over Medley's limit of 1000: every tile reads the whole "
                + "cells it touches, and larger cells need hundreds of MB per tile; useful values are 1…100",
        ])
        XCTAssertEqual(filterDiagnostics("resize: { width: 1e19 }"), [
            "p.yaml:6:26: error: resize.width = 1e+19 is over Medley's limit of 10000000: no image side can be longer "
                + "than 10,000,000 pixels (libvips' limit); useful values are 16…8192",
        ])
        XCTAssertEqual(filterDiagnostics("CILanczosScaleTransform: { inputScale: 1e19 }").first?.hasPrefix(
            "p.yaml:6:48: error: CILanczosScaleTransform.inputScale = 1e+19 is over Medley's limit of 10000000"), true)
        // Filters compute in Float, whose largest value is 3.4e38: 1e300 would be infinity.
        XCTAssertEqual(filterDiagnostics("CIAffineTransform: { inputTransform: [1e300, 0, 0, 1e300, 0, 0] }"), [
            "p.yaml:6:46: error: CIAffineTransform.inputTransform = 1e+300 is beyond what filters compute with (32-bit floats, ±3.4e38)",
        ])
        XCTAssertEqual(filterDiagnostics("CIExposureAdjust: { inputEV: -1e39 }"), [
            "p.yaml:6:38: error: CIExposureAdjust.inputEV = -1e+39 is beyond what filters compute with (32-bit floats, ±3.4e38); useful values are -10…10",
        ])
        // CICrop's own default, an infinite rectangle, may still be written out.
        XCTAssertEqual(filterDiagnostics("CICrop: { inputRectangle: [-8.98847e307, -8.98847e307, 1.79769e308, 1.79769e308] }"), [])
    }

    func testAResizeThatFillsABoxOverThePixelLimitIsAValidationError() {
        // 20000 × 20000 = 400 MP, over the default 268 MP; at the filter's name (column 9).
        XCTAssertEqual(filterDiagnostics("resize: { width: 20000, height: 20000, mode: fill }"), [
            "p.yaml:6:9: error: resize to 20000 × 20000 (fill) makes images of 400 MP, over the 268 MP limit (limits.maxPixels); "
                + "a smaller box, or a higher limits.maxPixels",
        ])
        XCTAssertEqual(filterDiagnostics("resize: { width: 2000, height: 1000, mode: aspectFill }", limits: "\n    limits: { maxPixels: 1000000 }"), [
            "p.yaml:6:9: error: resize to 2000 × 1000 (aspectFill) makes images of 2 MP, over the 1 MP limit (limits.maxPixels); "
                + "a smaller box, or a higher limits.maxPixels",
        ])
        // aspectFit stays inside the box, so only the image can tell: checked when it is rendered.
        XCTAssertEqual(filterDiagnostics("resize: { width: 20000, height: 20000 }"), [])
    }

    /// A transcode job with `setting` (one line, at column 17 on line 5).
    func transcodeDiagnostics(_ setting: String) -> [String] {
        diagnostics("""
            version: 1
            jobs:
              - name: a
                ingest: { from: [photos] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC, \(setting) }
                export: { to: out }
            """)
    }

    func testLevelsInDecibelsMustBeFiniteAndSane() {
        // "    transcode: { AVFormatIDKey: kAudioFormatFLAC, gain: " is 56 characters.
        for level in ["nandB", "infdB", "-infdB", "1e400dB", "121dB", "-200 dB"] {
            XCTAssertEqual(transcodeDiagnostics("gain: \(level)"), [
                "p.yaml:5:57: error: gain is a level from -120dB to +120dB, like -3dB, not '\(level)'; "
                    + "±120 dB spans the whole range of 24-bit audio; beyond it is silence or noise",
            ], level)
        }
        XCTAssertEqual(transcodeDiagnostics("gain: -120dB"), [])
        // "… normalize: { peak: " is 69 characters.
        for level in ["nan", "-infdBFS", "-1e400dBFS", "-121dBFS", "1dBFS"] {
            XCTAssertEqual(transcodeDiagnostics("normalize: { peak: \(level) }"), [
                "p.yaml:5:70: error: normalize takes {peak: LEVEL} with a level from -120 to 0 dBFS, like {peak: -1dBFS}",
            ], level)
        }
        XCTAssertEqual(transcodeDiagnostics("normalize: { peak: -120dBFS }"), [])
    }

    func testJobNamesThatShareTheirFilesAreRefusedAtTheSecond() {
        // The second name is on line 7; "  - name: " puts it at column 11.
        XCTAssertEqual(diagnostics("""
            version: 1
            jobs:
              - name: a b
                ingest: { from: [photos] }
                filters: [ CISepiaTone ]
                export: { to: out }
              - name: a_b
                ingest: { from: [photos] }
                filters: [ CISepiaTone ]
                export: { to: out }
            """), [
            "p.yaml:7:11: error: job names 'a b' (line 3) and 'a_b' are the same as file names (manifest-a_b.jsonl): "
                + "the second would overwrite the first one's files; job names that differ in letters, digits, '.', '_' or '-'",
        ])
    }

    func testAJobNameLongerThanAFileNameCanHoldIsRefused() {
        let name = String(repeating: "n", count: 5000)
        XCTAssertEqual(diagnostics("version: 1\njobs:\n  - { name: \(name), ingest: { from: [photos] }, filters: [CISepiaTone], export: { to: out } }"), [
            "p.yaml:3:13: error: a job name of 5000 characters is longer than the 100 allowed; "
                + "Medley names its files for a job after it; use a shorter name",
        ])
        let longest = String(repeating: "n", count: 100)
        XCTAssertEqual(diagnostics("version: 1\njobs:\n  - { name: \(longest), ingest: { from: [photos] }, filters: [CISepiaTone], export: { to: out } }"), [])
    }
}
