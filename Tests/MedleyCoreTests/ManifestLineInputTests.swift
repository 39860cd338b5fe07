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
}
