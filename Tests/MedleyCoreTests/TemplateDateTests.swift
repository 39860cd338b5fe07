import XCTest
@testable import MedleyCore

/// Date format specs in templates (`{exif.DateTimeOriginal:yyyy}`), and the escaping of drawn text.
/// Expected strings are written out by hand from the inputs.
final class TemplateDateTests: XCTestCase {
    private let known: Set<String> = ["exif.*", "releaseDate", "title", "year"]

    private func text(_ template: String, _ values: [String: TemplateValue]) throws -> String {
        try NameTemplate(template, knownProperties: known).renderText { values[$0] }
    }

    func testEXIFAndISODatesPickTheirFields() throws {
        let exif: [String: TemplateValue] = ["exif.DateTimeOriginal": .text("2021:05:03 10:04:09")]
        XCTAssertEqual(try text("{exif.DateTimeOriginal:yyyy}", exif), "2021")
        XCTAssertEqual(try text("{exif.DateTimeOriginal:yyyy-MM-dd HH:mm:ss}", exif), "2021-05-03 10:04:09")
        XCTAssertEqual(try text("{exif.DateTimeOriginal:dd.MM.yy}", exif), "03.05.21")
        let iso: [String: TemplateValue] = ["releaseDate": .text("1999-12-31T23:59:58Z")]
        XCTAssertEqual(try text("{releaseDate:yyyy_MM_dd HH.mm.ss}", iso), "1999_12_31 23.59.58")
        XCTAssertEqual(try text("{releaseDate:yyyy}", ["releaseDate": .text("2024-05-01")]), "2024")
    }

    func testAYearAloneHasNoMonthAndOtherTextIsMissing() throws {
        XCTAssertEqual(try text("{releaseDate:yyyy}", ["releaseDate": .text("1984")]), "1984")
        XCTAssertEqual(try text("{year:yyyy}", ["year": .integer(1984)]), "1984")
        // A spec the value cannot fill falls through to the next alternative, or fails without one.
        XCTAssertEqual(try text("{releaseDate|\"??\":MM}", ["releaseDate": .text("1984")]), "??")
        XCTAssertEqual(try text("{title|\"undated\":yyyy}", ["title": .text("Spring 2021")]), "undated")
        XCTAssertThrowsError(try text("{releaseDate:yyyy}", ["releaseDate": .text("2021-13-01")]), "month 13 is no date")
    }

    func testBadDateSpecsAreRejectedWhenParsed() {
        for spec in ["yyyq", "YYYY", "yyyy/MM", "-", "dd%"] {
            XCTAssertThrowsError(try NameTemplate("{releaseDate:\(spec)}", knownProperties: known), spec)
        }
    }

    func testDrawnTextIsEscapedForPangoAndControlCharactersAreSpaces() {
        XCTAssertEqual(TextImage.markup("<b>Tom & \"Jerry\" 'x'</b>"), "&lt;b&gt;Tom &amp; &quot;Jerry&quot; &apos;x&apos;&lt;/b&gt;")
        XCTAssertEqual(TextImage.printable("a\u{1}b\u{0}c\nd\te\u{7F}"), "a b c\nd\te ")
    }
}
