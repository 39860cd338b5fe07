import Foundation
import MedleyCore
import XCTest

/// Pipelines written as text in a temporary folder (with a `photos/` folder to ingest from), read back as
/// jobs or as the diagnostics they produce.
class PipelineTextCase: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-stages-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Every diagnostic as `p.yaml:LINE:COL: error: message; suggestion`; empty when the pipeline is valid.
    func diagnostics(_ text: String) -> [String] {
        do {
            _ = try PipelineReader.parse(text, file: "p.yaml", directory: folder)
            return []
        } catch let failure as ValidationFailure {
            return failure.diagnostics.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    /// The only job of a valid pipeline.
    func job(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> Job {
        do {
            let pipeline = try PipelineReader.parse(text, file: "p.yaml", directory: folder)
            return try XCTUnwrap(pipeline.jobs.first, file: file, line: line)
        } catch let failure as ValidationFailure {
            XCTFail("invalid pipeline:\n\(failure)", file: file, line: line)
            throw failure
        }
    }

    /// A one-job pipeline whose job has `stage` (e.g. "where: { genre: rock }") under the ingest line.
    func oneJob(_ stage: String) -> String {
        """
        version: 1
        jobs:
          - name: j
            ingest: { from: [photos] }
            export: { to: out }
            \(stage)
        """
    }

    /// Asserts that `found` holds exactly the expected diagnostics (each given as its start), in order.
    func assertDiagnostics(_ found: [String], _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(found.count, expected.count, "found:\n" + found.joined(separator: "\n"), file: file, line: line)
        for (got, prefix) in zip(found, expected) {
            XCTAssertTrue(got.hasPrefix(prefix), "\(got)\n  does not start with\n\(prefix)", file: file, line: line)
        }
    }
}
