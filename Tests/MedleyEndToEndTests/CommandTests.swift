import Foundation
import XCTest

/// `medley filters` and `medley probe`, checked against Core Image's published values and exiftool.
final class CommandTests: EndToEndCase {
    func testFiltersDescribeJSONHasCoreImagesAttributes() throws {
        let result = try Tool.medley(["filters", "describe", "CISepiaTone", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        XCTAssertEqual(object["CIAttributeFilterDisplayName"] as? String, "Sepia Tone")
        let intensity = try XCTUnwrap(object["inputIntensity"] as? [String: Any])
        XCTAssertEqual(intensity["CIAttributeDefault"] as? Double, 1)
        XCTAssertEqual(intensity["CIAttributeIdentity"] as? Double, 0)
        XCTAssertEqual(intensity["CIAttributeSliderMax"] as? Double, 1)
        XCTAssertEqual(intensity["CIAttributeType"] as? String, "CIAttributeTypeScalar")
        XCTAssertEqual(object["inputKeys"] as? [String], ["inputImage", "inputIntensity"])
    }

    func testFiltersListAndDescribeText() throws {
        let list = try Tool.medley(["filters", "list", "--category", "CICategoryColorEffect"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("CISepiaTone"))
        let describe = try Tool.medley(["filters", "describe", "CISepiaTone"])
        XCTAssertTrue(describe.stdout.contains("default 1 · identity 0 · min 0 · max 1 · slider 0…1"), describe.stdout)
        let typo = try Tool.medley(["filters", "describe", "CISepiaTon"])
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.contains("did you mean 'CISepiaTone'?"))
    }

    func testProbeAgreesWithExiftool() throws {
        let file = Tool.fixtures + "/images/portrait-exif6.jpg"
        let result = try Tool.medley(["probe", file, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])
        let item = try XCTUnwrap(items.first)
        XCTAssertEqual(item["width"] as? Int, Int(try XCTUnwrap(Tool.exif(file, "ImageWidth"))))
        XCTAssertEqual(item["height"] as? Int, Int(try XCTUnwrap(Tool.exif(file, "ImageHeight"))))
        XCTAssertEqual(item["orientation"] as? Int, Int(try XCTUnwrap(Tool.exif(file, "Orientation"))))
        XCTAssertEqual(item["exif.Make"] as? String, try Tool.exif(file, "Make"))
        XCTAssertEqual(item["exif.Model"] as? String, try Tool.exif(file, "Model"))
        XCTAssertEqual(item["mediaType"] as? String, "image")
        XCTAssertEqual(item["format"] as? String, "jpeg")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        XCTAssertEqual(item["size"] as? Int, size)
    }

    /// A camera JPEG tagged here with exiftool: `probe` gives EXIF numbers as `exiftool -n` does —
    /// rationals as decimals, GPS as signed decimal degrees with the Ref applied (S, W negative) —
    /// and `where` compares them as numbers.
    func testExifNumbersAreWhatExiftoolDashNReads() throws {
        let input = work + "/in", file = input + "/camera.jpg"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: file)
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS R6",
            "-GPSLatitude=48.8577", "-GPSLatitudeRef=S", "-GPSLongitude=2.2950", "-GPSLongitudeRef=W",
            "-GPSAltitude=35.5", "-GPSAltitudeRef#=1", "-FNumber=2.8", "-ExposureTime=0.008", "-ExposureCompensation=-0.7", "-ISO=200",
            "-FocalLength=4.2", "-Orientation#=6", "-XResolution=300", file]).status, 0)
        let result = try Tool.medley(["probe", file, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let item = try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
        // (Medley's name, exiftool's tag)
        let numbers = [("GPSLatitude", "Composite:GPSLatitude"), ("GPSLongitude", "Composite:GPSLongitude"),
                       ("GPSAltitude", "Composite:GPSAltitude"), ("FNumber", "FNumber"), ("ExposureTime", "ExposureTime"),
                       ("ExposureBiasValue", "ExposureCompensation"), ("ISOSpeedRatings", "ISO"),
                       ("FocalLength", "FocalLength"), ("Orientation", "Orientation"), ("XResolution", "XResolution")]
        for (name, tag) in numbers {
            let expected = try XCTUnwrap(Double(try XCTUnwrap(Tool.exif(file, tag), tag)), tag)
            let value = try XCTUnwrap((item["exif." + name] as? NSNumber)?.doubleValue, "exif.\(name): \(item["exif." + name] ?? "none")")
            XCTAssertEqual(value, expected, accuracy: 1e-9, name)
        }
        XCTAssertEqual(Double(try XCTUnwrap(Tool.exif(file, "Composite:GPSLatitude"))), -48.8577)
        XCTAssertEqual(Double(try XCTUnwrap(Tool.exif(file, "Composite:GPSAltitude"))), -35.5, "below sea level")
        XCTAssertEqual(item["exif.Make"] as? String, "Canon")
        XCTAssertEqual(item["exif.Model"] as? String, "Canon EOS R6")

        let path = try pipeline("""
            version: 1
            jobs:
              - name: south
                ingest: { from: [in] }
                where: { exif.GPSLatitude: { lt: -48.8 }, exif.FNumber: { lte: 2.8 }, exif.ISOSpeedRatings: 200 }
                filters: [ CIPhotoEffectMono ]
                export: { to: out, format: png, name: "{stem}-f{exif.FNumber}.png" }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["camera-f2.8.png"])
    }

    func testProbeOfABrokenFileFailsWithItsReason() throws {
        let result = try Tool.medley(["probe", Tool.fixtures + "/broken/text-named.jpg"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("text-named.jpg: not a recognised image"), result.stderr)
    }
}
