import Foundation
import XCTest
@testable import MedleyCore

/// `ManifestRecord.input(ofLine:)` against Foundation's JSON parser (`JSONSerialization`) on lines
/// Medley's writer makes from hostile paths, and on lines it must leave to the full decoder.
final class ManifestLineInputTests: XCTestCase {
    func testInputIsWhatAJSONParserReadsForHostilePaths() throws {
        let inputs = [
            "/in/plain.jpg", "", "/in/quote \" and \\ back\\", "/in/tab\tnew\nline\rcr", "/in/ctrl \u{01}\u{1F}\u{7F}",
            "/in/emoji 😀 and é, ü, 中文", "/in/,\"input\":\"fake\".jpg", "/in/line sep \u{2028}\u{2029}", "/in/slash/",
        ]
        let items = ["a.jpg", "x\\", ",\"input\":\"item-trap\"", "\""]
        for input in inputs {
            for item in items {
                var record = ManifestRecord(job: "j,\"input\":\"job-trap\"", item: item, input: input, status: .failed)
                record.error = "\"input\":\"error-trap\""
                let line = record.line
                let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let expected = try XCTUnwrap(parsed["input"] as? String)
                XCTAssertEqual(expected, input, "the writer round-trips \(line)")
                XCTAssertEqual(ManifestRecord.input(ofLine: line.utf8), expected, line)
            }
        }
    }

    func testEscapesAWriterMightUseAreDecodedAndBrokenTextIsLeftToTheDecoder() throws {
        // Escapes Medley's writer does not use but JSON allows: \/, \b, \f, \u with a surrogate pair.
        let line = #"{"job":"j","item":"i","input":"\/a\bb\fc\u00e9\uD83D\uDE00","status":"failed"}"#
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(ManifestRecord.input(ofLine: line.utf8), parsed["input"] as? String)
        for broken in [
            #"{"job":"j","item":"i","status":"failed"}"#,            // no input
            #"{"job":"j","item":"i","input":"unterminated"#,         // cut
            #"{"job":"j","item":"i","input":"\q","status":"x"}"#,    // unknown escape
            #"{"job":"j","item":"i","input":"\uD83D","status":"x"}"#, // lone surrogate
            #"{"job":"j","item":"i","input":"\u12","status":"x"}"#,  // short \u
            "{\"job\":\"j\",\"item\":\"i\",\"input\":\"raw\ttab\"}",  // raw control character
        ] {
            XCTAssertNil(ManifestRecord.input(ofLine: broken.utf8), broken)
        }
    }

    /// Numbers a record carries read back as written, or not at all: a line's `bytes`, `page`,
    /// `segment` and `duration` beyond what a JSON number (a Double) holds exactly, negative or
    /// not finite read as absent (they changed value, or became `null`, when written again).
    /// The expected numbers are Foundation's `JSONSerialization`'s reading of the written line.
    func testNumbersOutOfRangeReadAsAbsentAndEveryLineReadsBackAsWritten() throws {
        func decode(_ line: String) throws -> ManifestRecord {
            try JSONDecoder().decode(ManifestRecord.self, from: Data(line.utf8))
        }
        let head = #"{"job":"j","item":"i","input":"/in/a.wav","status":"succeeded""#
        let fields = [
            #""bytes":9007199254740992"#, #""bytes":9007199254740993"#, #""bytes":1152921504606846977"#, #""bytes":-5"#,
            #""page":0"#, #""page":9007199254740993"#, #""segment":-1"#, #""segment":12"#,
            #""duration":1e306"#, #""duration":-1"#, #""duration":2.5"#, #""duration":999999999.9994"#,
        ]
        for field in fields {
            let line = head + "," + field + "}"
            let record = try decode(line)
            let written = record.line
            XCTAssertEqual(try decode(written).line, written, "a written line reads back as written: \(line)")
            let original = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let rewritten = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
            let key = String(field.dropFirst().prefix { $0 != "\"" })
            if let kept = rewritten[key] as? NSNumber {
                let value = try XCTUnwrap(original[key] as? NSNumber)
                if key == "duration" {
                    XCTAssertEqual(kept.doubleValue, (value.doubleValue * 1000).rounded() / 1000, line)
                } else {
                    XCTAssertEqual(kept.int64Value, value.int64Value, "kept exactly: \(line)")
                }
            }
        }
        XCTAssertEqual(try decode(head + #","bytes":9007199254740992}"#).bytes, 1 << 53)
        XCTAssertNil(try decode(head + #","bytes":9007199254740993}"#).bytes)
        XCTAssertNil(try decode(head + #","duration":1e306}"#).duration)
        XCTAssertNil(try decode(head + #","page":0}"#).page)
        XCTAssertEqual(try decode(head + #","segment":12}"#).segment, 12)
    }

    /// Counts inside a record's parts (an album's `tracks`, a histogram's counts, a delivered loudness's
    /// `encodes`) beyond what a JSON number holds exactly, or negative, leave that part out; within, the
    /// part is kept and the line is written back with the very numbers JSONSerialization reads in it.
    func testCountsInsidePartsOutOfRangeLeaveThePartOutAndEveryLineReadsBackAsWritten() throws {
        func decode(_ line: String) throws -> ManifestRecord {
            try JSONDecoder().decode(ManifestRecord.self, from: Data(line.utf8))
        }
        let head = #"{"job":"j","item":"i","input":"/in/a.wav","status":"succeeded""#
        func album(_ tracks: String) -> String { #","album":{"group":"g","integrated":-16.5,"samplePeak":-1,"truePeak":-0.9,"tracks":"# + tracks + "}" }
        func histogram(_ count: String) -> String {
            #","analysis":{"histogram":{"bins":2,"red":[1,"# + count + #"],"green":[0,0],"blue":[3,4],"luminance":[5,"# + count + "]}}"
        }
        func delivered(_ encodes: String) -> String {
            #","normalization":{"measured":{"integrated":-15.85,"range":5.57,"samplePeak":0.55,"truePeak":0.57},"target":-16,"gain":1.5,"delivered":{"integrated":-16.1,"truePeak":-1.2,"encodes":"# + encodes + "}}"
        }
        let exact = "9007199254740992", beyond = "9007199254740993"
        for (part, keeps) in [(album(exact), true), (album(beyond), false), (album("-2"), false),
                              (histogram(exact), true), (histogram(beyond), false), (histogram("-1"), false),
                              (delivered("3"), true), (delivered(beyond), false)] {
            let line = head + part + "}"
            let record = try decode(line)
            let written = record.line
            XCTAssertEqual(try decode(written).line, written, "a written line reads back as written: \(line)")
            let rewritten = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
            let original = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if part.contains("album") {
                XCTAssertEqual(record.album != nil, keeps, line)
                if keeps {
                    XCTAssertEqual(((rewritten["album"] as? [String: Any])?["tracks"] as? NSNumber)?.int64Value,
                                   ((original["album"] as? [String: Any])?["tracks"] as? NSNumber)?.int64Value, line)
                }
            } else if part.contains("histogram") {
                XCTAssertEqual(record.analysis?.histogram != nil, keeps, line)
                if keeps {
                    let counts = { (object: [String: Any]) in
                        (((object["analysis"] as? [String: Any])?["histogram"] as? [String: Any])?["red"] as? [NSNumber])?.map(\.int64Value)
                    }
                    XCTAssertEqual(counts(rewritten), counts(original), line)
                }
            } else {
                XCTAssertEqual(record.normalization?.delivered != nil, keeps, line)
            }
        }
    }
}
