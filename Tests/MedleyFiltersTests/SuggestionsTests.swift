import XCTest
import MedleyFilters

/// Tests for the did-you-mean helpers in Suggestions.swift.
final class SuggestionsTests: XCTestCase {
    func testEditDistanceClassicExamples() {
        XCTAssertEqual(editDistance("kitten", "sitting"), 3)
        XCTAssertEqual(editDistance("flaw", "lawn"), 2)
        XCTAssertEqual(editDistance("titel", "title"), 2)
        XCTAssertEqual(editDistance("title", "title"), 0)
    }

    func testEditDistanceWithEmptyStrings() {
        XCTAssertEqual(editDistance("", "abc"), 3)
        XCTAssertEqual(editDistance("abcd", ""), 4)
        XCTAssertEqual(editDistance("", ""), 0)
    }

    func testEditDistanceIsCaseSensitive() {
        XCTAssertEqual(editDistance("Title", "title"), 1)
    }

    func testEditDistanceCountsWholeCharacters() {
        // One emoji replaced by another is one edit, not several byte or scalar edits.
        XCTAssertEqual(editDistance("🎸a", "🎹a"), 1)
        XCTAssertEqual(editDistance("👨‍👩‍👧x", "x"), 1)
        // Precomposed and decomposed "é" are the same Character.
        XCTAssertEqual(editDistance("caf\u{E9}", "cafe\u{301}"), 0)
    }

    func testNearestFindsTransposition() {
        XCTAssertEqual(nearest("titel", in: ["title", "artist", "ext"]), "title")
    }

    func testNearestPrefersCaseInsensitiveMatchOverCloserEdit() {
        XCTAssertEqual(nearest("ALBUMARTIST", in: ["albumArtist", "artist"]), "albumArtist")
        XCTAssertEqual(nearest("Title", in: ["title", "Titles"]), "title")
    }

    func testNearestReturnsNilWhenNothingIsClose() {
        XCTAssertNil(nearest("xyz", in: ["title", "artist"]))
        XCTAssertNil(nearest("title", in: [String]()))
    }

    func testNearestThresholdGrowsWithNameLength() {
        // 13 characters allow 4 edits; "albmTrakNumbr" is 3 away from "albumTrackNumber".
        XCTAssertEqual(nearest("albmTrakNumbr", in: ["albumTrackNumber", "title"]), "albumTrackNumber")
        // 9 characters allow 3 edits: 3 is accepted, 4 is not.
        XCTAssertEqual(nearest("abcdefghi", in: ["abcdefxyz"]), "abcdefxyz")
        XCTAssertNil(nearest("abcdefghi", in: ["abcdewxyz"]))
        // Short names still allow 2 edits but not 3.
        XCTAssertEqual(nearest("ab", in: ["xy"]), "xy")
        XCTAssertNil(nearest("ab", in: ["xyz"]))
    }

    func testNearestBreaksTiesAlphabetically() {
        XCTAssertEqual(nearest("cat", in: ["hat", "bat"]), "bat")
        XCTAssertEqual(nearest("cat", in: ["bat", "hat"]), "bat")
        XCTAssertEqual(nearest("cat", in: Set(["hat", "bat", "rat"])), "bat")
    }

    func testNearestPrefersSmallerDistance() {
        XCTAssertEqual(nearest("artst", in: ["albumArtist", "artist"]), "artist")
    }
}
