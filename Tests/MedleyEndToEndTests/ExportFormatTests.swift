import Foundation
import XCTest

/// AVIF, JPEG XL and HEIC outputs and their options, flattening alpha, resizing without enlarging.
final class ExportFormatTests: ExportCase {
    let landscape = Tool.fixtures + "/images/landscape.jpg"
    let alpha = Tool.fixtures + "/images/alpha.png"
    let deep = Tool.fixtures + "/images/deep16.png"

    /// Peak signal-to-noise ratio of two 8-bit images as libvips decodes them, in dB.
    func psnr(_ a: String, _ b: String) throws -> Double {
        let x = try Tool.vipsFloats(a, scratch: work), y = try Tool.vipsFloats(b, scratch: work)
        XCTAssertEqual(x.samples.count, y.samples.count)
        let mse = zip(x.samples, y.samples).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) } / Double(max(1, x.samples.count))
        return 10 * log10(255 * 255 / max(mse, 1e-12))
    }

    func ffprobe(_ path: String, _ entry: String) throws -> String {
        try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=\(entry)",
                                 "-of", "default=nw=1:nk=1", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testAVIFIsAV1ThatVipsAndFFprobeDecode() throws {
        try run([landscape], export: "format: avif, quality: 60, effort: 2")
        let output = work + "/out/landscape.avif"
        XCTAssertEqual(try Tool.vipsHeader(output, "heif-compression"), "av1")
        XCTAssertEqual(try ffprobe(output, "codec_name"), "av1")
        XCTAssertEqual(try ffprobe(output, "width"), "200")
        XCTAssertEqual(try ffprobe(output, "height"), "150")
        // Quality 60 on a smooth photo: well above 30 dB (measured 38–40 dB here); a broken colour
        // conversion or a shifted image would be far below.
        XCTAssertGreaterThan(try psnr(output, landscape), 30)
    }

    func testJPEGXLAndWebPLosslessRoundTripExactly() throws {
        for (format, input) in [("jxl", alpha), ("jxl", deep), ("webp", alpha), ("webp", landscape)] {
            try? FileManager.default.removeItem(atPath: work + "/out")
            try run([input], export: "format: \(format), lossless: true, effort: \(format == "jxl" ? 3 : 1)")
            let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            let output = work + "/out/\(stem).\(format)"
            XCTAssertEqual(try Tool.vipsHeader(output, "format"), try Tool.vipsHeader(input, "format"), "\(format) keeps the sample depth")
            // libwebp's lossless mode (libvips 8.14 has no `exact`) rewrites the colour under fully
            // transparent pixels, which no one sees: compared premultiplied, every visible sample is exact.
            let (a, b) = stem == "alpha"
                ? (try made("a-\(format).v", ["premultiply", output, "OUT"]), try made("b-\(format).v", ["premultiply", input, "OUT"]))
                : (output, input)
            XCTAssertEqual(try largestDifference(a, b), 0, "\(format) lossless from \(stem)")
        }
    }

    func testSixteenBitAVIFIsHighBitDepthAndSaysSo() throws {
        let result = try run([deep], export: "format: avif, quality: 90")
        let output = work + "/out/deep16.avif"
        XCTAssertEqual(try Tool.vipsHeader(output, "format"), "ushort")
        XCTAssertEqual(try Tool.vipsHeader(output, "heif-bitdepth"), "12")
        XCTAssertEqual(try ffprobe(output, "pix_fmt").hasPrefix("yuv"), true)
        XCTAssertTrue(try ffprobe(output, "pix_fmt").hasSuffix("12le"))
        XCTAssertTrue((result.stdout + result.stderr).contains("16-bit → 12-bit"), result.stdout)
        try FileManager.default.removeItem(atPath: work + "/out")
        let eight = try run([deep], export: "format: avif, bitdepth: 8")
        XCTAssertEqual(try Tool.vipsHeader(output, "heif-bitdepth"), "8")
        XCTAssertEqual(try ffprobe(output, "pix_fmt"), "yuv420p")
        XCTAssertTrue((eight.stdout + eight.stderr).contains("16-bit → 8-bit"), eight.stdout)
    }

    func testSixteenBitJPEGSaysItIsEightBit() throws {
        let result = try run([deep], export: "format: jpeg, quality: 100")
        XCTAssertTrue((result.stdout + result.stderr).contains("16-bit → 8-bit"), result.stdout)
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/deep16.jpg", "format"), "uchar")
    }

    func testHEICIsNamedHeicAndFormatSameKeepsAVIFAndJXL() throws {
        try run([landscape], export: "format: heic")
        let heic = work + "/out/landscape.heic"
        XCTAssertEqual(try Tool.vipsHeader(heic, "heif-compression"), "hevc")
        // (Debian 12's ffprobe 5.1 reads AVIF but not HEIC; exiftool reads the brand.)
        XCTAssertEqual(try Tool.exif(heic, "FileType"), "HEIC")
        try FileManager.default.removeItem(atPath: work + "/out")
        try run([deep], export: "format: heif, bitdepth: 10")
        XCTAssertEqual(try Tool.vipsHeader(heic.replacingOccurrences(of: "landscape", with: "deep16"), "heif-bitdepth"), "10")
        let avif = try made("in.avif", ["copy", landscape, "OUT[compression=av1]"])
        let jxl = try made("in.jxl", ["copy", landscape, "OUT"])
        try FileManager.default.removeItem(atPath: work + "/out")
        try run([avif, jxl], export: "format: same, name: \"{stem}-{inputExt}.{ext}\"")
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/in-avif.avif", "heif-compression"), "av1")
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/in-jxl.jxl", "vips-loader"), "jxlload")
    }

    /// AVIF holds EXIF and XMP through libvips; JPEG XL through the container Medley boxes libvips'
    /// codestream in (exiftool reads its Exif and xml boxes; libvips still decodes the same pixels);
    /// IPTC, which neither holds, is a warning.
    func testAVIFAndJXLCarryMetadataAndSayWhatTheyDrop() throws {
        let input = work + "/tagged.jpg"
        try FileManager.default.copyItem(atPath: landscape, toPath: input)
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-Artist=someone", "-XMP-dc:Title=a title", input]).status, 0)
        let avif = try run([input], export: "format: avif")
        XCTAssertFalse((avif.stdout + avif.stderr).contains("cannot hold"), "AVIF holds EXIF, XMP and ICC: \(avif.stdout)")
        XCTAssertEqual(try Tool.exif(work + "/out/tagged.avif", "Artist"), "someone")
        XCTAssertEqual(try Tool.exif(work + "/out/tagged.avif", "XMP-dc:Title"), "a title")
        let result = try run([input], export: "format: jxl")
        let jxl = work + "/out/tagged.jxl"
        XCTAssertFalse((result.stdout + result.stderr).contains("cannot hold"), result.stdout)
        XCTAssertEqual(try Tool.exif(jxl, "Artist"), "someone")
        XCTAssertEqual(try Tool.exif(jxl, "XMP-dc:Title"), "a title")
        XCTAssertEqual(try Tool.exif(jxl, "FileType"), "JXL")
        // The container's boxes, as ISO/IEC 18181-2 lays them out: its codestream alone decodes to the
        // same samples as the whole file.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jxl)))
        var boxes: [String: [UInt8]] = [:]
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            XCTAssertGreaterThanOrEqual(size, 8)
            guard size >= 8, offset + size <= bytes.count else { break }
            boxes[type] = Array(bytes[offset + 8..<offset + size])
            offset += size
        }
        XCTAssertEqual(offset, bytes.count, "boxes fill the file")
        XCTAssertEqual(Set(boxes.keys), ["JXL ", "ftyp", "Exif", "xml ", "jxlc"])
        let bare = work + "/bare.jxl"
        try Data(try XCTUnwrap(boxes["jxlc"])).write(to: URL(fileURLWithPath: bare))
        XCTAssertEqual(try Tool.vipsHeader(jxl, "width"), try Tool.vipsHeader(bare, "width"))
        let difference = try Tool.run("vips", ["subtract", jxl, bare, work + "/diff.v"])
        XCTAssertEqual(difference.status, 0, difference.stderr)
        XCTAssertEqual(Double(try Tool.run("vips", ["max", work + "/diff.v"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)), 0)
        XCTAssertEqual(Double(try Tool.run("vips", ["min", work + "/diff.v"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)), 0)
        try FileManager.default.removeItem(atPath: work + "/out")
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-IPTC:City=Lyon", input]).status, 0)
        let iptc = try run([input], export: "format: jxl")
        XCTAssertTrue((iptc.stdout + iptc.stderr).contains(".jxl output cannot hold the input's IPTC"), iptc.stdout)
    }

    func testOptionsAFormatDoesNotTakeFailValidation() throws {
        let cases: [(String, String)] = [
            ("format: webp, effort: 7", "must be 0…6"),
            ("format: jxl, effort: 1", "must be 3…9"),
            ("format: jpeg, lossless: true", "does not apply to jpeg"),
            ("format: png, effort: 3", "does not apply to png"),
            ("format: avif, bitdepth: 16", "must be 8, 10 or 12"),
            ("format: avif, bitdepth: 10", "libaom here aborts"),
            ("format: jpeg, subsampling: maybe", "auto, on or off"),
            ("format: jpeg, background: [1, 2, 3]", "three numbers 0…1"),
            ("format: jpeg, background: \"#12345g\"", "#rrggbb"),
        ]
        for (export, message) in cases {
            let result = try run([landscape], export: export, status: 2)
            XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:"), "\(export): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(export): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), export)
        }
    }

    /// Where the input is fully transparent the JPEG holds the background; elsewhere it is vips'
    /// flatten of the input onto it.
    func checkFlattened(_ output: String, background: [Double]) throws {
        let flat = try made("flat.png", ["flatten", alpha, "OUT", "--background", background.map { String(Int($0)) }.joined(separator: " ")])
        let input = try Tool.vipsFloats(alpha, scratch: work), written = try Tool.vipsFloats(output, scratch: work)
        let reference = try Tool.vipsFloats(flat, scratch: work)
        XCTAssertEqual(written.bands, 3)
        var transparent = 0, worst: Float = 0
        for pixel in 0..<(input.width * input.height) where input.samples[pixel * 4 + 3] == 0 {
            transparent += 1
            for c in 0..<3 { worst = max(worst, abs(written.samples[pixel * 3 + c] - Float(background[c]))) }
        }
        XCTAssertGreaterThan(transparent, 0, "the fixture has transparent pixels")
        // JPEG at quality 100 without chroma subsampling: a few levels of DCT error next to edges.
        XCTAssertLessThanOrEqual(worst, 4, "background where alpha is 0")
        let overall = zip(written.samples, reference.samples).map { abs($0 - $1) }.max() ?? .infinity
        XCTAssertLessThanOrEqual(overall, 12, "vs vips flatten, with JPEG error at the hard alpha edges")
    }

    func testAlphaOnJPEGIsFlattenedOntoWhiteOrTheChosenBackground() throws {
        try run([alpha], export: "format: jpeg, quality: 100, subsampling: off")
        try checkFlattened(work + "/out/alpha.jpg", background: [255, 255, 255])
        try FileManager.default.removeItem(atPath: work + "/out")
        try run([alpha], export: "format: jpeg, quality: 100, subsampling: off, background: \"#ff8000\"")
        try checkFlattened(work + "/out/alpha.jpg", background: [255, 128, 0])
        // Named for a PNG, the background flattens it too (three bands, no alpha).
        try FileManager.default.removeItem(atPath: work + "/out")
        try run([alpha], export: "format: png, background: [0, 0, 1]")
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/alpha.png", "bands"), "3")
        let flat = try made("blue.png", ["flatten", alpha, "OUT", "--background", "0 0 255"])
        XCTAssertLessThanOrEqual(try largestDifference(work + "/out/alpha.png", flat), 1, "lossless: vips flatten's rounding")
    }

    func size(_ path: String) throws -> [String] { [try Tool.vipsHeader(path, "width"), try Tool.vipsHeader(path, "height")] }

    func testResizeWithoutEnlargingMatchesVipsthumbnail() throws {
        // alpha.png is 96×64 (smaller than the box), landscape.jpg 200×150 (larger).
        for mode in ["aspectFit", "aspectFill"] {
            for (input, box) in [(alpha, 400), (landscape, 100)] {
                for first in [true, false] {
                    try? FileManager.default.removeItem(atPath: work + "/out")
                    // As the first step it shrinks on load; after a filter it goes through vips_resize.
                    let resize = "resize: { width: \(box), height: \(box), mode: \(mode), enlarge: false }"
                    try run([input], filters: first ? [resize] : ["CISepiaTone: { inputIntensity: 0 }", resize], export: "format: png")
                    let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
                    let thumbnail = work + "/thumb.png"
                    var arguments = [input, "--size", "\(box)x\(box)>", "-o", thumbnail]
                    if mode == "aspectFill" { arguments += ["--smartcrop", "centre"] }
                    let made = try Tool.run("vipsthumbnail", arguments)
                    XCTAssertEqual(made.status, 0, made.stderr)
                    XCTAssertEqual(try size(work + "/out/\(stem).png"), try size(thumbnail), "\(stem) \(mode) first: \(first)")
                }
            }
        }
        // The default still enlarges (today's behaviour): 96×64 into 400×400 is 400×267.
        try? FileManager.default.removeItem(atPath: work + "/out")
        try run([alpha], filters: ["resize: { width: 400, height: 400 }"], export: "format: png")
        XCTAssertEqual(try size(work + "/out/alpha.png"), ["400", "267"])
    }
}
