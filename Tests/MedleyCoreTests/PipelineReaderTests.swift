import Foundation
import MedleyCore
import MedleyKernels
import XCTest

/// Validation: every problem at once, each at the FILE:LINE:COL counted by hand from the text.
final class PipelineReaderTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-reader-\(UUID().uuidString)"
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

    func testValidPipelineBecomesATypedModel() throws {
        let pipeline = try PipelineReader.parse("""
            version: 1
            jobs:
              - name: sepia
                ingest: { from: [photos], media: [image], include: ["*.jpg"], exclude: ["**/thumbs/**"] }
                filters:
                  - CISepiaTone: { inputIntensity: 0.8 }
                  - CISepiaTone
                colorSpace: none
                export: { to: out, format: png, quality: 90, name: "{relpath}/{stem}.{ext}", strip: true }
            """, file: "p.yaml", directory: folder)
        let job = try XCTUnwrap(pipeline.jobs.first)
        XCTAssertEqual(job.name, "sepia")
        XCTAssertEqual(job.ingest.roots, [folder + "/photos"])
        XCTAssertEqual(job.ingest.media, [.image])
        XCTAssertTrue(job.ingest.include[0].matches("a/B.JPG"))
        XCTAssertEqual(job.workingSpace, Transfer.none)
        let graph = try XCTUnwrap(job.imageGraph)
        XCTAssertEqual(graph.nodes.map(\.filter), ["CISepiaTone", "CISepiaTone"])
        XCTAssertEqual(graph.nodes[1].imageInputs.first?.source, "step1")
        XCTAssertEqual(graph.output, "step2")
        let export = try XCTUnwrap(job.export)
        XCTAssertEqual(export.to, folder + "/out")
        XCTAssertEqual(export.quality, 90)
        XCTAssertTrue(export.strip)
        XCTAssertTrue(export.autoOrient)
        XCTAssertEqual(export.overwrite, .replace)
    }

    func testEveryMistakeIsReportedAtItsPlaceWithASuggestion() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: sepia
                ingest:
                  from: [photos, nowhere]
                  recurse: true
                filters:
                  - CISepiaTon: { inputIntensity: 0.8 }
                  - CISepiaTone: { inputIntensty: 0.5, inputIntensity: -1 }
                export: { to: out, formt: jpeg, quality: 0 }
            """)
        let expected = [
            "p.yaml:5:22: error: ingest.from: no such file or folder 'nowhere'",
            "p.yaml:6:7: error: unknown key 'recurse' in ingest; did you mean 'recursive'?",
            "p.yaml:8:9: error: unknown filter 'CISepiaTon'; did you mean 'CISepiaTone'?",
            "p.yaml:9:24: error: CISepiaTone has no parameter 'inputIntensty'; did you mean 'inputIntensity'?",
            "p.yaml:9:60: error: CISepiaTone.inputIntensity = -1 is out of range: it must be ≥ 0 and ≤ 1",
            "p.yaml:10:24: error: unknown key 'formt' in export; did you mean 'format'?",
            "p.yaml:10:46: error: export.quality must be 1…100, not 0",
        ]
        XCTAssertEqual(found.count, expected.count, found.joined(separator: "\n"))
        for (line, prefix) in zip(found, expected) {
            XCTAssertTrue(line.hasPrefix(prefix), "\(line)\n  does not start with\n\(prefix)")
        }
    }

    func testGraphCyclesAndDanglingReferencesAreErrors() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: g
                ingest: { from: [photos] }
                graph:
                  a: { filter: CISepiaTone, inputImage: b }
                  b: { filter: CISepiaTone, inputImage: a }
                  output: { filter: CISepiaTone, inputImage: tonde }
                export: { to: out }
            """)
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:8:50: error: output.inputImage refers to 'tonde', which is not a node of this graph") },
                      found.joined(separator: "\n"))
        let cyclic = diagnostics("""
            version: 1
            jobs:
              - name: g
                ingest: { from: [photos] }
                graph:
                  a: { filter: CISepiaTone, inputImage: b }
                  b: { filter: CISepiaTone, inputImage: a }
                  output: { filter: CISepiaTone, inputImage: a }
                export: { to: out }
            """)
        XCTAssertEqual(cyclic.count, 1, cyclic.joined(separator: "\n"))
        XCTAssertTrue(cyclic.first?.contains("error: the graph has a cycle: ") == true, cyclic.joined())
        XCTAssertTrue(cyclic.first?.contains("a → b → a") == true || cyclic.first?.contains("b → a → b") == true, cyclic.joined())
    }

    func testTyposInStagesAreAllReported() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: podcasts
                ingest: { from: [photos] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC, AVSampleRatKey: 44100, videoQuality: typeHi }
                report: { to: out/report, thumbnale: true }
                poster: { at: "120%" }
                export: { to: out }
            """)
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:6:31: error: unknown key 'thumbnale' in report; did you mean 'thumbnails'?") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:5:51: error: unknown key 'AVSampleRatKey' in transcode; did you mean 'AVSampleRateKey'?") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:5:88: error: unknown videoQuality 'typeHi'; did you mean 'typeHigh'?") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:7:19: error: poster.at as a share of the movie is 0% to 100%, not '120%'") }, found.joined(separator: "\n"))
    }

    func testSyntaxErrorsPointAtTheirLine() {
        let found = diagnostics("version: 1\njobs:\n  - name: [unclosed\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].hasPrefix("p.yaml:4:1: error: YAML syntax error"), found[0])
    }

    func testMissingPartsAndWrongTypes() {
        let found = diagnostics("""
            jobs:
              - ingest: { from: photos, recursive: maybe }
                filters: { CISepiaTone: {} }
            """)
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:1:1: error: missing 'version'") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:2:5: error: a job without a 'name'") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:2:40: error: ingest.recursive must be true or false, found 'maybe'") }, found.joined(separator: "\n"))
        XCTAssertTrue(found.contains { $0.hasPrefix("p.yaml:3:14: error: 'filters' must be a list of filters") }, found.joined(separator: "\n"))
    }

    func testOverridesChangeAJobBeforeValidation() throws {
        let text = """
            version: 1
            jobs:
              - name: sepia
                ingest: { from: [photos] }
                filters: [CISepiaTone]
                export: { to: out, quality: 80 }
            """
        let pipeline = try PipelineReader.parse(text, file: "p.yaml", directory: folder,
                                                overrides: ["sepia.export.quality=95", "sepia.export.format=png"])
        XCTAssertEqual(pipeline.jobs[0].export?.quality, 95)
        XCTAssertEqual(pipeline.jobs[0].export.map { "\($0.format)" }, "image(MedleyMedia.ImageFormat.png)")
        XCTAssertEqual(diagnostics(text, overrides: ["sepia.export.quality=500"]).count, 1)
        XCTAssertTrue(diagnostics(text, overrides: ["nojob.export.quality=5"])[0].contains("there is no job named 'nojob'"))
    }
}
