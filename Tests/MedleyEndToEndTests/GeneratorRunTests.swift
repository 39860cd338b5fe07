import Foundation
import XCTest

/// QR codes and Code 128 barcodes through `medley run`, read back by zbarimg (ZBar, an
/// independent decoder that checks their error correction and check symbols), and the
/// validation of their messages.
final class GeneratorRunTests: EndToEndCase {
    private var runs = 0

    /// Runs one job whose graph has these nodes over the landscape fixture (200 × 150); returns the
    /// output's path and the run's result.
    func run(graph nodes: String, expectFailure: Bool = false) throws -> (path: String, result: Tool.Result) {
        runs += 1
        let folder = work + "/out-\(runs)"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: g
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg] }
                graph:
            \(nodes)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """, name: "pipeline-\(runs).yaml")
        let result = try Tool.medley(["run", path, "--quiet"])
        if !expectFailure { XCTAssertEqual(result.status, 0, result.stderr) }
        return (folder + "/landscape.png", result)
    }

    /// What zbarimg reads in an image: one "TYPE:data" line per symbol.
    func decoded(_ path: String) throws -> [String] {
        let result = try Tool.run("zbarimg", ["-q", path])
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testQRCodesDecodeAtEveryCorrectionLevel() throws {
        for level in ["L", "M", "Q", "H"] {
            let message = "Grüße aus Köln — 東京 ✓ level \(level)"
            let (out, _) = try run(graph: "      output: { filter: CIQRCodeGenerator, inputMessage: \"\(message)\", "
                                   + "inputCorrectionLevel: \(level), scale: 3 }")
            XCTAssertEqual(try decoded(out), ["QR-Code:" + message], "level \(level)")
            // A square of (17 + 4·version + 2·4 quiet modules) × 3 pixels.
            let size = try Tool.pixels(out, channels: "gray")
            XCTAssertEqual(size.width, size.height)
            XCTAssertEqual(size.width % 3, 0)
            XCTAssertEqual((size.width / 3 - 8 - 17) % 4, 0, "a QR symbol is 17 + 4·version modules wide")
            // The quiet zone: the 4 modules (12 pixels) along every edge are white, and the finder
            // pattern's dark corner module starts right after it.
            let n = size.width
            var dark = 0
            for i in 0..<n {
                for d in 0..<12 {
                    for p in [d * n + i, (n - 1 - d) * n + i, i * n + d, i * n + n - 1 - d] where size.samples[p] != 255 { dark += 1 }
                }
            }
            XCTAssertEqual(dark, 0, "level \(level): quiet zone")
            XCTAssertEqual(size.samples[12 * n + 12], 0, "level \(level): the top-left finder pattern")
        }
    }

    func testHigherLevelsMakeBiggerSymbols() throws {
        // The same message needs more modules as more of them go to error correction.
        var sides: [Int] = []
        for level in ["L", "H"] {
            let (out, _) = try run(graph: "      output: { filter: CIQRCodeGenerator, inputMessage: \"https://example.org/medley/issue/16\", "
                                   + "inputCorrectionLevel: \(level) }")
            sides.append(try Tool.pixels(out).width)
        }
        XCTAssertLessThan(sides[0], sides[1])
    }

    func testAQRCodeComposedOverThePictureSitsAtTheOrigin() throws {
        let (out, _) = try run(graph: """
                  code: { filter: CIQRCodeGenerator, inputMessage: "медли 16", scale: 2 }
                  output: { filter: CISourceOverCompositing, inputImage: code, inputBackgroundImage: input }
            """)
        XCTAssertEqual(try decoded(out), ["QR-Code:медли 16"])
        let mine = try Tool.pixels(out), picture = try Tool.pixels(Tool.fixtures + "/images/landscape.jpg")
        XCTAssertEqual([mine.width, mine.height], [200, 150])
        // Bottom-left (Core Image's origin): the quiet zone's white; top-right: the picture.
        XCTAssertEqual(Array(mine.samples[(149 * 200) * 3 ..< (149 * 200) * 3 + 3]), [255, 255, 255])
        for c in 0..<3 { XCTAssertEqual(mine.samples[199 * 3 + c], picture.samples[199 * 3 + c], accuracy: 1) }
    }

    func testCode128DecodesWithItsDeclaredSize() throws {
        // Letters (code set B), a digit run (set C) and both, with a quiet space and height.
        for message in ["Medley 2026", "1234567890", "ab12345678cd", "x"] {
            let (out, _) = try run(graph: "      output: { filter: CICode128BarcodeGenerator, inputMessage: \"\(message)\", "
                                   + "inputQuietSpace: 10, inputBarcodeHeight: 40, scale: 2 }")
            XCTAssertEqual(try decoded(out), ["CODE-128:" + message])
            // Height: (40 + 2·10) × 2. Width: (11 per symbol + 2 more for the stop + 2·10) × 2.
            let image = try Tool.pixels(out, channels: "gray")
            XCTAssertEqual(image.height, 120)
            XCTAssertEqual((image.width / 2 - 20 - 2) % 11, 0, "\(message): width \(image.width)")
            // The quiet space is white, the first bar (a start symbol's) black.
            XCTAssertEqual(image.samples[60 * image.width + 19], 255)
            XCTAssertEqual(image.samples[60 * image.width + 20], 0)
        }
    }

    func testBadMessagesFailValidationWhereTheyAreWritten() throws {
        let long = String(repeating: "a", count: 1300)
        let cases: [(node: String, says: String)] = [
            ("      output: { filter: CIQRCodeGenerator, inputMessage: \(long), inputCorrectionLevel: H }", "correction level H"),
            ("      output: { filter: CICode128BarcodeGenerator, inputMessage: \"café\" }", "code set B"),
            ("      output: { filter: CIQRCodeGenerator, inputMessage: \"\" }", "empty"),
            ("      output: { filter: CIQRCodeGenerator, inputMessage: hi, inputCorrectionLevel: X }", "L, M, Q, H"),
        ]
        for c in cases {
            let (out, result) = try run(graph: c.node, expectFailure: true)
            XCTAssertNotEqual(result.status, 0)
            let text = result.stdout + result.stderr
            // Line 6: the node's line in the pipeline (version, jobs, name, ingest, graph, node).
            XCTAssertTrue(text.contains("pipeline-\(runs).yaml:6:"), text)
            XCTAssertTrue(text.contains(c.says), text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: (out as NSString).deletingLastPathComponent), "nothing written")
        }
    }
}
