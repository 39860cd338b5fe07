import XCTest
@testable import MedleyCore

/// `shiftDates` and the `strip`/`keep` names, against dates worked out by hand and exiv2's keys.
final class MetadataWriteTests: XCTestCase {
    func testShiftsAsExiftoolsAllDates() throws {
        let hour = try XCTUnwrap(DateShift("+1:00:00"))
        XCTAssertEqual(hour.shifted(exif: "2024:05:01 23:30:00"), "2024:05:02 00:30:00", "across midnight")
        XCTAssertEqual(hour.shifted(exif: "2024:12:31 23:59:59"), "2025:01:01 00:59:59", "across the year")
        XCTAssertEqual(DateShift("1")?.shifted(exif: "2024:02:28 23:00:00"), "2024:02:29 00:00:00", "a bare number is hours; 2024 is leap")
        XCTAssertEqual(DateShift("-0:30")?.shifted(exif: "2024:01:01 00:10:00"), "2023:12:31 23:40:00", "hours:minutes, backwards")
        XCTAssertEqual(DateShift("+0:1:0 0:00:00")?.shifted(exif: "2024:01:31 12:00:00"), "2024:02:29 12:00:00", "a month, clamped")
        XCTAssertEqual(DateShift("+1:0:0 0")?.shifted(exif: "2023:06:15 08:00:00"), "2024:06:15 08:00:00", "a year")
        XCTAssertEqual(hour.shifted(exif: "2024:05:01 10:00:00.5+02:00"), "2024:05:01 11:00:00.5+02:00", "what follows the seconds is kept")
        XCTAssertEqual(hour.shifted(property: "2024-05-01T23:30:00+02:00"), "2024-05-02T00:30:00+02:00", "ISO 8601 stays ISO 8601")
        XCTAssertNil(hour.shifted(exif: "    :  :     :  :  "), "an empty EXIF date is not a date")
        for bad in ["", "one hour", "+1:xx", "1:2:3:4", "+1:0 0:0:0 0", "--1"] {
            XCTAssertNil(DateShift(bad), bad)
        }
    }

    func testStripNamesCoverTheirKeys() {
        let gps = MetadataSelector("gps"), serial = MetadataSelector("serial"), maker = MetadataSelector("makerNotes")
        XCTAssertTrue(gps.matches("Exif.GPSInfo.GPSLatitude"))
        XCTAssertTrue(gps.matches("Xmp.exif.GPSLongitude"))
        XCTAssertFalse(gps.matches("Exif.Image.Make"))
        XCTAssertTrue(serial.matches("Exif.Photo.BodySerialNumber"))
        XCTAssertTrue(serial.matches("Exif.Canon.SerialNumber"))
        XCTAssertTrue(serial.matches("Xmp.aux.SerialNumber"))
        XCTAssertFalse(serial.matches("Exif.Image.Model"))
        XCTAssertTrue(maker.matches("Exif.Photo.MakerNote"))
        XCTAssertTrue(maker.matches("Exif.Nikon3.Quality"))
        XCTAssertFalse(maker.matches("Exif.Photo.FNumber"))
        XCTAssertFalse(maker.matches("Exif.Thumbnail.Compression"))
        XCTAssertTrue(MetadataSelector("xmp.history").matches("Xmp.xmpMM.History[1]/stEvt:action"))
        XCTAssertFalse(MetadataSelector("xmp.history").matches("Xmp.xmpMM.DocumentID"))
        let copyright = MetadataSelector("copyright")
        for key in ["Exif.Image.Copyright", "Xmp.dc.rights", "Iptc.Application2.Copyright"] { XCTAssertTrue(copyright.matches(key), key) }
        XCTAssertFalse(copyright.matches("Exif.Image.Artist"))
        XCTAssertTrue(MetadataSelector("exif.Artist").matches("Exif.Image.Artist"))
        XCTAssertTrue(MetadataSelector("iptc.City").matches("Iptc.Application2.City"))
        XCTAssertTrue(MetadataSelector("xmp.dc.subject").matches("Xmp.dc.subject"))
        XCTAssertTrue(MetadataSelector("gps.latitude").matches("Exif.GPSInfo.GPSLatitudeRef"), "a position with its Ref")
        XCTAssertTrue(MetadataSelector.isKnown("makerNotes"))
        XCTAssertFalse(MetadataSelector.isKnown("gsp"))
        XCTAssertFalse(MetadataSelector.isKnown("exif."))
        XCTAssertTrue(MetadataStrip.remove([MetadataSelector("icc")]).savesStripped, "exiv2 cannot remove a profile")
        XCTAssertFalse(MetadataStrip.remove([gps]).savesStripped)
    }
}
