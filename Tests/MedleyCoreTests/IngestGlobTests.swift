import Foundation
import XCTest
@testable import MedleyCore

final class IngestGlobTests: XCTestCase {
    private func glob(_ pattern: String, file: StaticString = #filePath, line: UInt = #line) throws -> Glob {
        do {
            return try Glob(pattern)
        } catch {
            XCTFail("\(pattern) should parse: \(error)", file: file, line: line)
            throw error
        }
    }

    func testPatternWithoutSlashMatchesFileNameAnywhereIgnoringCase() throws {
        let jpg = try glob("*.jpg")
        XCTAssertTrue(jpg.matches("x.jpg"))
        XCTAssertTrue(jpg.matches("a/b/c.JPG"))
        XCTAssertTrue(jpg.matches("IMG_0001.Jpg"))
        XCTAssertFalse(jpg.matches("x.jpeg"))
        XCTAssertFalse(jpg.matches("x.jpg/readme.txt"), "only the file name counts")
        XCTAssertFalse(jpg.matches("x.jpg.txt"))
        XCTAssertTrue(try glob("*.JPG").matches("lower.jpg"), "the pattern side is case-insensitive too")
        XCTAssertTrue(try glob("été*").matches("ÉTÉ-2023.png"), "case folding is not limited to ASCII")
    }

    func testQuestionMarkAndClasses() throws {
        let oneDigit = try glob("IMG_?.jpg")
        XCTAssertTrue(oneDigit.matches("img_1.JPG"))
        XCTAssertFalse(oneDigit.matches("img_12.jpg"))
        XCTAssertFalse(oneDigit.matches("img_.jpg"))
        XCTAssertTrue(try glob("[abc].png").matches("B.png"))
        XCTAssertFalse(try glob("[abc].png").matches("d.png"))
        XCTAssertTrue(try glob("IMG_[0-9][0-9].*").matches("IMG_42.heic"))
        XCTAssertFalse(try glob("IMG_[0-9][0-9].*").matches("IMG_4x.heic"))
        XCTAssertTrue(try glob("[!.]*").matches("photo.jpg"))
        XCTAssertFalse(try glob("[!a]*").matches("A.jpg"), "negated classes are case-insensitive as well")
        XCTAssertTrue(try glob("[]]x").matches("]x"), "a ] right after [ is a literal")
        XCTAssertTrue(try glob("\\*.jpg").matches("*.jpg"))
        XCTAssertFalse(try glob("\\*.jpg").matches("x.jpg"), "an escaped * is literal")
    }

    func testPatternWithSlashMatchesWholePath() throws {
        let photos = try glob("photos/*.jpg")
        XCTAssertTrue(photos.matches("photos/x.jpg"))
        XCTAssertTrue(photos.matches("Photos/X.JPG"))
        XCTAssertFalse(photos.matches("photos/sub/x.jpg"), "* stays inside one component")
        XCTAssertFalse(photos.matches("other/photos/x.jpg"), "anchored at the root")
        let deep = try glob("a/**/b.jpg")
        XCTAssertTrue(deep.matches("a/b.jpg"), "** may be zero components")
        XCTAssertTrue(deep.matches("a/x/y/b.jpg"))
        XCTAssertFalse(deep.matches("c/a/b.jpg"))
    }

    func testThumbsExcludePattern() throws {
        let thumbs = try glob("**/thumbs/**")
        XCTAssertTrue(thumbs.matches("thumbs/x.jpg"))
        XCTAssertTrue(thumbs.matches("a/thumbs/b/x.jpg"))
        XCTAssertTrue(thumbs.matches("A/Thumbs/x.jpg"))
        XCTAssertFalse(thumbs.matches("thumbsup/x.jpg"))
        XCTAssertFalse(thumbs.matches("a/mythumbs/x.jpg"))
    }

    func testPruningHelpers() throws {
        let thumbs = try glob("**/thumbs/**")
        XCTAssertTrue(thumbs.matchesEverythingBelow(Glob.Subject("a/thumbs")))
        XCTAssertFalse(thumbs.matchesEverythingBelow(Glob.Subject("a/thumbsup")))
        let shallow = try glob("2023-*/*.jpg")
        XCTAssertTrue(shallow.mayMatchBelow(Glob.Subject("2023-06")))
        XCTAssertFalse(shallow.mayMatchBelow(Glob.Subject("2022-06")), "wrong first component")
        XCTAssertFalse(shallow.mayMatchBelow(Glob.Subject("2023-06/raw")), "too deep for a pattern without **")
        XCTAssertTrue(try glob("**/*.png").mayMatchBelow(Glob.Subject("x/y/z")))
    }

    func testPathologicalPatternIsMatchedInPolynomialWork() throws {
        let pattern = try glob("*a*a*a*a*a*a*a*a*b")
        let text = String(repeating: "a", count: 2_000)
        XCTAssertFalse(pattern.matches(text))
        // Counted, not timed: naive recursion tries every way of splitting 2,000 characters among
        // eight stars (about 2000⁸/8! ≈ 6·10²¹ comparisons); a single backtrack point compares each
        // (pattern position, text position) pair at most once per star restart — bounded here by
        // pattern length × text length.
        let tokens = Array("*a*a*a*a*a*a*a*a*b"), characters = Array(text)
        var comparisons = 0
        let matched = Glob.wildcardMatch(tokens[...], characters[...], isStar: { $0 == "*" }, accepts: { p, c in
            comparisons += 1
            return p == c
        })
        XCTAssertFalse(matched)
        XCTAssertGreaterThanOrEqual(comparisons, characters.count, "every character was looked at")
        XCTAssertLessThanOrEqual(comparisons, tokens.count * characters.count)
    }

    func testBadPatternsAreRejectedWithAReason() {
        let bad = ["[abc", "photos/[a", "a**", "**.jpg", "", "a//b", "thumbs/", "[z-a]", "abc\\"]
        for pattern in bad {
            XCTAssertThrowsError(try Glob(pattern), "\(pattern.debugDescription) should be rejected") { error in
                guard case .badPattern(let reported, let reason)? = error as? IngestError else {
                    return XCTFail("expected .badPattern, got \(error)")
                }
                XCTAssertEqual(reported, pattern, "the error quotes the pattern as written")
                XCTAssertFalse(reason.isEmpty)
            }
        }
        XCTAssertThrowsError(try Glob("x[")) { error in
            XCTAssertTrue("\(error)".contains("never closed"), "got: \(error)")
        }
    }

    func testIsPattern() {
        XCTAssertTrue(Glob.isPattern("/abs/photos/*.jpg"))
        XCTAssertTrue(Glob.isPattern("IMG_?.jpg"))
        XCTAssertTrue(Glob.isPattern("[ab]"))
        XCTAssertFalse(Glob.isPattern("/abs/photos/IMG_0001.JPG"))
        XCTAssertFalse(Glob.isPattern(""))
    }

    func testEqualityFollowsThePattern() throws {
        XCTAssertEqual(try Glob("*.jpg"), try Glob("*.jpg"))
        XCTAssertNotEqual(try Glob("*.jpg"), try Glob("*.JPG"), "same matches, but a different pattern as written")
    }
}
