import XCTest
@testable import MedleyCore

private let known: Set<String> = [
    "relpath", "stem", "ext", "artist", "albumArtist", "albumTitle", "albumTrackNumber", "trackNumber", "title",
    "year", "duration",
]

/// Parses `text` and renders it with `values`; a property absent from `values` is missing.
private func render(_ text: String, _ values: [String: TemplateValue]) throws -> String {
    try NameTemplate(text, knownProperties: known).render { values[$0] }
}

/// Tests for substituting, formatting and falling back on well-behaved values.
final class TemplateRenderingTests: XCTestCase {
    func testSepiaExample() throws {
        let values: [String: TemplateValue] = [
            "relpath": .path("2024/Holidays"), "stem": .text("beach"), "ext": .text("jpg"),
        ]
        XCTAssertEqual(try render("{relpath}/{stem}-sepia.{ext}", values), "2024/Holidays/beach-sepia.jpg")
    }

    func testAlbumExample() throws {
        let values: [String: TemplateValue] = [
            "artist": .text("Nina Simone"), "albumTitle": .text("Pastel Blues"),
            "albumTrackNumber": .integer(3), "title": .text("Be My Husband"),
        ]
        XCTAssertEqual(try render("{artist}/{albumTitle}/{albumTrackNumber:02} {title}.m4a", values),
                       "Nina Simone/Pastel Blues/03 Be My Husband.m4a")
    }

    func testFallbackExample() throws {
        let template = "{albumArtist|artist|Unknown}/{title}.mp3"
        XCTAssertEqual(try render(template, ["albumArtist": .text("Various"), "artist": .text("Solo"), "title": .text("Song")]),
                       "Various/Song.mp3")
        XCTAssertEqual(try render(template, ["artist": .text("Solo"), "title": .text("Song")]), "Solo/Song.mp3")
        XCTAssertEqual(try render(template, ["title": .text("Song")]), "Unknown/Song.mp3")
    }

    func testQuotedLiteralFallback() throws {
        XCTAssertEqual(try render("{artist|\"Various Artists\"}/{title}", ["title": .text("Song")]), "Various Artists/Song")
        XCTAssertEqual(try render("{artist|\"Various Artists\"}/{title}", ["artist": .text("Solo"), "title": .text("Song")]), "Solo/Song")
        // Quotes allow characters that separate alternatives or start a spec.
        XCTAssertEqual(try render("{artist|\"A|B: {x}\"}", [:]), "A|B: {x}")
        // An empty quoted literal makes a placeholder optional.
        XCTAssertEqual(try render("{title}{year|\"\"}.m4a", ["title": .text("Song")]), "Song.m4a")
    }

    func testFallbackUsedWhenValueSanitisesToNothing() throws {
        XCTAssertEqual(try render("{artist|Unknown}", ["artist": .text("  \n\u{0} ")]), "Unknown")
        XCTAssertEqual(try render("{albumArtist|artist}", ["albumArtist": .text(""), "artist": .text("Solo")]), "Solo")
    }

    func testFormatSpecAppliesToWhicheverAlternativeIsUsed() throws {
        let template = "{albumTrackNumber|trackNumber:02}"
        XCTAssertEqual(try render(template, ["trackNumber": .integer(4)]), "04")
        XCTAssertEqual(try render(template, ["albumTrackNumber": .integer(12), "trackNumber": .integer(4)]), "12")
    }

    func testZeroPadding() throws {
        XCTAssertEqual(try render("{trackNumber:03}", ["trackNumber": .integer(7)]), "007")
        XCTAssertEqual(try render("{trackNumber:02}", ["trackNumber": .integer(0)]), "00")
        XCTAssertEqual(try render("{trackNumber:02}", ["trackNumber": .integer(123)]), "123")
        XCTAssertEqual(try render("{trackNumber:03}", ["trackNumber": .integer(-5)]), "-05")
        XCTAssertEqual(try render("{trackNumber}", ["trackNumber": .integer(7)]), "7")
        // Whole numbers stored as doubles pad like integers; others render unpadded.
        XCTAssertEqual(try render("{trackNumber:02}", ["trackNumber": .number(4)]), "04")
        XCTAssertEqual(try render("{trackNumber:04}", ["trackNumber": .number(2.5)]), "2.5")
        // Text ignores the spec.
        XCTAssertEqual(try render("{trackNumber:02}", ["trackNumber": .text("A1")]), "A1")
        XCTAssertEqual(try render("{trackNumber:02}", ["trackNumber": .text("3")]), "3")
    }

    func testFixedDecimals() throws {
        XCTAssertEqual(try render("{duration:.2f}", ["duration": .number(3.14159)]), "3.14")
        XCTAssertEqual(try render("{duration:.0f}", ["duration": .number(2.6)]), "3")
        XCTAssertEqual(try render("{duration:.1f}", ["duration": .integer(3)]), "3.0")
        XCTAssertEqual(try render("{duration:.2f}", ["duration": .text("long")]), "long")
    }

    func testNumbersWithoutSpec() throws {
        XCTAssertEqual(try render("{duration}", ["duration": .number(2.5)]), "2.5")
        XCTAssertEqual(try render("{duration}", ["duration": .number(4)]), "4")
        XCTAssertEqual(try render("{duration}", ["duration": .number(-0.0)]), "0")
    }

    func testEscapedBraces() throws {
        XCTAssertEqual(try render("{{{title}}}", ["title": .text("Song")]), "{Song}")
        XCTAssertEqual(try render("{{title}}/{title}", ["title": .text("Song")]), "{title}/Song")
    }

    func testEmptyRelpathCollapses() throws {
        XCTAssertEqual(try render("{relpath}/x.jpg", ["relpath": .path("")]), "x.jpg")
        XCTAssertEqual(try render("{relpath}/{stem}-sepia.{ext}", ["relpath": .path(""), "stem": .text("beach"), "ext": .text("jpg")]),
                       "beach-sepia.jpg")
    }

    func testNestedRelpathKeepsItsFolders() throws {
        XCTAssertEqual(try render("{relpath}/x.jpg", ["relpath": .path("a/b/c")]), "a/b/c/x.jpg")
        XCTAssertEqual(try render("out/{relpath}/x.jpg", ["relpath": .path("/2024//Trips/ ")]), "out/2024/Trips/x.jpg")
    }

    func testEmptyPathIsPresentSoFallbackIsNotUsed() throws {
        XCTAssertEqual(try render("{relpath|misc}/x.jpg", ["relpath": .path("")]), "x.jpg")
        XCTAssertEqual(try render("{relpath|misc}/x.jpg", [:]), "misc/x.jpg")
    }

    func testDotComponentsInLiteralTextAreDropped() throws {
        XCTAssertEqual(try render("./{title}/./x", ["title": .text("Song")]), "Song/x")
    }

    func testUnicodeIsKept() throws {
        XCTAssertEqual(try render("{artist}/{title}.m4a", ["artist": .text("Björk"), "title": .text("Café 🎸 👨‍👩‍👧")]),
                       "Björk/Café 🎸 👨‍👩‍👧.m4a")
    }

    func testMissingValueWithoutFallbackThrows() {
        XCTAssertThrowsError(try render("{artist}/{title}", ["artist": .text("Solo")])) { error in
            let templateError = error as? TemplateError
            XCTAssertEqual(templateError?.offset, 9)
            XCTAssertEqual(templateError?.message, "the item has no value for 'title'; add a literal fallback such as {title|\"Unknown\"}")
        }
        XCTAssertThrowsError(try render("{albumArtist|artist}", [:])) { error in
            XCTAssertEqual((error as? TemplateError)?.offset, 0)
            XCTAssertTrue((error as? TemplateError)?.message.contains("any of 'albumArtist', 'artist'") ?? false)
        }
    }

    func testEmptyResultThrows() {
        XCTAssertThrowsError(try render("{relpath}", ["relpath": .path("")])) { error in
            XCTAssertEqual((error as? TemplateError)?.message, "the template rendered an empty path for this item")
        }
        XCTAssertThrowsError(try render("{relpath}/./", ["relpath": .path("//")]))
    }

    func testLookupIsOnlyAskedForReferencedProperties() throws {
        var asked: [String] = []
        let template = try NameTemplate("{albumArtist|artist|Unknown}/{title}", knownProperties: known)
        _ = try template.render { name in
            asked.append(name)
            return name == "artist" ? .text("Solo") : (name == "title" ? .text("Song") : nil)
        }
        XCTAssertEqual(asked, ["albumArtist", "artist", "title"])
    }
}
