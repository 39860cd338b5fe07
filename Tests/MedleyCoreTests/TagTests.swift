import Foundation
@testable import MedleyCore
import XCTest

private let writable = TagStage.writableProperties

/// `from_path:` patterns: which values a path gives, by hand.
final class PathPatternTests: XCTestCase {
    func values(_ pattern: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String]? {
        try PathPattern(pattern, settable: writable).match(path).map { $0.map { "\($0.name)=\($0.value)" } }
    }

    func testTheSpecExample() throws {
        let pattern = "{artist}/{albumTitle}/{albumTrackNumber} {title}"
        let expected = ["artist=text(\"Beatles\")", "albumTitle=text(\"Let It Be\")", "albumTrackNumber=integer(3)",
                        "title=text(\"Let It Be\")"]
        XCTAssertEqual(try values(pattern, "Beatles/Let It Be/03 Let It Be.flac"), expected)
        // The rightmost components are matched; folders above them are ignored.
        XCTAssertEqual(try values(pattern, "Music/Rock/Beatles/Let It Be/03 Let It Be.flac"), expected)
        // Without an extension too.
        XCTAssertEqual(try values(pattern, "Beatles/Let It Be/03 Let It Be"), expected)
    }

    func testPathsThatDoNotFit() throws {
        let pattern = "{artist}/{albumTitle}/{albumTrackNumber} {title}"
        XCTAssertNil(try values(pattern, "Let It Be/03 Let It Be.flac"))          // too few components
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/Intro.flac"))         // no space
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/Intro Song.flac"))    // "Intro" is not a number
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/3a Song.flac"))
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/03 .flac"))           // empty title
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/99999999999999999999 Big.flac"))  // overflows Int
        XCTAssertNil(try values(pattern, "Beatles/Let It Be/-3 Minus.flac"))      // a sign is not a digit
        XCTAssertNil(try values("{albumTrackNumber} - {title}", "03 Let It Be.flac"))
        XCTAssertNil(try values("Music/{artist}", "Audio/Nina Simone.mp3"))       // literal component differs
        XCTAssertNil(try values("music/{artist}", "Music/Nina Simone.mp3"))       // literals are case-sensitive
    }

    func testFieldsAreLazyAndIntegersBacktrack() throws {
        XCTAssertEqual(try values("{artist} - {title}", "A - B - C.mp3"), ["artist=text(\"A\")", "title=text(\"B - C\")"])
        XCTAssertEqual(try values("{title} {albumTrackNumber}", "Let It Be 03.mp3"),
                       ["title=text(\"Let It Be\")", "albumTrackNumber=integer(3)"])
        XCTAssertEqual(try values("{discNumber}-{albumTrackNumber} {title}", "2-007 Bond.mp3"),
                       ["discNumber=integer(2)", "albumTrackNumber=integer(7)", "title=text(\"Bond\")"])
        XCTAssertEqual(try values("{releaseDate} - {albumTitle}", "1969 - Abbey Road.flac"),
                       ["releaseDate=text(\"1969\")", "albumTitle=text(\"Abbey Road\")"])
        XCTAssertNil(try values("{releaseDate} - {albumTitle}", "Late - Abbey Road.flac"))
    }

    /// Nine fields over a name with 60 separators: a search that retried every cut would try
    /// C(60, 8) ≈ 2.6·10⁹ of them before failing; remembering failed (field, position) pairs makes
    /// it at most 9 × 241 × 241 steps, and the answer is the same: no match, the last field is no number.
    func testManySeparatorsDoNotMakeTheMatchExponential() throws {
        let pattern = "{artist} - {albumArtist} - {albumTitle} - {genre} - {composer} - {comments} - {userGrouping} - {title} - {albumTrackNumber}"
        let name = Array(repeating: "a", count: 60).joined(separator: " - ") + " - x.mp3"
        XCTAssertNil(try values(pattern, name))
        XCTAssertEqual(try values(pattern, Array(repeating: "a", count: 60).joined(separator: " - ") + " - 7.mp3")?.last,
                       "albumTrackNumber=integer(7)")
    }

    func testAFieldNeverSpansASlash() throws {
        XCTAssertEqual(try values("{artist}/{title}", "a/b/c.mp3"), ["artist=text(\"b\")", "title=text(\"c\")"])
        XCTAssertEqual(try values("{title}", "a/b.mp3"), ["title=text(\"b\")"])
        // Only the last extension goes, and only from the file name.
        XCTAssertEqual(try values("{albumTitle}/{albumTrackNumber} {title}", "a/b.c/01 x.y.flac"),
                       ["albumTitle=text(\"b.c\")", "albumTrackNumber=integer(1)", "title=text(\"x.y\")"])
    }

    func testUnicode() throws {
        XCTAssertEqual(try values("{artist}/{title}", "Björk/Jóga.mp3"), ["artist=text(\"Björk\")", "title=text(\"Jóga\")"])
        XCTAssertEqual(try values("{artist}/{albumTrackNumber} {title}", "坂本龍一/01 戦場のメリークリスマス.flac"),
                       ["artist=text(\"坂本龍一\")", "albumTrackNumber=integer(1)", "title=text(\"戦場のメリークリスマス\")"])
        // A composed "é" in the pattern matches a decomposed one in the path (canonical equivalence).
        XCTAssertEqual(try values("Live at Café {title}", "Live at Cafe\u{301} Paris 🎸.mp3"), ["title=text(\"Paris 🎸\")"])
        // Full-width digits are not a track number.
        XCTAssertNil(try values("{albumTrackNumber} {title}", "０３ Song.mp3"))
    }

    func testLiteralBraces() throws {
        XCTAssertEqual(try values("{{{artist}}}", "{Nina}.mp3"), ["artist=text(\"Nina\")"])
    }

    func testBadPatterns() {
        func error(_ pattern: String) -> TemplateError? {
            do {
                _ = try PathPattern(pattern, settable: writable)
                return nil
            } catch {
                return error as? TemplateError
            }
        }
        XCTAssertEqual(error("{artist}{title}")?.offset, 8)
        XCTAssertEqual(error("{artist}/{artist} x")?.offset, 9)
        XCTAssertEqual(error("/{title}")?.offset, 0)
        XCTAssertEqual(error("{artist}//{title}")?.offset, 9)
        XCTAssertEqual(error("{title}/")?.offset, 8)
        XCTAssertEqual(error("just text")?.offset, 0)
        XCTAssertEqual(error("{albumTrackNumber:02} {title}")?.offset, 0)
        XCTAssertEqual(error("x {title")?.offset, 2)
        XCTAssertEqual(error("{}")?.offset, 0)
        XCTAssertEqual(error("x}")?.offset, 1)
        XCTAssertEqual(error("{titel}"), TemplateError(message: "unknown property 'titel'", offset: 1, suggestion: "title"))
        XCTAssertEqual(error("{artist} {width}")?.offset, 10)
        XCTAssertTrue(error("{artist} {width}")?.message.hasPrefix("'width' is read from the file") == true)
    }
}

/// `tag:` applied to an item: from_path, then set.
final class TagApplyTests: PipelineTextCase {
    func stage(_ flow: String, file: StaticString = #filePath, line: UInt = #line) throws -> TagStage {
        try XCTUnwrap(try job(oneJob("tag: \(flow)"), file: file, line: line).tag, file: file, line: line)
    }

    /// The properties after applying `flow` to `properties`, as "name=value" strings in order.
    func applied(_ flow: String, _ properties: [(name: String, value: TemplateValue)], path: String = "x.mp3",
                 file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        var properties = properties
        try stage(flow, file: file, line: line).apply(to: &properties, relativePath: path)
        return properties.map { "\($0.name)=\($0.value)" }
    }

    func testSetRendersTemplatesAndClears() throws {
        XCTAssertEqual(try applied("{ set: { albumTitle: \"Talks {releaseDate}\", comments: \"{-}\" } }",
                                   [("title", .text("Hi")), ("comments", .text("old")), ("releaseDate", .text("2024"))]),
                       ["title=text(\"Hi\")", "releaseDate=text(\"2024\")", "albumTitle=text(\"Talks 2024\")"])
    }

    func testSetKeepsValuesAsTheyAreNotAsPaths() throws {
        XCTAssertEqual(try applied("{ set: { comments: \"{artist} live\" } }", [("artist", .text("AC/DC"))]),
                       ["artist=text(\"AC/DC\")", "comments=text(\"AC/DC live\")"])
    }

    func testSetReplacesInPlaceAndFormats() throws {
        XCTAssertEqual(try applied("{ set: { title: \"Track {albumTrackNumber:02}\" } }",
                                   [("title", .text("Old")), ("albumTrackNumber", .integer(3))]),
                       ["title=text(\"Track 03\")", "albumTrackNumber=integer(3)"])
    }

    func testSetSeesThePropertiesAsTheyWereSoItCanSwap() throws {
        XCTAssertEqual(try applied("{ set: { title: \"{artist}\", artist: \"{title}\" } }",
                                   [("title", .text("Song")), ("artist", .text("Singer"))]),
                       ["title=text(\"Singer\")", "artist=text(\"Song\")"])
    }

    func testSetReadsValuesAsTheirKind() throws {
        XCTAssertEqual(try applied("{ set: { albumTrackNumber: \"{discNumber}\", isCompilation: yes, discCount: 2, releaseDate: 2024-05-01 } }",
                                   [("discNumber", .integer(2))]),
                       ["discNumber=integer(2)", "albumTrackNumber=integer(2)", "isCompilation=integer(1)",
                        "discCount=integer(2)", "releaseDate=text(\"2024-05-01\")"])
        XCTAssertThrowsError(try applied("{ set: { discNumber: \"{comments}\" } }", [("comments", .text("x"))])) { error in
            XCTAssertEqual(error as? TagError, TagError(property: "discNumber", message: "tag.set.discNumber: 'x' is not a whole number"))
        }
    }

    func testAMissingValueIsAnItemErrorAndAnEmptyFallbackClears() throws {
        XCTAssertThrowsError(try applied("{ set: { albumTitle: \"Talks {genre}\" } }", [("title", .text("Hi"))])) { error in
            let tagError = error as? TagError
            XCTAssertEqual(tagError?.property, "albumTitle")
            XCTAssertEqual(tagError?.message.hasPrefix("tag.set.albumTitle: the item has no value for 'genre'"), true, "\(error)")
        }
        XCTAssertEqual(try applied("{ set: { albumTitle: \"Talks {genre|Misc}\" } }", []), ["albumTitle=text(\"Talks Misc\")"])
        XCTAssertEqual(try applied("{ set: { comments: '{genre|\"\"}' } }", [("comments", .text("old")), ("title", .text("Hi"))]),
                       ["title=text(\"Hi\")"])
    }

    func testFromPathComesFirstAndSetUsesIt() throws {
        XCTAssertEqual(try applied("{ from_path: \"{artist}/{title}\", set: { albumArtist: \"{artist}\", title: \"{title} (live)\" } }",
                                   [("artist", .text("Old")), ("format", .text("mp3"))], path: "Music/Nina Simone/Feeling Good.flac"),
                       ["artist=text(\"Nina Simone\")", "format=text(\"mp3\")", "title=text(\"Feeling Good (live)\")",
                        "albumArtist=text(\"Nina Simone\")"])
    }

    /// As beets: the tags stay as they were, the item gets a warning, and `set` still applies.
    func testAPathThatDoesNotFitLeavesTheTagsAndWarns() throws {
        var properties: [(name: String, value: TemplateValue)] = [("title", .text("Old")), ("albumTrackNumber", .integer(4))]
        let warnings = try stage("{ from_path: \"{albumTrackNumber} {title}\", set: { genre: Talk } }")
            .apply(to: &properties, relativePath: "Album/Intro.flac")
        XCTAssertEqual(warnings, ["tag.from_path: 'Album/Intro' does not fit \"{albumTrackNumber} {title}\"; its tags are left as they were"])
        XCTAssertEqual(properties.map { "\($0.name)=\($0.value)" },
                       ["title=text(\"Old\")", "albumTrackNumber=integer(4)", "genre=text(\"Talk\")"])
    }
}

/// `tag:` validation at FILE:LINE:COL.
final class TagValidationTests: PipelineTextCase {
    func testMistakes() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                tag:
                  from_path: "{artist}/{titel}"
                  set:
                    width: "100"
                    titel: x
                    albumTrackNumber: three
                    comments: "{stm}"
                    isCompilation: maybe
                    releaseDate: May
                    genre:
                  artwork: { embed: missing.jpg }
            """)
        assertDiagnostics(found, [
            "p.yaml:6:29: error: tag.from_path: unknown property 'titel'; did you mean '{title}'?",
            "p.yaml:8:9: error: 'width' is read from the file and cannot be set; tag sets title, artist,",
            "p.yaml:9:9: error: unknown property 'titel' in tag.set; did you mean 'title'?",
            "p.yaml:10:27: error: tag.set.albumTrackNumber: 'three' is not a whole number; albumTrackNumber takes a whole number, like 3",
            "p.yaml:11:21: error: tag.set.comments: unknown property 'stm'; did you mean '{stem}'?",
            "p.yaml:12:24: error: tag.set.isCompilation: 'maybe' is not true or false",
            "p.yaml:13:22: error: tag.set.releaseDate: 'May' is not a date",
            "p.yaml:14:15: error: tag.set.genre takes a template, found nothing",
            "p.yaml:15:25: error: tag.artwork.embed: no such file 'missing.jpg'",
        ])
    }

    func testArtwork() throws {
        // A PNG signature is enough for the sniffer; a text file is not cover art.
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 56))
            .write(to: URL(fileURLWithPath: folder + "/cover.png"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/notes.jpg"))
        let tag = try XCTUnwrap(try job(oneJob("tag: { artwork: { embed: cover.png } }")).tag)
        guard case .embed(let path)? = tag.artwork else { return XCTFail("\(String(describing: tag.artwork))") }
        XCTAssertEqual(path, folder + "/cover.png")
        let exported = try XCTUnwrap(try job(oneJob("tag: { artwork: { export: \"{stem}-cover.jpg\" } }")).tag)
        guard case .export(let template)? = exported.artwork else { return XCTFail() }
        XCTAssertEqual(template.text, "{stem}-cover.jpg")

        assertDiagnostics(diagnostics(oneJob("tag: { artwork: { embed: notes.jpg } }")),
                          ["p.yaml:6:30: error: tag.artwork.embed: 'notes.jpg' is not a JPEG or PNG image"])
        assertDiagnostics(diagnostics(oneJob("tag: { artwork: { export: \"{stme}.jpg\", embed: cover.png } }")),
                          ["p.yaml:6:31: error: tag.artwork takes 'export' or 'embed', not both"])
        assertDiagnostics(diagnostics(oneJob("tag: { artwork: { export: \"{stm}.jpg\" } }")),
                          ["p.yaml:6:33: error: tag.artwork.export: unknown property 'stm'; did you mean '{stem}'?"])
        assertDiagnostics(diagnostics(oneJob("tag: { artwork: {} }")), ["p.yaml:6:21: error: tag.artwork needs 'export' or 'embed'"])
    }

    func testEmptyTagAndReadOnlyFromPath() {
        assertDiagnostics(diagnostics(oneJob("tag: {}")), ["p.yaml:6:10: error: tag has nothing to do"])
        assertDiagnostics(diagnostics(oneJob("tag: { from_path: \"{artist}/{width}\" }")),
                          ["p.yaml:6:34: error: tag.from_path: 'width' is read from the file and cannot be set from the path"])
        assertDiagnostics(diagnostics(oneJob("tag: { sett: {} }")),
                          ["p.yaml:6:12: error: unknown key 'sett' in tag; did you mean 'set'?"])
    }
}
