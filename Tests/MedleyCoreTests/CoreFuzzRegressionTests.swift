import Foundation
import XCTest
@testable import MedleyCore
import MedleyTestSupport
import MedleyYAML

/// Replays every input the fuzz targets over MedleyCore ever failed on (Tests/regressions/fuzz/
/// {template,pipeline,where,manifest}/, saved by scripts/fuzz.sh) through the entry points the product
/// uses, with the properties the targets check (Fuzz/Core, Fuzz/CoreSPM): validation ends in a pipeline
/// or in diagnostics that point into the file; a manifest line that reads, written again, reads back
/// as the same line, and the quick input scan agrees with the decoder (JSONSerialization's reading).
final class CoreFuzzRegressionTests: XCTestCase {
    static func text(_ file: URL) throws -> String { String(decoding: try Data(contentsOf: file), as: UTF8.self) }

    func testSavedTemplatesAndPipelines() throws {
        for file in FuzzRegressions.files("template") {
            _ = try? NameTemplate(try Self.text(file), knownProperties: ["artist", "title", "year"])
        }
        for file in FuzzRegressions.files("pipeline") {
            do {
                _ = try PipelineReader.parse(try Self.text(file), file: "fuzz.yaml", directory: "/nonexistent/medley-fuzz")
            } catch let failure as ValidationFailure {
                XCTAssertFalse(failure.diagnostics.isEmpty, file.lastPathComponent)
                for diagnostic in failure.diagnostics {
                    XCTAssertGreaterThanOrEqual(diagnostic.mark.line, 1, file.lastPathComponent)
                    XCTAssertGreaterThanOrEqual(diagnostic.mark.column, 1, file.lastPathComponent)
                }
            }
        }
        for file in FuzzRegressions.files("where") {
            guard let node = try? YAMLReader.parse(try Self.text(file)) else { continue }
            let reader = SchemaReader(sink: DiagnosticSink(file: "fuzz.yaml"), directory: "/nonexistent/medley-fuzz")
            _ = reader.whereClause(node)?.matches { $0 == "year" ? .integer(1999) : .text("x") }
        }
    }

    func testSavedManifestLinesReadBackAsWritten() throws {
        let files = FuzzRegressions.files("manifest")
        XCTAssertFalse(files.isEmpty, "the regression folder is there")
        for file in files {
            let data = try Data(contentsOf: file)
            _ = ManifestRecord.input(ofLine: [UInt8](data))
            guard let record = try? JSONDecoder().decode(ManifestRecord.self, from: data) else { continue }
            let line = record.line
            let again = try ManifestRecord(line: line)
            XCTAssertEqual(again.line, line, file.lastPathComponent)
            let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(ManifestRecord.input(ofLine: Array(line.utf8)), parsed["input"] as? String, file.lastPathComponent)
        }
    }
}
