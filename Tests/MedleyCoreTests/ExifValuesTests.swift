import XCTest
@testable import MedleyCore

/// libvips EXIF strings read as exiftool -n does, checked by hand (formulas in the assertions).
final class ExifValuesTests: XCTestCase {
    func values(_ fields: [(String, String)]) -> [String: TemplateValue] {
        Dictionary(uniqueKeysWithValues: ExifValues.properties(fields.map { (name: $0.0, text: $0.1) }).map { ($0.name, $0.value) })
    }

    func testNumbersTextAndGPS() {
        let v = values([
            ("Flash", "1 (Internal error (unknown value 1), Short, 1 components, 2 bytes)"),
            ("FNumber", "14/5 (f/2.8, Rational, 1 components, 8 bytes)"),
            ("ExposureBiasValue", "-7/10 (-0.70 EV, SRational, 1 components, 8 bytes)"),
            ("Artist", "Anne (the elder), Bo (Anne (the elder), Bo, ASCII, 21 components, 21 bytes)"),
            ("GPSLatitudeRef", "N (N, ASCII, 2 components, 2 bytes)"),
            ("GPSLatitude", "48/1 51/1 693/25 (48, 51, 27.72, Rational, 3 components, 24 bytes)"),
            ("GPSLongitudeRef", "W (W, ASCII, 2 components, 2 bytes)"),
            ("GPSLongitude", "2/1 17/1 42/1 ( 2, 17, 42, Rational, 3 components, 24 bytes)"),
            ("GPSTimeStamp", "10/1 30/1 15/2 (10:30:07.50, Rational, 3 components, 24 bytes)"),
            ("BitsPerSample", "8 8 8 (8, 8, 8, Short, 3 components, 6 bytes)"),
            ("ZeroDenominator", "1/0 (1/0, Rational, 1 components, 8 bytes)"),
            ("ExifVersion", "Exif Version 2.32 (Exif Version 2.32, Undefined, 4 components, 4 bytes)"),
        ])
        XCTAssertEqual(v["exif.Flash"], .integer(1))
        XCTAssertEqual(v["exif.FNumber"], .number(2.8))
        XCTAssertEqual(v["exif.ExposureBiasValue"], .number(-0.7))
        XCTAssertEqual(v["exif.Artist"], .text("Anne (the elder), Bo"))
        XCTAssertEqual(v["exif.GPSLatitude"], .number(48.8577))  // 48 + 51/60 + 27.72/3600
        XCTAssertEqual(v["exif.GPSLongitude"], .number(-(2 + 17.0 / 60 + 42.0 / 3600)), "W is negative")
        XCTAssertEqual(v["exif.GPSTimeStamp"], .text("10 30 7.5"))
        XCTAssertEqual(v["exif.BitsPerSample"], .text("8 8 8"))
        XCTAssertEqual(v["exif.ZeroDenominator"], .text("1/0"), "no number: libexif's text")
        XCTAssertEqual(v["exif.ExifVersion"], .text("Exif Version 2.32"))
    }

    func testNumericFieldsCompareAsNumbers() {
        XCTAssertEqual(ItemProperties.kind(of: "exif.GPSLatitude"), .number)
        XCTAssertEqual(ItemProperties.kind(of: "exif.Make"), .text)
    }
}
