import Foundation
import MedleyCore
import XCTest

/// `trim:` and `fade:` in `transcode:`: values with their units read into the models, every
/// mistake at its FILE:LINE:COL (counted by hand from the text) with a suggestion.
final class TrimFadeReaderTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-trimfade-\(UUID().uuidString)"
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

    func testValuesAndUnitsAreRead() throws {
        let parsed = try PipelineReader.parse(pipeline(
            "{ trim: { silence: -60.5dB, start: false, keep: 250ms }, fade: { in: 0.5s, out: 2, curve: sCurve } }"),
            file: "p.yaml", directory: folder)
        let settings = try XCTUnwrap(parsed.jobs.first?.transcode)
        let trim = try XCTUnwrap(settings.trim)
        XCTAssertEqual(trim.silence, -60.5)
        XCTAssertFalse(trim.start)
        XCTAssertTrue(trim.end)
        XCTAssertEqual(trim.keep, 0.25, accuracy: 1e-12)
        let fade = try XCTUnwrap(settings.fade)
        XCTAssertEqual(fade.fadeIn, 0.5)
        XCTAssertEqual(fade.fadeOut, 2)
        XCTAssertEqual(fade.curve, .sCurve)

        // The defaults the issue gives: -50 dB, both ends, 0.25 s kept; a linear fade.
        let defaults = try PipelineReader.parse(pipeline("{ trim: {}, fade: { out: 1500 ms } }"), file: "p.yaml", directory: folder)
        let plain = try XCTUnwrap(defaults.jobs.first?.transcode)
        XCTAssertEqual(plain.trim?.silence, -50)
        XCTAssertEqual(plain.trim?.start, true)
        XCTAssertEqual(plain.trim?.end, true)
        XCTAssertEqual(plain.trim?.keep, 0.25)
        XCTAssertEqual(plain.fade?.fadeIn, 0)
        XCTAssertEqual(plain.fade?.fadeOut ?? 0, 1.5, accuracy: 1e-12)
        XCTAssertEqual(plain.fade?.curve, .linear)
    }

    func testEveryMistakeIsReportedAtItsPlaceWithASuggestion() {
        // Columns on line 5, "    transcode: " is 15 characters, so the mapping opens at column 16.
        let cases: [(String, String)] = [
            ("{ trim: { silence: -130dB } }",
             "p.yaml:5:35: error: trim.silence is a level from -120dB to 0dB, like -50dB, not '-130dB'; samples whose"),
            ("{ trim: { silence: loud } }", "p.yaml:5:35: error: trim.silence is a level from -120dB to 0dB"),
            ("{ trim: { keep: 2h } }",
             "p.yaml:5:32: error: trim.keep is a duration from 0 to 3600 s, not '2h'; write seconds or milliseconds, like 0.5s or 500ms"),
            ("{ trim: { keep: 3601s } }", "p.yaml:5:32: error: trim.keep is a duration from 0 to 3600 s, not '3601s'"),
            ("{ trim: { keep: nan } }", "p.yaml:5:32: error: trim.keep is a duration from 0 to 3600 s, not 'nan'"),
            ("{ trim: { keep: -1s } }", "p.yaml:5:32: error: trim.keep is a duration from 0 to 3600 s, not '-1s'"),
            ("{ trim: { silense: -50dB } }", "p.yaml:5:26: error: unknown key 'silense' in trim; did you mean 'silence'?"),
            ("{ trim: { start: maybe } }", "p.yaml:5:33: error: trim.start must be true or false, not 'maybe'"),
            ("{ trim: { start: false, end: false } }",
             "p.yaml:5:24: error: trim with start: false and end: false removes nothing; remove 'trim' or set start or end to true"),
            ("{ trim: -50dB }", "p.yaml:5:24: error: trim must be a mapping, like {silence: -50dB, keep: 0.25s}"),
            ("{ fade: { in: 1e400s } }", "p.yaml:5:30: error: fade.in is a duration from 0 to 3600 s, not '1e400s'"),
            ("{ fade: { out: 4000s } }", "p.yaml:5:31: error: fade.out is a duration from 0 to 3600 s, not '4000s'"),
            ("{ fade: { in: 1s, curve: logarithmic } }", "p.yaml:5:41: error: unknown fade curve 'logarithmic'; one of linear, log, sCurve"),
            ("{ fade: { in: 1s, curve: scurve } }", "p.yaml:5:41: error: unknown fade curve 'scurve'; did you mean 'sCurve'?"),
            ("{ fade: { in: 0s, out: 0ms } }", "p.yaml:5:24: error: fade with in and out both 0 fades nothing; remove 'fade'"),
            ("{ fade: { curve: log } }", "p.yaml:5:24: error: fade needs 'in' or 'out'; like {in: 0.5s, out: 2s}"),
            ("{ fade: { inn: 1s } }", "p.yaml:5:26: error: unknown key 'inn' in fade; did you mean 'in'?"),
        ]
        for (transcode, expected) in cases {
            let found = diagnostics(transcode)
            XCTAssertEqual(found.count, 1, "\(transcode): \(found.joined(separator: "\n"))")
            XCTAssertTrue(found.first?.hasPrefix(expected) == true, "\(transcode):\n\(found.first ?? "nothing")\n  does not start with\n\(expected)")
        }
    }
}
