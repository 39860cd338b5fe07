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

    func testProbeOfABrokenFileFailsWithItsReason() throws {
        let result = try Tool.medley(["probe", Tool.fixtures + "/broken/text-named.jpg"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("text-named.jpg: not a recognised image"), result.stderr)
    }
}
