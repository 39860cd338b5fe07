import Foundation
import XCTest
@testable import MedleyCore

private let known: Set<String> = [
    "relpath", "stem", "ext", "artist", "albumArtist", "albumTitle", "albumTrackNumber", "trackNumber", "title",
]

/// Parses `text` and renders it with `values`; a property absent from `values` is missing.
private func render(_ text: String, _ values: [String: TemplateValue]) throws -> String {
    try NameTemplate(text, knownProperties: known).render { values[$0] }
}

/// Tests that hostile values cannot escape the export root or produce invalid names.
final class TemplateSecurityTests: XCTestCase {
    func testTraversalInTextIsNeutralised() throws {
        XCTAssertEqual(try render("{artist}/{title}.m4a", ["artist": .text("A"), "title": .text("../../x")]), "A/.._.._x.m4a")
        XCTAssertEqual(try render("{title}", ["title": .text("..\\..\\x")]), ".._.._x")
    }

    func testSlashInTextDoesNotAddFolders() throws {
        XCTAssertEqual(try render("{artist}/{title}", ["artist": .text("AC/DC"), "title": .text("a/b")]), "AC_DC/a_b")
    }

    func testDotValuesBecomeUnderscore() throws {
        XCTAssertEqual(try render("{title}", ["title": .text("..")]), "_")
        XCTAssertEqual(try render("{title}", ["title": .text(".")]), "_")
        XCTAssertEqual(try render("{title}.m4a", ["title": .text(" .. ")]), "_.m4a")
        // Control characters are removed before the check, so they cannot disguise "..".
        XCTAssertEqual(try render("{title}/x", ["title": .text(".\u{0}.")]), "_/x")
    }

    func testAbsoluteValueStaysRelative() throws {
        XCTAssertEqual(try render("{title}", ["title": .text("/etc/passwd")]), "_etc_passwd")
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("/etc/passwd")]), "etc/passwd/x")
    }

    func testNulAndNewlinesAreRemoved() throws {
        XCTAssertEqual(try render("{title}.m4a", ["title": .text("So\u{0}ng")]), "Song.m4a")
        XCTAssertEqual(try render("{title}.m4a", ["title": .text("Line1\nLine2\r\t\u{7F}")]), "Line1Line2.m4a")
    }

    func testHostilePathValues() throws {
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("../../etc")]), "_/_/etc/x")
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("a/./b/..")]), "a/_/b/_/x")
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("a\\..\\b")]), "a_.._b/x")
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("a/\u{0}\n/b")]), "a/b/x")
    }

    func testSlashHiddenInAGraphemeClusterStillSplits() throws {
        // "/" followed by a combining accent is one Character, but the filesystem still sees a "/" byte;
        // the component after it gets a "_" to carry the accent, so every "/" stays a Character of its own.
        XCTAssertEqual(try render("{relpath}/x", ["relpath": .path("../\u{301}y")]), "_/_\u{301}y/x")
        XCTAssertEqual(try render("{title}", ["title": .text("../\u{301}..")]), ".._\u{301}..")
    }

    /// U+0338 (combining long solidus overlay) before "..": shown after a "/" it reads "/̸..", and Swift's
    /// String.hasPrefix(root + "/") is false for it, which made the export refuse the path as leading
    /// outside. A prepend mark (U+0600) at the end of a folder would join the "/" after it.
    func testNoComponentJoinsTheSeparatorsAroundIt() throws {
        XCTAssertEqual(try render("{artist}/{title}.flac", ["artist": .text("\u{0338}.."), "title": .text("Song")]),
                       "_\u{0338}../Song.flac")
        XCTAssertEqual(try render("{artist}/{title}", ["artist": .text("a\u{0600}"), "title": .text("\u{0600}b")]),
                       "a\u{0600}_/\u{0600}b")
        XCTAssertEqual(try render("{artist}/{title}", ["artist": .text("Beyoncé"), "title": .text("Halo")]), "Beyoncé/Halo")
    }

    func testPlaceholderNextToDotsCannotFormParentComponent() throws {
        // "{relpath}.." is accepted at parse time because relpath usually fills it; when relpath is empty the
        // component would be "..", so rendering replaces it.
        XCTAssertEqual(try render("{relpath}../{title}", ["relpath": .path(""), "title": .text("Song")]), "_/Song")
        XCTAssertEqual(try render("{relpath}../{title}", ["relpath": .path("a/"), "title": .text("Song")]), "a../Song")
        XCTAssertEqual(try render(".{title|\"\"}./x", [:]), "_/x")
    }

    func testLongTitleIsTruncatedKeepingExtension() throws {
        let title = String(repeating: "a", count: 300)
        let result = try render("{artist}/{title}.m4a", ["artist": .text("A"), "title": .text(title)])
        XCTAssertEqual(result, "A/" + String(repeating: "a", count: 251) + ".m4a")
        let last = try XCTUnwrap(result.split(separator: "/").last)
        XCTAssertEqual(last.utf8.count, 255)
        XCTAssertTrue(last.hasSuffix(".m4a"))
    }

    func testLongFolderComponentIsTruncatedWithoutExtensionRule() throws {
        let title = String(repeating: "b", count: 300) + ".txt"
        XCTAssertEqual(try render("{title}/x.jpg", ["title": .text(title)]), String(repeating: "b", count: 255) + "/x.jpg")
    }

    func testEmojiAreTruncatedOnCharacterBoundaries() throws {
        // 75 four-byte emoji are 300 bytes; 63 of them (252 bytes) fit in 255.
        let faces = String(repeating: "😀", count: 75)
        XCTAssertEqual(try render("{title}", ["title": .text(faces)]), String(repeating: "😀", count: 63))
        // With ".m4a" 251 bytes remain: 62 emoji.
        let withExtension = try render("{title}.m4a", ["title": .text(faces)])
        XCTAssertEqual(withExtension, String(repeating: "😀", count: 62) + ".m4a")
        XCTAssertEqual(withExtension.utf8.count, 252)

        // A 25-byte family emoji must never be split into loose people: 12 are 300 bytes, 10 fit.
        let family = "👨‍👩‍👧‍👦"
        XCTAssertEqual(family.utf8.count, 25)
        let families = try render("{title}", ["title": .text(String(repeating: family, count: 12))])
        XCTAssertEqual(families, String(repeating: family, count: 10))
        XCTAssertEqual(families.utf8.count, 250)
        XCTAssertNotNil(String(bytes: Array(families.utf8), encoding: .utf8))
    }

    func testSingleHugeCharacterIsCutBetweenScalars() throws {
        // One Character of 601 bytes: "a" plus 300 two-byte combining accents.
        let zalgo = "a" + String(repeating: "\u{301}", count: 300)
        let result = try render("{title}", ["title": .text(zalgo)])
        XCTAssertEqual(result, "a" + String(repeating: "\u{301}", count: 127))
        XCTAssertEqual(result.utf8.count, 255)
    }

    func testRandomHostileValuesNeverEscape() {
        let alphabet = [
            "/", ".", "..", "\\", "\u{0}", "\n", "\r", "\t", " ", "\u{7F}", "\u{301}", "\u{0338}", "\u{0600}", "\u{200D}", "🎸", "👨‍👩‍👧",
            "a", "Z", "é", "-", "~", "{", "}", "|", ":",
        ]
        let templates = [
            "{title}",
            "{artist}/{title}.m4a",
            "{relpath}/{stem}-sepia.{ext}",
            "{relpath}../{title}",
            ".{title}./{relpath}/.{ext}",
            "{albumArtist|artist|Unknown}/{albumTrackNumber|trackNumber:02} {title}",
            "{relpath}{title}{relpath}",
        ].map { try! NameTemplate($0, knownProperties: known) }
        var generator = SplitMix64(seed: 20_240_601)  // deterministic: the same values on every platform

        func randomString() -> String {
            // Mostly short values, sometimes long enough to need truncation.
            let length = Int.random(in: 0...10, using: &generator) == 0
                ? Int.random(in: 60...140, using: &generator)
                : Int.random(in: 0...12, using: &generator)
            return (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
        }
        func randomValue(asPath: Bool) -> TemplateValue? {
            switch Int.random(in: 0...9, using: &generator) {
            case 0: return nil
            case 1: return .integer(Int.random(in: -1000...1000, using: &generator))
            default: return asPath ? .path(randomString()) : .text(randomString())
            }
        }

        var rendered = 0
        for iteration in 0..<2_000 {
            let template = templates[iteration % templates.count]
            var values: [String: TemplateValue] = [:]
            for name in template.properties {
                values[name] = randomValue(asPath: name == "relpath")
            }
            do {
                let result = try template.render { values[$0] }
                rendered += 1
                assertSafe(result, template: template.text, values: values)
            } catch is TemplateError {
                continue // a missing value or an empty result is an acceptable, typed outcome
            } catch {
                XCTFail("unexpected error \(error)")
            }
        }
        // Guard against the generator making almost every render fail, which would make the test vacuous.
        XCTAssertGreaterThan(rendered, 1_000)
    }

    private func assertSafe(_ result: String, template: String, values: [String: TemplateValue],
                            file: StaticString = #filePath, line: UInt = #line) {
        let context = "\(template) with \(values) gave \(result.debugDescription)"
        let bytes = Array(result.utf8)
        XCTAssertFalse(bytes.isEmpty, context, file: file, line: line)
        XCTAssertNotEqual(bytes.first, UInt8(ascii: "/"), context, file: file, line: line)
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            XCTAssertFalse(component.isEmpty, "empty component: \(context)", file: file, line: line)
            XCTAssertFalse(component.elementsEqual([0x2E]), "'.' component: \(context)", file: file, line: line)
            XCTAssertFalse(component.elementsEqual([0x2E, 0x2E]), "'..' component: \(context)", file: file, line: line)
            XCTAssertLessThanOrEqual(component.count, 255, context, file: file, line: line)
            XCTAssertNotNil(String(bytes: Array(component), encoding: .utf8), "invalid UTF-8: \(context)", file: file, line: line)
        }
        for scalar in result.unicodeScalars {
            XCTAssertFalse(scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\\", "bad scalar: \(context)", file: file, line: line)
        }
        // Every "/" is a Character of its own, so the path reads (and compares as Characters) as it is on disk.
        XCTAssertEqual(result.filter { $0 == "/" }.count, bytes.filter { $0 == UInt8(ascii: "/") }.count,
                       "a '/' joined a neighbour: \(context)", file: file, line: line)
        // Resolving against a root must stay under it. Compared as bytes: String.hasPrefix works on Characters,
        // and a result starting with a combining mark merges with the "/" before it into one Character.
        let resolved = URL(fileURLWithPath: "/export").appendingPathComponent(result).standardizedFileURL.path
        XCTAssertTrue(resolved.utf8.starts(with: "/export/".utf8), "escaped: \(context)", file: file, line: line)
    }
}
