import Foundation
@testable import MedleyCore
import XCTest

/// `where:` matching, per property kind. Each expectation is stated by hand from docs/pipelines.md, "where", and the rules
/// documented on `WhereClause`.
final class WhereMatchingTests: PipelineTextCase {
    /// The validated clause of `where: <flow>`.
    func clause(_ flow: String, file: StaticString = #filePath, line: UInt = #line) throws -> WhereClause {
        try XCTUnwrap(try job(oneJob("where: \(flow)"), file: file, line: line).where, file: file, line: line)
    }

    /// Whether the clause matches an item with exactly these properties.
    func check(_ flow: String, _ cases: [([String: TemplateValue], Bool)], file: StaticString = #filePath, line: UInt = #line) throws {
        let where_ = try clause(flow, file: file, line: line)
        for (item, expected) in cases {
            XCTAssertEqual(where_.matches { item[$0] }, expected, "\(flow) on \(item)", file: file, line: line)
        }
    }

    func testTextEqualityIgnoresCase() throws {
        try check("{ genre: rock }", [
            (["genre": .text("Rock")], true), (["genre": .text("ROCK")], true), (["genre": .text("rock")], true),
            (["genre": .text("Rock & Roll")], false), (["genre": .text("Pop")], false), ([:], false),
        ])
        try check("{ artist: \"émilie simon\" }", [(["artist": .text("ÉMILIE SIMON")], true), (["artist": .text("Emilie Simon")], false)])
        try check("{ genre: { eq: Jazz } }", [(["genre": .text("jazz")], true), (["genre": .text("Jazz Funk")], false)])
    }

    func testTextContains() throws {
        try check("{ genre: { contains: talk } }", [
            (["genre": .text("Tech Talks")], true), (["genre": .text("TALK")], true),
            (["genre": .text("Music")], false), ([:], false),
        ])
    }

    func testTextNotEqualAndIn() throws {
        try check("{ genre: { ne: rock } }", [
            (["genre": .text("Pop")], true), (["genre": .text("ROCK")], false), ([:], false),
        ])
        try check("{ genre: { in: [rock, pop] } }", [
            (["genre": .text("Pop")], true), (["genre": .text("ROCK")], true), (["genre": .text("Jazz")], false), ([:], false),
        ])
    }

    func testMatchesIsAnUnanchoredCaseInsensitiveSearch() throws {
        try check("{ title: { matches: \"^the \" } }", [
            (["title": .text("The End")], true), (["title": .text("the end")], true),
            (["title": .text("Then")], false), (["title": .text("At the end")], false), ([:], false),
        ])
        try check("{ title: { matches: \"(?-i)^the \" } }", [(["title": .text("The End")], false), (["title": .text("the end")], true)])
        try check("{ title: { matches: \"[0-9]{4}\" } }", [(["title": .text("Live 1969")], true), (["title": .text("Live 69")], false)])
    }

    func testExistsAndBlankText() throws {
        try check("{ genre: { exists: true } }", [(["genre": .text("Pop")], true), ([:], false), (["genre": .text("  ")], false)])
        try check("{ genre: { exists: false } }", [(["genre": .text("Pop")], false), ([:], true), (["genre": .text("")], true)])
        // A value that does not read as its kind is still present.
        try check("{ width: { exists: true } }", [(["width": .text("wide")], true)])
    }

    func testIntegersCompareNumerically() throws {
        try check("{ albumTrackNumber: 3 }", [
            (["albumTrackNumber": .integer(3)], true), (["albumTrackNumber": .text("03")], true),
            (["albumTrackNumber": .number(3.0)], true), (["albumTrackNumber": .integer(4)], false),
            (["albumTrackNumber": .text("abc")], false), ([:], false),
        ])
        try check("{ width: { gte: 1000 } }", [(["width": .integer(1000)], true), (["width": .integer(999)], false)])
        try check("{ width: { gt: 1000 } }", [(["width": .integer(1000)], false), (["width": .integer(1001)], true)])
        try check("{ width: { lt: 10 } }", [(["width": .integer(9)], true), (["width": .integer(10)], false), (["width": .integer(-2)], true)])
        try check("{ width: { lte: 10 } }", [(["width": .integer(10)], true), (["width": .integer(11)], false)])
        try check("{ width: { ne: 5 } }", [
            (["width": .integer(6)], true), (["width": .integer(5)], false), ([:], false), (["width": .text("abc")], false),
        ])
        try check("{ discNumber: { in: [1, 2] } }", [(["discNumber": .integer(2)], true), (["discNumber": .integer(3)], false)])
    }

    func testSeveralOperatorsMakeARange() throws {
        try check("{ width: { gte: 100, lt: 200 } }", [
            (["width": .integer(100)], true), (["width": .integer(199)], true),
            (["width": .integer(200)], false), (["width": .integer(99)], false),
        ])
    }

    func testNumbers() throws {
        try check("{ playbackDuration: { lt: 3600 } }", [
            (["playbackDuration": .number(3599.5)], true), (["playbackDuration": .number(3600)], false),
            (["playbackDuration": .integer(100)], true), (["playbackDuration": .text("12.5")], true),
            (["playbackDuration": .text("long")], false), ([:], false),
        ])
        try check("{ frameRate: 29.97 }", [(["frameRate": .number(29.97)], true), (["frameRate": .number(30)], false)])
        try check("{ frameRate: { gte: 1e1 } }", [(["frameRate": .number(10)], true), (["frameRate": .number(9.99)], false)])
    }

    func testBooleans() throws {
        try check("{ isCompilation: true }", [
            (["isCompilation": .integer(1)], true), (["isCompilation": .integer(0)], false),
            (["isCompilation": .text("yes")], true), (["isCompilation": .text("TRUE")], true),
            (["isCompilation": .text("1")], true), (["isCompilation": .text("no")], false),
            (["isCompilation": .text("0")], false), (["isCompilation": .text("maybe")], false), ([:], false),
        ])
        try check("{ isCompilation: { ne: true } }", [(["isCompilation": .integer(0)], true), ([:], false)])
        try check("{ artwork: no }", [(["artwork": .integer(0)], true), (["artwork": .text("false")], true), (["artwork": .integer(1)], false)])
    }

    func testAYearIsTheWholeYear() throws {
        try check("{ releaseDate: 2024 }", [
            (["releaseDate": .text("2024-05-01")], true), (["releaseDate": .text("2024")], true),
            (["releaseDate": .text("2024-12-31T23:59:59Z")], true), (["releaseDate": .text("2023-12-31T23:59:59Z")], false),
            (["releaseDate": .text("2025-01-01")], false), ([:], false),
        ])
        try check("{ releaseDate: { lt: 2024 } }", [
            (["releaseDate": .text("2023-12-31")], true), (["releaseDate": .text("2024-01-01")], false),
            (["releaseDate": .text("2024-06")], false),
        ])
        // gt: after the year, so eq, lt and gt never overlap.
        try check("{ releaseDate: { gt: 2024 } }", [
            (["releaseDate": .text("2024-12-31")], false), (["releaseDate": .text("2025-01-01")], true),
        ])
        try check("{ releaseDate: { lte: 2024 } }", [
            (["releaseDate": .text("2024-12-31")], true), (["releaseDate": .text("2025-01-01")], false),
        ])
        try check("{ releaseDate: { gte: 2024-05 } }", [
            (["releaseDate": .text("2024-04-30")], false), (["releaseDate": .text("2024-05-01")], true),
        ])
        try check("{ releaseDate: { ne: 2024 } }", [
            (["releaseDate": .text("2023-05-01")], true), (["releaseDate": .text("2024-05-01")], false), ([:], false),
        ])
    }

    func testMonthsDaysAndTimes() throws {
        try check("{ releaseDate: 2024-02 }", [
            (["releaseDate": .text("2024-02-29")], true), (["releaseDate": .text("2024-03-01")], false),
            (["releaseDate": .text("2024-01-31T23:00:00Z")], false),
        ])
        try check("{ releaseDate: 1969-07-20 }", [
            (["releaseDate": .text("1969-07-20T20:17:40Z")], true), (["releaseDate": .text("1969-07-21")], false),
        ])
        try check("{ modified: { gte: \"2024-05-01T10:00:00+02:00\" } }", [
            (["modified": .text("2024-05-01T08:00:00Z")], true), (["modified": .text("2024-05-01T07:59:59Z")], false),
        ])
        try check("{ modified: \"2024-05-01T10:00:00Z\" }", [
            (["modified": .text("2024-05-01T10:00:00.5Z")], true), (["modified": .text("2024-05-01T10:00:01Z")], false),
        ])
        try check("{ modified: \"2024-05-01T10:00Z\" }", [
            (["modified": .text("2024-05-01T10:00:59Z")], true), (["modified": .text("2024-05-01T10:01:00Z")], false),
        ])
        // A date that does not read is present but compares with nothing.
        try check("{ releaseDate: { ne: 2024 } }", [(["releaseDate": .text("soon")], false)])
    }

    func testDatePeriodsAgainstTheCalendar() throws {
        // Epoch seconds from `date -u -d … +%s`.
        XCTAssertEqual(DatePeriod(iso8601: "1970-01-01"), DatePeriod(start: 0, end: 86_400))
        XCTAssertEqual(DatePeriod(iso8601: "2000-03-01")?.start, 951_868_800)
        XCTAssertEqual(DatePeriod(iso8601: "2024-02"), DatePeriod(start: 1_706_745_600, end: 1_709_251_200))
        XCTAssertEqual(DatePeriod(iso8601: "2024-02-29")?.start, 1_709_164_800)
        XCTAssertEqual(DatePeriod(iso8601: "1900")?.start, -2_208_988_800)
        XCTAssertEqual(DatePeriod(iso8601: "1969-07-20T20:17:40Z"), DatePeriod(start: -14_182_940, end: -14_182_939))
        XCTAssertEqual(DatePeriod(iso8601: "2024-05-01 10:00:00+0200")?.start, 1_714_550_400)
        XCTAssertEqual(DatePeriod(iso8601: "2024-05-01T08:00:00.250Z"), DatePeriod(start: 1_714_550_400.25, end: 1_714_550_400.25))
        for bad in ["2023-02-29", "2024-13", "2024-00", "2024-05-01T24:00", "24", "2024-5-1", "2024-05-01T10:00:00Q", "20240501"] {
            XCTAssertNil(DatePeriod(iso8601: bad), bad)
        }
    }

    func testAnyIsOrAndMayNest() throws {
        try check("{ any: [ { genre: rock }, { genre: pop } ] }", [
            (["genre": .text("Rock")], true), (["genre": .text("pop")], true), (["genre": .text("Jazz")], false), ([:], false),
        ])
        try check("{ width: { gte: 100 }, any: [ { format: png }, { format: jpeg } ] }", [
            (["width": .integer(100), "format": .text("jpeg")], true),
            (["width": .integer(99), "format": .text("jpeg")], false),
            (["width": .integer(100), "format": .text("gif")], false),
        ])
        try check("{ any: [ { genre: rock }, { any: [ { artist: x }, { albumArtist: x } ] } ] }", [
            (["albumArtist": .text("X")], true), (["artist": .text("x"), "genre": .text("Pop")], true),
            (["genre": .text("Pop"), "artist": .text("y")], false),
        ])
        try check("{ any: [ { genre: { exists: false } }, { genre: rock } ] }", [([:], true), (["genre": .text("Pop")], false)])
    }

    func testEmptyWhereAndExifFields() throws {
        try check("{}", [([:], true)])
        try check("{ exif.Make: { contains: canon } }", [(["exif.Make": .text("Canon")], true), (["exif.Make": .text("Nikon")], false)])
    }

    func testBlockStyleWhereOfTheSpec() throws {
        let job = try job("""
            version: 1
            jobs:
              - name: podcasts
                ingest: { from: [photos] }
                where:
                  playbackDuration: { lt: 3600 }
                  genre: { contains: talk }
                export: { to: out }
            """)
        let where_ = try XCTUnwrap(job.where)
        XCTAssertTrue(where_.matches { ["playbackDuration": .number(1800), "genre": .text("Talk Radio")][$0] })
        XCTAssertFalse(where_.matches { ["playbackDuration": .number(4000), "genre": .text("Talk Radio")][$0] })
        XCTAssertFalse(where_.matches { ["playbackDuration": .number(1800)][$0] })
    }
}

/// `where:` validation: each mistake at its FILE:LINE:COL (columns counted by hand), with a suggestion.
final class WhereValidationTests: PipelineTextCase {
    func testMistakesAreReportedAtTheValue() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                where:
                  genr: rock
                  width: { gtee: 3 }
                  genre: { gt: 3 }
                  playbackDuration: { contains: x }
                  albumTrackNumber: abc
                  isCompilation: maybe
                  releaseDate: { lt: 2024-13 }
                  title: { matches: "a(b" }
                  artist: { in: rock }
                  frameRate: { eq: fast }
                  discCount: 2.5
            """)
        assertDiagnostics(found, [
            "p.yaml:6:7: error: unknown property 'genr' in where; did you mean 'genre'?",
            "p.yaml:7:16: error: unknown operator 'gtee' in where.width; did you mean 'gte'?",
            "p.yaml:8:20: error: where.genre: 'gt' does not apply to genre, which is text; genre takes a bare value or eq, ne, in, contains, matches, exists",
            "p.yaml:9:37: error: where.playbackDuration: 'contains' does not apply to playbackDuration, which is a number; playbackDuration takes a bare value or eq, ne, lt, lte, gt, gte, in, exists",
            "p.yaml:10:25: error: where.albumTrackNumber: 'abc' is not a whole number; albumTrackNumber is compared as a whole number, like 3",
            "p.yaml:11:22: error: where.isCompilation: 'maybe' is not true or false; isCompilation is compared as true or false",
            "p.yaml:12:26: error: where.releaseDate: '2024-13' is not a date; write a year, month, day or time",
            "p.yaml:13:25: error: where.title: 'a(b' is not a valid regular expression",
            "p.yaml:14:21: error: where.artist: 'in' takes a list of values, found 'rock'; write { in: [a, b] }",
            "p.yaml:15:24: error: where.frameRate: 'fast' is not a number; frameRate is compared as a number",
            "p.yaml:16:18: error: where.discCount: '2.5' is not a whole number",
        ])
    }

    func testMistakesInsideAnyAndListsAreFoundToo() {
        let found = diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                where:
                  any: [ { genre: rock }, { widht: 3 } ]
                  width: { in: [1, two] }
                  height: { exists: maybe }
                  title: [a, b]
            """)
        assertDiagnostics(found, [
            "p.yaml:6:33: error: unknown property 'widht' in where; did you mean 'width'?",
            "p.yaml:7:24: error: where.width: 'two' is not a whole number",
            "p.yaml:8:25: error: where.height: 'exists' takes true or false, found 'maybe'",
            "p.yaml:9:14: error: where.title: a list is not a condition; to accept any of several values write { in: [...] }",
        ])
        let notAList = diagnostics("""
            version: 1
            jobs:
              - name: j
                ingest: { from: [photos] }
                where: { any: { genre: rock } }
            """)
        assertDiagnostics(notAList, ["p.yaml:5:19: error: where.any takes a list of where-maps, found a mapping"])
    }

    func testAValidWhereIsNoLongerRefused() throws {
        XCTAssertEqual(diagnostics(oneJob("where: { width: { gte: 1000 } }")), [])
    }
}
