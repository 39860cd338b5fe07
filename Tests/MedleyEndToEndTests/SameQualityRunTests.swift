import Foundation
import XCTest

/// `export.quality: same` and `autoOrient: false` through a thumbnail resize (issue 30, D2), read
/// back by ImageMagick (`identify %Q`, `%[jpeg:sampling-factor]`), exiftool and vipsthumbnail.
final class SameQualityRunTests: EndToEndCase {
    func identify(_ path: String, _ format: String) throws -> String {
        let result = try Tool.run("identify", ["-format", format, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    func manifest(_ job: String) throws -> [String: [String: Any]] {
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-\(job).jsonl", encoding: .utf8)
        var records: [String: [String: Any]] = [:]
        for line in text.split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[((record["input"] as? String ?? "") as NSString).lastPathComponent] = record
        }
        return records
    }

    func testEachJPEGKeepsItsQualityAndSubsampling() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let source = Tool.fixtures + "/images/landscape.jpg"
        let made: [(String, [String])] = [
            ("q40-420.jpg", ["-quality", "40", "-sampling-factor", "2x2"]),
            ("q95-444.jpg", ["-quality", "95", "-sampling-factor", "1x1"]),
            ("q72-444.jpg", ["-quality", "72", "-sampling-factor", "1x1"]),
            ("q88-420.jpg", ["-quality", "88", "-sampling-factor", "2x2"]),
            ("grey61.jpg", ["-colorspace", "Gray", "-quality", "61"]),
        ]
        for (name, options) in made {
            XCTAssertEqual(try Tool.run("convert", [source] + options + [work + "/in/" + name]).status, 0)
        }
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/alpha.png", toPath: work + "/in/alpha.png")
        let result = try Tool.medley(["run", try pipeline("""
            version: 1
            jobs:
              - name: same
                ingest: { from: [in] }
                filters: [ { resize: { width: 100 } } ]
                export: { to: out, format: jpeg, quality: same }
            """)])
        XCTAssertEqual(result.status, 0, result.stderr)
        for (name, _) in made {
            let input = work + "/in/" + name, output = work + "/out/" + name
            XCTAssertEqual(try identify(output, "%Q"), try identify(input, "%Q"), name)
            XCTAssertEqual(try identify(output, "%[jpeg:sampling-factor]"), try identify(input, "%[jpeg:sampling-factor]"), name)
        }
        // Not a JPEG: libvips' default (75), and the item says why.
        XCTAssertEqual(try identify(work + "/out/alpha.jpg", "%Q"), "75")
        let warnings = try manifest("same")["alpha.png"]?["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.contains("quality: same") && $0.contains("not a JPEG") }, "\(warnings)")
    }

    func testAutoOrientFalseThroughAShrinkOnLoadKeepsTheStoredPixelsAndTheTag() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let photo = work + "/in/turned.jpg"
        // A landscape photo whose tag says "rotate 90° CW to show" (exiftool writes the tag only).
        XCTAssertEqual(try Tool.run("convert", [Tool.fixtures + "/images/landscape.jpg", "-resize", "400x300!", photo]).status, 0)
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", photo]).status, 0)
        let result = try Tool.medley(["run", try pipeline("""
            version: 1
            jobs:
              - name: stored
                ingest: { from: [in] }
                filters: [ { resize: { width: 120, height: 120 } } ]
                export: { to: out, format: jpeg, autoOrient: false }
            """)])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/turned.jpg"
        let peer = work + "/peer.jpg"
        XCTAssertEqual(try Tool.run("vipsthumbnail", ["--no-rotate", "-s", "120x120", "-o", peer, photo]).status, 0)
        XCTAssertEqual(try Tool.vipsHeader(output, "width"), try Tool.vipsHeader(peer, "width"))
        XCTAssertEqual(try Tool.vipsHeader(output, "height"), try Tool.vipsHeader(peer, "height"))
        XCTAssertEqual(try Tool.vipsHeader(output, "width"), "120", "the stored landscape, not turned")
        XCTAssertEqual(try Tool.vipsHeader(output, "height"), "90")
        XCTAssertEqual(try Tool.exif(output, "Orientation"), "6", "viewers still turn it by the tag")
    }
}
