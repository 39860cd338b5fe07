import XCTest
@testable import MedleyCore

private let known: Set<String> = [
    "relpath", "stem", "ext", "artist", "albumArtist", "albumTitle", "albumTrackNumber", "trackNumber", "title",
    "year", "duration",
]

/// Asserts that parsing `text` fails at `offset`, optionally with `suggestion`, and returns the error.
@discardableResult
private func assertParseError(
    _ text: String, offset: Int, suggestion: String? = nil, messageContains fragment: String? = nil,
    knownProperties: Set<String> = known, file: StaticString = #filePath, line: UInt = #line
) -> TemplateError? {
    do {
        let template = try NameTemplate(text, knownProperties: knownProperties)
        XCTFail("expected a parse error for \(text), got \(template.properties)", file: file, line: line)
        return nil
    } catch let error as TemplateError {
        XCTAssertEqual(error.offset, offset, "offset for \(text): \(error)", file: file, line: line)
        XCTAssertEqual(error.suggestion, suggestion, "suggestion for \(text): \(error)", file: file, line: line)
        if let fragment {
            XCTAssertTrue(error.message.contains(fragment), "message '\(error.message)' lacks '\(fragment)'", file: file, line: line)
        }
        return error
    } catch {
        XCTFail("unexpected error type \(error)", file: file, line: line)
        return nil
    }
}

/// Tests for parsing and validating template text.
final class TemplateParsingTests: XCTestCase {
    func testSpecExamplesParseAndListTheirProperties() throws {
        XCTAssertEqual(try NameTemplate("{relpath}/{stem}-sepia.{ext}", knownProperties: known).properties,
                       ["relpath", "stem", "ext"])
        XCTAssertEqual(try NameTemplate("{artist}/{albumTitle}/{albumTrackNumber:02} {title}.m4a", knownProperties: known).properties,
                       ["artist", "albumTitle", "albumTrackNumber", "title"])
        XCTAssertEqual(try NameTemplate("{albumArtist|artist|Unknown}/{title}.mp3", knownProperties: known).properties,
                       ["albumArtist", "artist", "title"])
    }

    func testPropertiesAreDeduplicatedInFirstUseOrder() throws {
        let template = try NameTemplate("{title}/{artist} - {title} ({artist|albumArtist})", knownProperties: known)
        XCTAssertEqual(template.properties, ["title", "artist", "albumArtist"])
    }

    func testTextIsKeptVerbatim() throws {
        XCTAssertEqual(try NameTemplate("{{x}}/{title}", knownProperties: known).text, "{{x}}/{title}")
    }

    func testEqualTextsGiveEqualTemplates() throws {
        XCTAssertEqual(try NameTemplate("{title}.m4a", knownProperties: known), try NameTemplate("{title}.m4a", knownProperties: known))
        XCTAssertNotEqual(try NameTemplate("{title}.m4a", knownProperties: known), try NameTemplate("{title}.mp3", knownProperties: known))
    }

    func testUnclosedBrace() {
        assertParseError("{unclosed", offset: 0, messageContains: "unclosed")
        assertParseError("ok/{title", offset: 3, messageContains: "unclosed")
        assertParseError("{title {artist}", offset: 0, messageContains: "unclosed")
        assertParseError("{title:02", offset: 0, messageContains: "unclosed")
    }

    func testEmptyPlaceholder() {
        assertParseError("{}", offset: 0, messageContains: "empty placeholder")
        assertParseError("a/{ }", offset: 2, messageContains: "empty placeholder")
    }

    func testUnmatchedClosingBrace() {
        assertParseError("x}", offset: 1, messageContains: "unmatched '}'")
        assertParseError("{title}}", offset: 7, messageContains: "unmatched '}'")
    }

    func testEscapedBracesAreAccepted() throws {
        XCTAssertEqual(try NameTemplate("{{{title}}}", knownProperties: known).properties, ["title"])
        XCTAssertEqual(try NameTemplate("{{}}", knownProperties: known).properties, [])
    }

    func testUnknownPropertySuggestsNearest() {
        let error = assertParseError("{titel}", offset: 1, suggestion: "title", messageContains: "unknown property 'titel'")
        XCTAssertEqual(error?.description, "unknown property 'titel' (at character 1); did you mean 'title'?")
        assertParseError("{artist}/{Title}", offset: 10, suggestion: "title")
        assertParseError("{titel|artist}", offset: 1, suggestion: "title")
        assertParseError("{zzzzzzzz}", offset: 1, suggestion: nil, messageContains: "unknown property")
    }

    func testOffsetsCountCharactersNotScalars() {
        // The family emoji is five Unicode scalars but one character.
        assertParseError("👨‍👩‍👧/{titel}", offset: 3, suggestion: "title")
    }

    func testLeadingSlashIsRejected() {
        assertParseError("/abs/{stem}", offset: 0, messageContains: "relative")
    }

    func testParentComponentInLiteralIsRejected() {
        assertParseError("../{stem}", offset: 0, messageContains: "..")
        assertParseError("a/../{stem}", offset: 2, messageContains: "..")
        assertParseError("{stem}/..", offset: 7, messageContains: "..")
    }

    func testDotsNextToPlaceholdersAreNotParentComponents() throws {
        XCTAssertEqual(try NameTemplate("..{stem}/{stem}../...", knownProperties: known).properties, ["stem"])
    }

    func testBackslashAndControlCharactersInLiteralAreRejected() {
        assertParseError("a\\b/{stem}", offset: 1, messageContains: "'\\'")
        assertParseError("a\u{0}b/{stem}", offset: 1, messageContains: "NUL")
        assertParseError("a\nb/{stem}", offset: 1, messageContains: "U+000A")
        assertParseError("{artist|\"x\ty\"}", offset: 10, messageContains: "U+0009")
    }

    func testBadFormatSpecs() {
        assertParseError("{title:2}", offset: 7, messageContains: "bad format spec '2'")
        assertParseError("{title:02x}", offset: 7, messageContains: "bad format spec")
        assertParseError("{title:.2}", offset: 7, messageContains: "bad format spec")
        assertParseError("{title:00}", offset: 7, messageContains: "bad format spec")
        assertParseError("{title:}", offset: 7, messageContains: "bad format spec")
        assertParseError("{title:0999}", offset: 7, messageContains: "bad format spec")
        assertParseError("{trackNumber:02|albumTrackNumber}", offset: 13, messageContains: "after the last alternative")
    }

    func testGoodFormatSpecs() throws {
        XCTAssertEqual(try NameTemplate("{trackNumber:02}{duration:.3f}{year:04}{duration:.0f}", knownProperties: known).properties,
                       ["trackNumber", "duration", "year"])
    }

    func testEmptyAlternativeAndQuoteMistakes() {
        assertParseError("{artist|}", offset: 8, messageContains: "empty alternative")
        assertParseError("{|artist}", offset: 1, messageContains: "empty alternative")
        assertParseError("{artist|\"Various", offset: 8, messageContains: "unterminated")
        assertParseError("{artist|\"x\" y}", offset: 12, messageContains: "after a quoted literal")
        assertParseError("{artist|Various \"x\"}", offset: 16, messageContains: "quoted literal")
    }

    func testFallbackLiteralsCannotClimbOut() {
        assertParseError("{artist|..}", offset: 8, messageContains: "..")
        assertParseError("{artist|\"../x\"}", offset: 9, messageContains: "..")
        assertParseError("{artist|\"a/../x\"}", offset: 11, messageContains: "..")
        assertParseError("{artist|\"a\\b\"}", offset: 10, messageContains: "'\\'")
    }

    func testTrailingFallbackDifferingOnlyInCaseIsRejected() {
        assertParseError("{artist|Title}", offset: 8, suggestion: "title", messageContains: "quote it")
    }

    func testOnlyTheLastAlternativeMayBeAnUnquotedLiteral() {
        assertParseError("{Unknown|artist}", offset: 1, messageContains: "unknown property 'Unknown'")
    }

    func testWithoutKnownPropertiesEveryIdentifierIsAProperty() throws {
        let template = try NameTemplate("{anything|other|\"Literal\"}/{x.y-z}", knownProperties: [])
        XCTAssertEqual(template.properties, ["anything", "other", "x.y-z"])
        // An unquoted fallback that is not an identifier is still a literal.
        XCTAssertEqual(try NameTemplate("{a|Unknown Artist}", knownProperties: []).properties, ["a"])
        assertParseError("{not a name}", offset: 1, messageContains: "not a valid property name", knownProperties: [])
    }
}

/// Namespaced properties (EXIF fields) in templates.
final class TemplateNamespaceTests: XCTestCase {
    func testANamespaceEntryAdmitsItsFields() throws {
        let template = try NameTemplate("{exif.Model|Unknown}/{stem}.jpg", knownProperties: ["stem", "exif.*"])
        XCTAssertEqual(template.properties, ["exif.Model", "stem"])
        XCTAssertEqual(try template.render { ["exif.Model": .text("Fixture Cam"), "stem": .text("a")][$0] },
                       "Fixture Cam/a.jpg")
        XCTAssertEqual(try template.render { ["stem": .text("a")][$0] }, "Unknown/a.jpg")
        XCTAssertThrowsError(try NameTemplate("{iptc.Model}", knownProperties: ["stem", "exif.*"]))
        XCTAssertThrowsError(try NameTemplate("{exif.}", knownProperties: ["stem", "exif.*"]))
    }
}
