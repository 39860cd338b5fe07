import Foundation
import XCTest

/// Every file in fixtures/pipelines/malformed marks, by hand, the line its mistake is on
/// (`# ← error`). `medley run` must exit 2, report FILE:LINE:COL on that line with a message, and
/// write nothing.
final class MalformedPipelineTests: EndToEndCase {
    func testEachMalformedPipelineIsRefusedAtItsLineAndWritesNothing() throws {
        let folder = Tool.fixtures + "/pipelines/malformed"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 30)
        for name in names {
            // A private copy, so an `out` folder written by mistake would show up here.
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                .replacingOccurrences(of: "../../", with: Tool.fixtures + "/")
            let path = try pipeline(text, name: name)
            let marked = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { $0.element.hasSuffix("# ← error") }.map { $0.offset + 1 }
            XCTAssertEqual(marked.count, 1, "\(name) marks one line")
            let result = try Tool.medley(["run", path])
            XCTAssertEqual(result.status, 2, "\(name): \(result.stderr)")
            let located = result.stderr.split(separator: "\n").filter { $0.hasPrefix(path + ":") }
            XCTAssertFalse(located.isEmpty, "\(name): no FILE:LINE:COL in\n\(result.stderr)")
            let lines = located.compactMap { line -> Int? in
                let parts = line.dropFirst(path.count + 1).split(separator: ":", maxSplits: 2)
                guard parts.count == 3, let row = Int(parts[0]), let column = Int(parts[1]), column >= 1,
                      parts[2].count > 3 else { return nil }
                return row
            }
            XCTAssertTrue(lines.contains(marked.first ?? -1), "\(name): expected line \(marked), got\n\(result.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work).sorted(), [name], "\(name) wrote something")
            try FileManager.default.removeItem(atPath: path)
        }
    }
}
