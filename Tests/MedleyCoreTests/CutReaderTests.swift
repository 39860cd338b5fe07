import Foundation
import MedleyCore
import XCTest

/// `cut:` in `transcode:`: positions in seconds, mm:ss.sss, hh:mm:ss and percent read into the
/// model, every mistake at its FILE:LINE:COL (counted by hand from the text) with a suggestion.
final class CutReaderTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-cut-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func pipeline(_ transcode: String) -> String {
        """
        version: 1
        jobs:
          - name: a
            ingest: { from: [music] }
            transcode: \(transcode)
            export: { to: out }
        """
    }

    func cut(_ transcode: String) throws -> TimeCut {
        let parsed = try PipelineReader.parse(pipeline(transcode), file: "p.yaml", directory: folder)
        return try XCTUnwrap(parsed.jobs.first?.transcode?.cut, transcode)
    }

    func diagnostics(_ transcode: String) -> [String] {
        do {
            _ = try PipelineReader.parse(pipeline(transcode), file: "p.yaml", directory: folder)
            return []
        } catch let failure as ValidationFailure {
            return failure.diagnostics.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    func testPositionsInEveryNotation() throws {
        XCTAssertEqual(try cut("{ cut: { from: 10s, to: 40s } }"), TimeCut(from: .seconds(10), end: .to(.seconds(40))))
        XCTAssertEqual(try cut("{ cut: { from: 10, duration: 30 } }"), TimeCut(from: .seconds(10), end: .duration(.seconds(30))))
        XCTAssertEqual(try cut("{ cut: { from: 250ms } }"), TimeCut(from: .seconds(0.25)))
        XCTAssertEqual(try cut("{ cut: { from: \"1:30.5\", to: \"01:02:03\" } }"),
                       TimeCut(from: .seconds(90.5), end: .to(.seconds(3723))))
        XCTAssertEqual(try cut("{ cut: { from: 25%, to: 75% } }"), TimeCut(from: .percent(25), end: .to(.percent(75))))
        XCTAssertEqual(try cut("{ cut: { duration: 2m } }"), TimeCut(from: .seconds(0), end: .duration(.seconds(120))))

        // Frames at a rate: rounded to the nearest, as sox and ffmpeg count them.
        XCTAssertEqual(TimeCut(from: .seconds(10), end: .duration(.seconds(30))).frames(rate: 44100, total: nil).start, 441_000)
        XCTAssertEqual(TimeCut(from: .seconds(10), end: .duration(.seconds(30))).frames(rate: 44100, total: nil).end, 1_764_000)
        XCTAssertEqual(TimeCut(from: .percent(25), end: .to(.percent(50))).frames(rate: 8000, total: 1001).start, 250)
        XCTAssertEqual(TimeCut(from: .percent(25), end: .to(.percent(50))).frames(rate: 8000, total: 1001).end, 501)
        XCTAssertEqual(TimeCut(from: .seconds(1)).frames(rate: 8000, total: nil).end, Int.max)
    }

    func testEveryMistakeIsReportedAtItsPlaceWithASuggestion() {
        // Columns on line 5, "    transcode: " is 15 characters, so the mapping opens at column 16.
        let cases: [(String, String)] = [
            ("{ cut: 10s }", "p.yaml:5:23: error: cut must be a mapping, like {from: 10s, to: 40s}, found"),
            ("{ cut: {} }", "p.yaml:5:23: error: cut needs from, to or duration; like {from: 10s, to: 40s}"),
            ("{ cut: { from: soon } }", "p.yaml:5:31: error: cut.from is a time in the item, not 'soon'; seconds (10s, 10, 250ms)"),
            ("{ cut: { from: -1s } }", "p.yaml:5:31: error: cut.from is a time in the item, not '-1s'"),
            ("{ cut: { from: nan } }", "p.yaml:5:31: error: cut.from is a time in the item, not 'nan'"),
            ("{ cut: { from: \"1:75\" } }", "p.yaml:5:31: error: cut.from is a time in the item, not '1:75'"),
            ("{ cut: { from: 120% } }", "p.yaml:5:31: error: cut.from as a share of the item is 0% to 100%, not '120%'; like 25%"),
            ("{ cut: { from: 40s, to: 10s } }", "p.yaml:5:40: error: cut.to must come after cut.from; to is a position in the item"),
            ("{ cut: { from: 1s, duration: 0 } }", "p.yaml:5:45: error: cut.duration of 0 keeps nothing; give a length"),
            ("{ cut: { from: 1s, to: 3s, duration: 2s } }", "p.yaml:5:53: error: give cut.to or cut.duration, not both"),
            ("{ cut: { from: 0s } }", "p.yaml:5:23: error: a cut from the start to the end keeps everything"),
            ("{ cut: { start: 1s } }", "p.yaml:5:25: error: unknown key 'start' in cut; known keys: from, to, duration"),
            ("{ cut: { form: 1s } }", "p.yaml:5:25: error: unknown key 'form' in cut; did you mean 'from'?"),
        ]
        for (transcode, expected) in cases {
            let found = diagnostics(transcode)
            XCTAssertEqual(found.count, 1, "\(transcode): \(found.joined(separator: "\n"))")
            XCTAssertTrue(found.first?.hasPrefix(expected) == true, "\(transcode):\n\(found.first ?? "nothing")\n  does not start with\n\(expected)")
        }
    }
}
