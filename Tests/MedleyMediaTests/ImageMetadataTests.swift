import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// The exiv2 adapter: values as `exiftool -n` reads them (formulas and exiftool), tags written and
/// read back by exiftool and `exiv2 -pa`, bytes and paths alike, errors as MediaError, and no
/// external entity ever read from an XMP packet.
final class ImageMetadataTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-metadata-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    static let fixtures: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/fixtures/images"
    }()

    /// A JPEG exiftool tagged with `arguments`.
    func tagged(_ arguments: [String], name: String = "photo.jpg") throws -> String {
        let path = folder + "/" + name
        try FileManager.default.copyItem(atPath: Self.fixtures + "/landscape.jpg", toPath: path)
        try Peer.must("exiftool", ["-q", "-overwrite_original"] + arguments + [path])
        return path
    }

    func exiftool(_ path: String, _ tag: String) throws -> String {
        try Peer.must("exiftool", ["-s3", "-n", "-" + tag, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testValuesAreStoredValuesAsExiftoolDashNReadsThem() throws {
        let path = try tagged(["-FNumber=2.8", "-ExposureTime=0.004", "-ExposureCompensation=-0.7", "-ISO=400",
                               "-ApertureValue=2.8", "-ShutterSpeedValue=0.004", "-GPSTimeStamp=10:30:07.5",
                               "-XMP-dc:Subject=a, b", "-XMP-dc:Subject=c", "-XMP-dc:Title=Pier, at dusk", "-IPTC:Keywords=x",
                               "-IPTC:Keywords=y", "-Artist=Anne (the elder), Bo"])
        let metadata = try ImageMetadata.open(path: path)
        XCTAssertEqual(metadata.value("Exif.Photo.FNumber"), .number(2.8))
        XCTAssertEqual(metadata.value("Exif.Photo.ExposureTime"), .number(0.004))
        XCTAssertEqual(metadata.value("Exif.Photo.ExposureBiasValue"), .number(-0.7))
        XCTAssertEqual(metadata.value("Exif.Photo.ISOSpeedRatings"), .integer(400))
        XCTAssertEqual(metadata.value("Exif.Image.Artist"), .text("Anne (the elder), Bo"))
        // APEX values as exiftool's ValueConv gives them even with -n.
        guard case .number(let aperture)? = metadata.value("Exif.Photo.ApertureValue"),
              case .number(let shutter)? = metadata.value("Exif.Photo.ShutterSpeedValue") else {
            return XCTFail("APEX values are numbers")
        }
        XCTAssertEqual(aperture, Double(try exiftool(path, "ApertureValue")) ?? 0, accuracy: 0.01)
        XCTAssertEqual(shutter, Double(try exiftool(path, "ShutterSpeedValue")) ?? 0, accuracy: 1e-5)
        XCTAssertEqual(metadata.value("Exif.GPSInfo.GPSTimeStamp"), .text(try exiftool(path, "GPSTimeStamp")))
        XCTAssertEqual(metadata.value("Exif.Photo.ExifVersion"), .text(try exiftool(path, "ExifVersion")))
        XCTAssertEqual(metadata.value("Xmp.dc.subject"), .list(["a, b", "c"]), "a keyword with a comma stays one keyword")
        XCTAssertEqual(metadata.value("Xmp.dc.title"), .text("Pier, at dusk"))
        XCTAssertEqual(metadata.value("Iptc.Application2.Keywords"), .list(["x", "y"]))
    }

    func testBytesReadAsThePathDoes() throws {
        let path = try tagged(["-Make=Bytes Cam", "-XMP-xmp:Rating=3"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let fromBytes = try ImageMetadata.open(bytes: bytes), fromPath = try ImageMetadata.open(path: path)
        XCTAssertEqual(fromBytes.keys, fromPath.keys)
        XCTAssertEqual(fromBytes.value("Exif.Image.Make"), .text("Bytes Cam"))
        XCTAssertEqual(fromBytes.value("Xmp.xmp.Rating"), .text("3"))
    }

    /// Saved into bytes in memory: the file exiftool then reads has the new tags, the old ones
    /// and the same pixels (exiv2 copies the image data).
    func testSavedIntoBytesIsTheImageWithItsNewMetadata() throws {
        let path = try tagged(["-Make=Memory Cam", "-XMP-xmp:Rating=1"])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let metadata = try ImageMetadata.open(bytes: bytes)
        try metadata.set("Exif.Image.Artist", text: "In Memory")
        try metadata.set("Xmp.dc.subject", values: Array(repeating: "long keyword to grow the file", count: 200))
        let saved = try metadata.saved(into: bytes)
        let out = folder + "/saved.jpg"
        try Data(saved).write(to: URL(fileURLWithPath: out))
        XCTAssertEqual(try exiftool(out, "Artist"), "In Memory")
        XCTAssertEqual(try exiftool(out, "Make"), "Memory Cam")
        XCTAssertEqual(try exiftool(out, "Rating"), "1")
        XCTAssertTrue(try Peer.must("vips", ["avg", out]).stdout == (try Peer.must("vips", ["avg", path]).stdout), "the same pixels")
        // Smaller again: what lay past the new end is not kept.
        let shrink = try ImageMetadata.open(bytes: saved)
        shrink.clear(.xmp)
        let smaller = try shrink.saved(into: saved)
        XCTAssertLessThan(smaller.count, saved.count)
        try Data(smaller).write(to: URL(fileURLWithPath: out))
        XCTAssertEqual(try Peer.run("exiftool", ["-validate", "-warning", "-s3", out]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "OK",
                       "exiftool finds nothing wrong in the structure")
        XCTAssertEqual(try exiftool(out, "Artist"), "In Memory")
        XCTAssertEqual(try exiftool(out, "Rating"), "")
    }

    func testWrittenTagsReadBackByExiftoolAndExiv2() throws {
        let path = try tagged(["-GPSLatitude=10", "-GPSLatitudeRef=N", "-Make=Keep"])
        let metadata = try ImageMetadata.open(path: path)
        try metadata.set("Exif.Image.Artist", text: "Zoë Photographer")
        try metadata.set("Xmp.dc.subject", values: ["one, two", "three"])
        try metadata.set("Xmp.xmp.Rating", text: "5")
        try metadata.set("Xmp.dc.title", text: "A title")
        try metadata.set("Iptc.Application2.Keywords", values: ["k1", "k2"])
        metadata.clear("Exif.GPSInfo.GPSLatitude")
        metadata.clear("Exif.GPSInfo.GPSLatitudeRef")
        try metadata.save(to: path)
        XCTAssertEqual(try exiftool(path, "Artist"), "Zoë Photographer")
        XCTAssertEqual(try exiftool(path, "Rating"), "5")
        XCTAssertEqual(try exiftool(path, "XMP-dc:Title"), "A title")
        XCTAssertEqual(try Peer.must("exiftool", ["-j", "-XMP-dc:Subject", "-IPTC:Keywords", path]).stdout
            .replacingOccurrences(of: " ", with: "").contains("\"Subject\":[\"one,two\",\"three\"]"), true)
        XCTAssertEqual(try exiftool(path, "GPSLatitude"), "")
        XCTAssertEqual(try exiftool(path, "Make"), "Keep")
        let exiv2 = try Peer.must("exiv2", ["-pa", path]).stdout
        XCTAssertTrue(exiv2.contains("Exif.Image.Artist"), exiv2)
        XCTAssertTrue(exiv2.contains("Iptc.Application2.Keywords") && exiv2.contains("k2"), exiv2)
        XCTAssertFalse(exiv2.contains("GPSLatitude "), exiv2)
    }

    func testXMPPacketIsASidecarExiftoolReads() throws {
        let path = try tagged(["-XMP-xmp:Rating=4", "-XMP-dc:Subject=travel"])
        let metadata = try ImageMetadata.open(path: path)
        let sidecar = folder + "/photo.xmp"
        try metadata.xmpPacket().write(toFile: sidecar, atomically: false, encoding: .utf8)
        XCTAssertEqual(try exiftool(sidecar, "Rating"), "4")
        XCTAssertEqual(try exiftool(sidecar, "Subject"), "travel")
        let read = try ImageMetadata.open(path: sidecar)
        XCTAssertEqual(read.value("Xmp.xmp.Rating"), .text("4"))
    }

    func testNotAnImageIsAMediaErrorOfExiv2() throws {
        let path = folder + "/text.xmp"
        try "not XML at all {".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try ImageMetadata.open(path: path)) { error in
            let media = error as? MediaError
            XCTAssertEqual(media?.library, .exiv2)
            XCTAssertEqual(media?.path, path)
            guard case .library? = media?.cause else { return XCTFail("exiv2's code kept: \(String(describing: media))") }
        }
        XCTAssertThrowsError(try ImageMetadata.open(bytes: [1, 2, 3, 4]))
        XCTAssertThrowsError(try ImageMetadata.open(path: folder + "/missing.jpg"))
    }

    /// An XMP packet declaring an external entity: exiv2's XMP toolkit refuses the DTD, nothing
    /// is read from the file it names, and the refusal is a warning of that read.
    func testExternalEntitiesAreNeverRead() throws {
        let secret = folder + "/secret.txt"
        try "SECRET-\(UUID().uuidString)".write(toFile: secret, atomically: false, encoding: .utf8)
        let packet = """
            <?xml version="1.0"?><!DOCTYPE x [ <!ENTITY e SYSTEM "file://\(secret)"> ]>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Label>&e;</xmp:Label></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """
        let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/landscape.jpg")))
        let header = Array("http://ns.adobe.com/xap/1.0/\0".utf8), body = Array(packet.utf8)
        let length = header.count + body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + header + body
        let bytes = Array(jpeg[0..<2]) + segment + Array(jpeg[2...])
        let metadata = try ImageMetadata.open(bytes: bytes)
        let contents = try String(contentsOfFile: secret, encoding: .utf8)
        for tag in metadata.tags {
            XCTAssertFalse(tag.raw.text.contains(contents), tag.key)
        }
        XCTAssertNil(metadata.value("Xmp.xmp.Label"))
        XCTAssertFalse(metadata.warnings.isEmpty, "the refused packet is said")
    }

    func testSignedGPSAndDefaultLanguage() {
        XCTAssertEqual(MetadataValues.signedGPS("GPSLatitude", value: 48.8577, ref: .text("S")), -48.8577)
        XCTAssertEqual(MetadataValues.signedGPS("GPSLongitude", value: 2.5, ref: .text("E")), 2.5)
        XCTAssertEqual(MetadataValues.signedGPS("GPSAltitude", value: 35.5, ref: .integer(1)), -35.5, "below sea level")
        XCTAssertEqual(MetadataValues.numbers("48/1 51/1 693/25").map { $0[0] + $0[1] / 60 + $0[2] / 3600 }.map(MetadataValues.tidy),
                       48.8577, "48 + 51/60 + 27.72/3600")
        XCTAssertNil(MetadataValues.numbers("1/0"), "no number from a zero denominator")
    }
}
