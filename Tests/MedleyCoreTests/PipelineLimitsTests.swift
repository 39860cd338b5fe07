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
        let text = "version: 1\njobs: " + String(repeating: "[", count: 50_000)
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
}
