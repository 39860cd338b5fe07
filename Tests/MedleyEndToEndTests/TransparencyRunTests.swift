import Foundation
import XCTest

/// Areas a step leaves empty (a hole distortion's inside, Core Image's transparent) stay transparent
/// in formats with alpha and are flattened onto `export.background` in JPEG — never painted black.
final class TransparencyRunTests: EndToEndCase {
    func run(format: String) throws -> String {
        let folder = work + "/out-\(format)"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: hole
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg] }
                graph:
                  output: { filter: CIHoleDistortion, inputImage: input, inputCenter: [100, 75], inputRadius: 20 }
                export: { to: \(folder), format: \(format), name: "{stem}.{ext}" }
            """, name: "hole-\(format).yaml")
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return folder + "/landscape." + (format == "jpeg" ? "jpg" : format)
    }

    func testAHoleInAnOpaquePhotoIsTransparentInPNGAndBackgroundInJPEG() throws {
        // The opaque JPEG (3 bands, vipsheader) gets an alpha band for what the hole leaves empty.
        XCTAssertEqual(try Tool.vipsHeader(Tool.fixtures + "/images/landscape.jpg", "bands"), "3")
        let png = try run(format: "png")
        XCTAssertEqual(try Tool.vipsHeader(png, "bands"), "4")
        let pixels = try Tool.pixels(png, channels: "rgba")
        func alpha(_ x: Int, _ y: Int) -> Int { pixels.samples[(y * pixels.width + x) * 4 + 3] }
        // The centre (Core Image's y up: row 150 − 1 − 75) is inside the hole; a far corner is the photo.
        XCTAssertEqual(alpha(100, 74), 0, "the hole's inside")
        XCTAssertEqual(alpha(2, 2), 255, "outside the hole")
        // JPEG has no alpha: the hole is flattened onto the default background, white (not black).
        let jpeg = try run(format: "jpeg")
        let flat = try Tool.pixels(jpeg)
        for c in 0..<3 {
            XCTAssertGreaterThanOrEqual(flat.samples[(74 * flat.width + 100) * 3 + c], 250, "channel \(c) of the hole in JPEG")
        }
    }
}
