import Foundation
import XCTest
@testable import MedleyCore
import MedleyMedia
import MedleyTestSupport
import MedleyYAML

/// Replays every input the fuzz targets over MedleyCore ever failed on (Tests/regressions/fuzz/
/// {template,pipeline,where,manifest,metadata}/, saved by scripts/fuzz.sh) through the entry points the
/// product uses, with the properties the targets check (Fuzz/Core, Fuzz/CoreSPM): validation ends in a
/// pipeline or in diagnostics that point into the file; a manifest line that reads, written again, reads
/// back as the same line, and the quick input scan agrees with the decoder (JSONSerialization's reading);
/// metadata read as a file's and as a sidecar's gives properties each named once.
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

    /// Each property name once, none empty.
    static func assertNamedOnce(_ properties: [(name: String, value: TemplateValue)], _ file: String) {
        var seen = Set<String>()
        for (name, _) in properties {
            XCTAssertFalse(name.isEmpty, file)
            XCTAssertTrue(seen.insert(name).inserted, "\(file): \(name) twice")
        }
    }

    /// The metadata target's inputs, and its committed seed of edge values (Fuzz/seeds/metadata), whose
    /// properties are checked against XMP's GPSCoordinate formula (degrees + minutes / 60 + seconds / 3600,
    /// S and W negative) and its LangAlt rule (the x-default entry).
    func testSavedMetadataReadsIntoPropertiesNamedOnce() throws {
        let seeds = FuzzRegressions.root.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/seeds/metadata")
        let seedFiles = ((try? FileManager.default.contentsOfDirectory(atPath: seeds.path)) ?? []).sorted().map { seeds.appendingPathComponent($0) }
        XCTAssertFalse(seedFiles.isEmpty, "the committed seeds are there")
        for file in FuzzRegressions.files("metadata") + seedFiles {
            guard let metadata = try? ImageMetadata.open(bytes: [UInt8](try Data(contentsOf: file)), origin: file.path) else { continue }
            let tags = metadata.tags
            Self.assertNamedOnce(MetadataProperties.properties(file: tags, sidecar: nil), file.lastPathComponent)
            Self.assertNamedOnce(MetadataProperties.properties(file: [], sidecar: tags.filter { $0.family == .xmp }), file.lastPathComponent)
        }
        let edge = try ImageMetadata.open(bytes: [UInt8](try Data(contentsOf: seeds.appendingPathComponent("edge-values.xmp"))))
        let properties = Dictionary(MetadataProperties.properties(file: [], sidecar: edge.tags).map { ($0.name, $0.value) }) { first, _ in first }
        func number(_ value: TemplateValue?) -> Double {
            if case .number(let number)? = value { return number }
            return .nan
        }
        XCTAssertEqual(number(properties["gps.latitude"]), 48 + 51.462 / 60, accuracy: 1e-9)
        XCTAssertEqual(number(properties["gps.longitude"]), -(2 + 17.0 / 60 + 30.0 / 3600), accuracy: 1e-9)
        XCTAssertEqual(properties["title"]?.text, "Pier, at dusk")
        XCTAssertEqual(properties["rating"], .integer(4))
    }
}
