import Foundation
import XCTest

/// Pipelines and media made to exhaust memory or the stack, or to write to the terminal: each is
/// refused (exit 2, nothing written) or fails its item, under limits that keep a regression from
/// taking the machine down.
final class HostilePipelineTests: EndToEndCase {
    /// Runs medley with at most 2 GB of address space, so an alias bomb that got through would
    /// fail to allocate instead of exhausting the machine.
    func medleyLimited(_ arguments: [String]) throws -> Tool.Result {
        try Tool.run("bash", ["-c", "ulimit -v 2000000; exec \"$0\" \"$@\"", Tool.medley] + arguments)
    }

    /// Ten aliases on each of nine levels: 10^10 nodes if expanded.
    func testAnAliasBombIsRefusedBeforeItExpands() throws {
        var lines = ["version: 1", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ",") + "]")
        }
        lines.append("jobs: [{ name: x, ingest: { from: [in] }, filters: [CISepiaTone], export: { to: out } }]")
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = try pipeline(lines.joined(separator: "\n") + "\n", name: "bomb.yaml")
        for command in ["validate", "run"] {
            let result = try medleyLimited([command, path])
            XCTAssertEqual(result.status, 2, "\(command): \(result.stderr)")
            // The root, version and a0…a4 make 123,463 nodes; on line 7 the 8th *a4 passes
            // 1,000,000, at column 10 + 4·7.
            XCTAssertTrue(result.stderr.hasPrefix(path + ":7:38: error: the alias *a4 (111,111 nodes) makes the file expand to more than 1,000,000 nodes"),
                          "\(command): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }

    /// 50,000 nested lists would overflow the stack of a recursive reader.
    func testDeepNestingIsRefusedWithItsPlace() throws {
        let path = try pipeline("version: 1\njobs: " + String(repeating: "[", count: 50_000) + "\n")
        let result = try medleyLimited(["validate", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        // The root mapping is level 1; the 64th "[" (column 6 + 64) opens level 65.
        XCTAssertTrue(result.stderr.hasPrefix(path + ":2:70: error: lists and mappings nest more than 64 levels deep here"),
                      result.stderr)
    }
}
