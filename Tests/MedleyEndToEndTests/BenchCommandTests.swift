import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `medley bench --quick`: every case runs against the installed peers, and what it writes parses.
/// (The numbers themselves are never asserted: a slow machine is not a failure.)
final class BenchCommandTests: EndToEndCase {
    func testQuickBenchRunsEveryCaseAndWritesParsableResults() throws {
        let out = work + "/bench"
        let result = try Tool.medley(["bench", "--quick", "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)

        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/results.json"))) as? [String: Any])
        let cases = try XCTUnwrap(json["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.compactMap { $0["name"] as? String }, ["sepia", "thumbnails", "blur", "aac", "resample", "probe"])
        let repeats = try XCTUnwrap(json["repeats"] as? Int)
        XCTAssertEqual(repeats, 3)
        var measuredPeers = 0
        for benchCase in cases {
            let medley = try XCTUnwrap(benchCase["medley"] as? [String: Any])
            let seconds = try XCTUnwrap(medley["seconds"] as? [Double])
            XCTAssertEqual(seconds.count, repeats)
            XCTAssertTrue(seconds.allSatisfy { $0 >= 0 })
            XCTAssertGreaterThan(medley["peakMiB"] as? Double ?? 0, 1, "peak memory measured")
            for peer in try XCTUnwrap(benchCase["peers"] as? [[String: Any]]) {
                if let skipped = peer["skipped"] as? String {
                    XCTAssertTrue(skipped.contains("not installed"), skipped)
                } else {
                    XCTAssertEqual((peer["seconds"] as? [Double])?.count, repeats, "\(peer)")
                    measuredPeers += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(measuredPeers, 7, "setup.sh installs every peer")

        // The table on stdout and in results.md: one row per tool, a ratio per measured peer.
        let table = try String(contentsOfFile: out + "/results.md", encoding: .utf8)
        XCTAssertTrue(result.stdout.contains("| case | tool | median s | range s | peak MiB | Medley ÷ tool |"))
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| case") }
        XCTAssertEqual(rows.filter { $0.contains("**medley**") }.count, cases.count)
        XCTAssertEqual(rows.filter { $0.hasSuffix("** |") && !$0.contains("**medley**") }.count, measuredPeers)

        // The chart is well-formed SVG with a bar per measured peer.
        final class Counter: NSObject, XMLParserDelegate {
            var bars = 0, root = ""
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                if root.isEmpty { root = name }
                if name == "rect", attributes["fill"] != "#fff" { bars += 1 }
            }
        }
        let parser = try XCTUnwrap(XMLParser(contentsOf: URL(fileURLWithPath: out + "/chart.svg")))
        let counter = Counter()
        parser.delegate = counter
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(counter.root, "svg")
        XCTAssertEqual(counter.bars, measuredPeers)
    }
}
