import Foundation
import XCTest

/// The `watermark:` step, graph image nodes and CITextImageGenerator through `medley run`, checked
/// against ImageMagick's composite of the same files, `vips text` of the same string and font, and
/// blend formulas written here.
final class WatermarkRunTests: EndToEndCase {
    private var runs = 0

    /// The landscape fixture (200 × 150) as a PNG written by vips: Medley and ImageMagick start from
    /// the same stored samples.
    func photo() throws -> String {
        let path = work + "/photo.png"
        if !FileManager.default.fileExists(atPath: path) {
            try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path])
        }
        return path
    }

    /// A 40 × 24 logo with alpha, made by ImageMagick: its left half opaque red, its right half
    /// blue at alpha 0.5 (stored as 128).
    func logo() throws -> String {
        let folder = work + "/logos", path = folder + "/logo.png"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let made = try Tool.run("convert", ["-size", "40x24", "xc:rgba(255,0,0,1)",
                                                "(", "-size", "20x24", "xc:rgba(0,0,255,0.5)", ")",
                                                "-geometry", "+20+0", "-compose", "copy", "-composite", "PNG32:" + path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        return path
    }

    /// Runs one job with these extra lines (indented for the job) over `input`; returns the output.
    func run(_ lines: String, input: String, colorSpace: String? = nil) throws -> String {
        runs += 1
        _ = try logo()
        let folder = work + "/out-\(runs)"
        let space = colorSpace.map { "    colorSpace: \($0)" } ?? ""
        let path = try pipeline("""
            version: 1
            assets: [logos]
            jobs:
              - name: w
                ingest: { from: [\(input)] }
            \(space)
            \(lines)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return folder + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".png"
    }

    /// The box (x, y, width, height; y down) of the pixels where two images of one size differ.
    func changedBox(_ a: [Int], _ b: [Int], width: Int, bands: Int = 3) -> [Int] {
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        for index in 0..<min(a.count, b.count) where a[index] != b[index] {
            let pixel = index / bands, x = pixel % width, y = pixel / width
            (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
        }
        return maxX < 0 ? [] : [minX, minY, maxX - minX + 1, maxY - minY + 1]
    }

    func worst(_ a: [Int], _ b: [Int]) -> Int {
        XCTAssertEqual(a.count, b.count, "sample counts")
        return zip(a, b).map { abs($0 - $1) }.max() ?? .max
    }

    // MARK: placement and blend, against ImageMagick

    func testEachGravityWithOffsetsMatchesImageMagicksComposite() throws {
        let photo = try photo(), logo = try logo()
        let base = try Tool.pixels(photo)
        // Where the 40 × 24 logo's top-left corner goes on the 200 × 150 photo with offset [10, 6],
        // by ImageMagick's -gravity rules: offsets point inward from the gravity's edges.
        let expectedCorner: [String: (Int, Int)] = [
            "northwest": (10, 6), "north": (80 + 10, 6), "northeast": (200 - 40 - 10, 6),
            "west": (10, 63 + 6), "centre": (80 + 10, 63 + 6), "east": (200 - 40 - 10, 63 + 6),
            "southwest": (10, 150 - 24 - 6), "south": (80 + 10, 150 - 24 - 6), "southeast": (200 - 40 - 10, 150 - 24 - 6),
        ]
        for (gravity, corner) in expectedCorner.sorted(by: { $0.key < $1.key }) {
            let out = try run("    watermark: { image: logos/logo.png, gravity: \(gravity), offset: [10, 6], opacity: 0.5 }",
                              input: photo, colorSpace: "none")
            let reference = work + "/im-\(gravity).png"
            let magick = try Tool.run("convert", [photo, "(", logo, "-alpha", "set", "-channel", "A", "-evaluate", "multiply", "0.5",
                                                  "+channel", ")", "-gravity", gravity == "centre" ? "center" : gravity,
                                                  "-geometry", "+10+6", "-composite", reference])
            XCTAssertEqual(magick.status, 0, magick.stderr)
            let mine = try Tool.pixels(out), theirs = try Tool.pixels(reference)
            // libvips truncates where ImageMagick rounds, and keeps the faded alpha in 8 bits
            // (64 for 128 × 0.5): at most 2 levels apart.
            XCTAssertLessThanOrEqual(worst(mine.samples, theirs.samples), 2, gravity)
            XCTAssertEqual(changedBox(mine.samples, base.samples, width: 200), [corner.0, corner.1, 40, 24], gravity)
        }
    }

    func testLinearBlendResizedToAPercentOfTheWidth() throws {
        let photo = try photo()
        let out = try run("    watermark: { image: logos/logo.png, gravity: southeast, offset: [\"5%\", \"4%\"], width: \"25%\", opacity: 0.6 }",
                          input: photo)
        let base = try Tool.pixels(photo).samples, mine = try Tool.pixels(out).samples
        // 25% of 200 = 50 wide, 24 × 50 / 40 = 30 high; 5% of 200 = 10 from the right, 4% of 150 = 6 from the bottom.
        let (x0, y0) = (200 - 50 - 10, 150 - 30 - 6)
        XCTAssertEqual(changedBox(mine, base, width: 200), [x0, y0, 50, 30])
        // Inside each half (away from the resampled seam and edges) the logo is one colour, and the
        // blend is source-over in linear light: out = enc(a·dec(logo) + (1 − a)·dec(photo)), with
        // a = logo alpha × 0.6 (kept in 8 bits: 255 × 0.6 = 153, 128 × 0.6 = 77).
        for (x, y, colour, alpha) in [(x0 + 6, y0 + 6, [255.0, 0, 0], 153.0 / 255), (x0 + 12, y0 + 20, [255.0, 0, 0], 153.0 / 255),
                                      (x0 + 40, y0 + 8, [0.0, 0, 255], 77.0 / 255), (x0 + 44, y0 + 24, [0.0, 0, 255], 77.0 / 255)] {
            for channel in 0..<3 {
                let index = (y * 200 + x) * 3 + channel
                let under = Reference.toLinear(Double(base[index]) / 255), over = Reference.toLinear(colour[channel] / 255)
                let expected = Reference.toSRGB(alpha * over + (1 - alpha) * under) * 255
                XCTAssertEqual(Double(mine[index]), expected, accuracy: 1.5, "(\(x), \(y)) channel \(channel)")
            }
        }
    }

    func testSixteenBitAlphaIsBlendedAsSourceOver() throws {
        let photo = try photo(), deep = work + "/deep.png", p16 = work + "/p16.v"
        try Tool.vips(["colourspace", photo, p16, "rgb16"])
        try Tool.vips(["bandjoin_const", p16, deep, "40000"])
        let out = try run("    watermark: { image: logos/logo.png, gravity: northwest, opacity: 0.5 }", input: deep)
        let base = try Tool.pixels(deep, channels: "rgba", depth: 16).samples
        let mine = try Tool.pixels(out, channels: "rgba", depth: 16).samples
        func at(_ samples: [Int], _ x: Int, _ y: Int) -> [Double] {
            Array(samples[((y * 200 + x) * 4)..<((y * 200 + x) * 4 + 4)]).map { Double($0) / 65535 }
        }
        // Outside the mark: untouched.
        XCTAssertEqual(at(mine, 100, 100), at(base, 100, 100))
        // Under the opaque red half (alpha 255 × 0.5 → 128 in 8 bits), source-over in linear light:
        // a = am + ab(1 − am), colour = (cm·am + cb·ab(1 − am)) / a, linear values.
        let am = 128.0 / 255, pixel = at(base, 5, 5), ab = pixel[3]
        let a = am + ab * (1 - am)
        let got = at(mine, 5, 5)
        // The mark is 8-bit: within 1/1000 of the range for alpha, 1/250 for colours.
        XCTAssertEqual(got[3], a, accuracy: 0.001, "alpha")
        for (channel, markColour) in [1.0, 0, 0].enumerated() {
            let expected = Reference.toSRGB((markColour * am + Reference.toLinear(pixel[channel]) * ab * (1 - am)) / a)
            XCTAssertEqual(got[channel], expected, accuracy: 0.004, "channel \(channel)")
        }
    }

    func testTilesRepeatWithTheirSpacingFromThePlacedCopy() throws {
        let photo = try photo()
        let out = try run("    watermark: { image: logos/logo.png, gravity: northwest, offset: [5, 5], opacity: 1, tile: true, spacing: [10, 6] }",
                          input: photo, colorSpace: "none")
        let base = try Tool.pixels(photo).samples, mine = try Tool.pixels(out).samples
        func pixel(_ samples: [Int], _ x: Int, _ y: Int) -> [Int] { Array(samples[((y * 200 + x) * 3)..<((y * 200 + x) * 3 + 3)]) }
        // Cells of 50 × 30 with a corner at (5, 5): and so also at (−45, −25).
        for (originX, originY) in [(5, 5), (55, 35), (105, 95), (155, 125), (-45, 65)] {
            // The opaque red half at the cell's corner + (2, 2) (or + (47, 2) for the cell cut by the left edge: its gap).
            if originX >= 0 {
                XCTAssertEqual(pixel(mine, originX + 2, originY + 2), [255, 0, 0], "tile at (\(originX), \(originY))")
                // Blue at alpha 128/255 over the photo, on stored values: round(b·a + p·(1 − a)) within 1.
                let p = pixel(base, originX + 30, originY + 10), a = 128.0 / 255
                let expected = [Double(p[0]) * (1 - a), Double(p[1]) * (1 - a), 255 * a + Double(p[2]) * (1 - a)]
                for (m, e) in zip(pixel(mine, originX + 30, originY + 10), expected) { XCTAssertEqual(Double(m), e, accuracy: 1.5) }
            }
            // The gap to the right of the logo, and below it, is the photo.
            if originX + 45 < 200, originY + 2 < 150, originY + 2 >= 0 {
                XCTAssertEqual(pixel(mine, originX + 45, originY + 2), pixel(base, originX + 45, originY + 2), "gap right of (\(originX), \(originY))")
            }
            if originX + 2 >= 0, originY + 27 < 150 {
                XCTAssertEqual(pixel(mine, originX + 2, originY + 27), pixel(base, originX + 2, originY + 27), "gap below (\(originX), \(originY))")
            }
        }
        // The band left of the first column (x < 5) is gap: the photo.
        XCTAssertEqual(pixel(mine, 2, 10), pixel(base, 2, 10))
    }

    func testEditingTheLogoRedoesTheItemsOnTheNextRun() throws {
        let photo = try photo(), logo = try logo()
        let path = try pipeline("""
            version: 1
            assets: [logos]
            jobs:
              - name: w
                ingest: { from: [\(photo)] }
                colorSpace: none
                watermark: { image: logos/logo.png, gravity: northwest }
                export: { to: \(work!)/out, format: png }
            """)
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
        XCTAssertEqual(Array(try Tool.pixels(work + "/out/photo.png").samples[((5 * 200 + 5) * 3)..<((5 * 200 + 5) * 3 + 3)]), [255, 0, 0])
        // The same name, new bytes: an opaque green logo.
        let made = try Tool.run("convert", ["-size", "40x24", "xc:rgba(0,255,0,1)", "PNG32:" + logo])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
        XCTAssertEqual(Array(try Tool.pixels(work + "/out/photo.png").samples[((5 * 200 + 5) * 3)..<((5 * 200 + 5) * 3 + 3)]), [0, 255, 0])
    }

    // MARK: text, against vips text

    /// A black 320 × 60 picture (JPEG at quality 100: a flat block decodes to exactly 0).
    func blackJPEG() throws -> String {
        let path = work + "/black.jpg"
        let made = try Tool.run("convert", ["-size", "320x60", "xc:black", "-quality", "100", path])
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    /// White text over black on stored values: the red channel is the glyphs' coverage, which
    /// `vips text` draws independently from the same string (escaped by hand here) and font.
    func assertDrawn(_ out: String, markup: String, font: String, x: Int, y: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let reference = work + "/text-\(UUID().uuidString).png"
        try Tool.vips(["text", reference, markup, "--font", font, "--dpi", "72"])
        let text = try Tool.pixels(reference, channels: "gray")
        let mine = try Tool.pixels(out)
        XCTAssertGreaterThan(text.samples.filter { $0 > 128 }.count, 20, "the reference draws glyphs", file: file, line: line)
        var worst = 0, outside = 0
        for row in 0..<mine.height {
            for column in 0..<mine.width {
                let red = mine.samples[(row * mine.width + column) * 3]
                let (tx, ty) = (column - x, row - y)
                if tx >= 0, ty >= 0, tx < text.width, ty < text.height {
                    worst = max(worst, abs(red - text.samples[ty * text.width + tx]))
                } else {
                    outside = max(outside, red)
                }
            }
        }
        // Coverage goes through one 8-bit alpha (×1, rounded): within 1.
        XCTAssertLessThanOrEqual(worst, 1, "glyphs differ from vips text", file: file, line: line)
        XCTAssertEqual(outside, 0, "drawn outside the text's box", file: file, line: line)
    }

    func testTextWithMarkupCharactersRendersLiterally() throws {
        let black = try blackJPEG()
        let out = try run("    watermark: { text: \"A<b>&c 'd'\", font: DejaVu Sans, size: 20, color: [1, 1, 1], gravity: northwest, offset: [4, 3] }",
                          input: black, colorSpace: "none")
        try assertDrawn(out, markup: "A&lt;b&gt;&amp;c &apos;d&apos;", font: "DejaVu Sans 20", x: 4, y: 3)
    }

    func testCaptionFromEXIFArtistAndYear() throws {
        let black = try blackJPEG()
        let tagged = try Tool.run("exiftool", ["-q", "-overwrite_original", "-Artist=Ann & <Co>", "-DateTimeOriginal=2021:05:03 10:00:00", black])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        let out = try run("    watermark: { text: \"© {exif.Artist} {exif.DateTimeOriginal:yyyy}\", size: 18, gravity: northwest }",
                          input: black, colorSpace: "none")
        try assertDrawn(out, markup: "© Ann &amp; &lt;Co&gt; 2021", font: "DejaVu Sans 18", x: 0, y: 0)
    }

    func testTextGeneratorNodeSitsAtTheOriginOfAGraph() throws {
        let black = try blackJPEG()
        let out = try run("""
                graph:
                  caption: { filter: CITextImageGenerator, inputText: "x & {stem}", inputFontName: DejaVu Serif, inputFontSize: 16, inputScaleFactor: 1.5, inputColor: [1, 1, 1] }
                  output: { filter: CISourceOverCompositing, inputImage: caption, inputBackgroundImage: input }
            """, input: black, colorSpace: "none")
        // Core Image's origin is the bottom-left corner: the text's box ends at the last row.
        let reference = work + "/serif.png"
        try Tool.vips(["text", reference, "x &amp; black", "--font", "DejaVu Serif 24", "--dpi", "72"])
        let height = Int(try Tool.vipsHeader(reference, "height")) ?? 0
        try assertDrawn(out, markup: "x &amp; black", font: "DejaVu Serif 24", x: 0, y: 60 - height)
    }

    func testAHostileTagIsCutWithAWarningAndDrawnLiterally() throws {
        let black = try blackJPEG()
        // 500 characters with markup, an entity and a control character (exiftool writes the byte as is).
        let artist = "<span size='999999'>" + String(repeating: "x", count: 480) + "&amp;\u{1}"
        let tagged = try Tool.run("exiftool", ["-q", "-overwrite_original", "-Artist=" + artist, black])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        let out = try run("    watermark: { text: \"{exif.Artist}\", size: 12, gravity: northwest }", input: black, colorSpace: "none")
        let manifest = try String(contentsOfFile: (out as NSString).deletingLastPathComponent + "/.medley/manifest-w.jsonl", encoding: .utf8)
        XCTAssertTrue(manifest.contains("only the first 200 are drawn"), manifest)
        // The first 200 characters, shown as text: the span tag is not markup (the image stays 320 × 60).
        let first = String(artist.prefix(200))
        let escaped = first.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "'", with: "&apos;")
        try assertDrawn(out, markup: escaped, font: "DejaVu Sans 12", x: 0, y: 0)
    }

    // MARK: graph image nodes

    func testImageNodeFromAFileCompositesAtTheOrigin() throws {
        let photo = try photo(), logo = try logo()
        let out = try run("""
                graph:
                  logo: { image: logos/logo.png }
                  output: { filter: CISourceOverCompositing, inputImage: logo, inputBackgroundImage: input }
            """, input: photo, colorSpace: "none")
        let reference = work + "/im-origin.png"
        let magick = try Tool.run("convert", [photo, logo, "-gravity", "southwest", "-geometry", "+0+0", "-composite", reference])
        XCTAssertEqual(magick.status, 0, magick.stderr)
        let mine = try Tool.pixels(out).samples, theirs = try Tool.pixels(reference).samples
        // Medley's float path rounds once at the end: within 1 of ImageMagick.
        XCTAssertLessThanOrEqual(worst(mine, theirs), 1)
        XCTAssertEqual(changedBox(mine, try Tool.pixels(photo).samples, width: 200), [0, 150 - 24, 40, 24])
    }

    // MARK: validation

    /// The pipeline fails validation with exit 2 at `line`, with `message`, and writes nothing.
    func assertRefused(_ job: String, line: Int, message: String, file: StaticString = #filePath, line callLine: UInt = #line) throws {
        _ = try logo()
        try Data("not a picture\n".utf8).write(to: URL(fileURLWithPath: work + "/logos/notes.png"))
        let outside = NSTemporaryDirectory() + "medley-outside-logo-\(UUID().uuidString).png"
        try FileManager.default.copyItem(atPath: try logo(), toPath: outside)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let text = """
            version: 1
            assets: [logos]
            jobs:
              - name: w
                ingest: { from: [\(try photo())] }
            \(job.replacingOccurrences(of: "OUTSIDE", with: outside))
                export: { to: out, format: png }
            """
        let path = try pipeline(text)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: callLine)
        XCTAssertTrue(result.stderr.contains("\(path):\(line):"), "expected line \(line):\n\(result.stderr)", file: file, line: callLine)
        XCTAssertTrue(result.stderr.contains(message), "expected '\(message)':\n\(result.stderr)", file: file, line: callLine)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "wrote an export", file: file, line: callLine)
    }

    func testBadWatermarksFailValidationAtTheirLine() throws {
        try assertRefused("    watermark:\n      image: logos/logo.png\n      gravity: southeest",
                          line: 8, message: "did you mean 'southeast'?")
        try assertRefused("    watermark:\n      image: logos/logo.png\n      opacity: 1.5",
                          line: 8, message: "watermark.opacity = 1.5 is out of range")
        try assertRefused("    watermark:\n      image: OUTSIDE",
                          line: 7, message: "outside the folders this pipeline may read")
        try assertRefused("    watermark:\n      image: logos/notes.png",
                          line: 7, message: "is not an image libvips can decode")
        // A small file that decodes to 50 MP (a flat PNG): over the 40 MP a pipeline's own picture may have.
        let bomb = work + "/logos/huge.png"
        let made = try Tool.run("convert", ["-size", "10000x5000", "xc:white", bomb])
        XCTAssertEqual(made.status, 0, made.stderr)
        try assertRefused("    watermark:\n      image: logos/huge.png", line: 7, message: "over the 40 MP limit")
        try assertRefused("    watermark:\n      text: \"{exif.Artist} {exif.DateTimeOriginal:yyyq}\"",
                          line: 7, message: "bad format spec 'yyyq'")
        try assertRefused("    graph:\n      logo: { image: logos/notes.png }\n      output: { filter: CISourceOverCompositing, inputImage: logo, inputBackgroundImage: input }",
                          line: 7, message: "is not an image libvips can decode")
    }
}
