import Foundation
import XCTest

/// The thumbnail job (turned upright by EXIF, resized to fit 320 × 320, metadata stripped; to JPEG,
/// WebP and AVIF) over the awkward real-world images of `fixtures/realworld/make-awkward.sh` (issue
/// 30), in one run, each output against `vipsthumbnail IN -s 320` written to the same format at the
/// same quality: sizes exact, pictures box-averaged to 24 × 24 (`box-compare.py`, numpy) within 2
/// levels. Files that cannot be read or are over the pixel limit may be refused — each alone, named
/// with its reason in the console and the manifest.
final class AwkwardThumbnailTests: EndToEndCase {
    static let corpus = Tool.testData + "/awkward/awkward"
    static let formats = [("jpeg", "jpg"), ("webp", "webp"), ("avif", "avif")]

    /// Files Medley may refuse, and what their reason must say.
    static let refusable = [
        // vips reads the half it has and fills the rest grey (a warning); Medley refuses a picture it
        // cannot read whole rather than writing a half-grey thumbnail.
        "truncated.jpg": "Premature end",
        "truncated.png": "read error",
        // 30000 × 30000 in the header: over the 268 MP limit, refused before decoding (vipsthumbnail
        // fails on it as well).
        "bomb.png": "limits.maxPixels",
    ]

    /// Cases where Medley and vipsthumbnail legitimately differ, with the reason and the bound kept
    /// (max, mean levels at 24 × 24).
    static let differences: [String: (reason: String, max: Double, mean: Double)] = [
        // An animation stays an animation in WebP (Medley keeps every frame; vipsthumbnail loads page 0
        // and writes a still). The resized frames are the same — the JPEG and AVIF outputs of the same
        // files match exactly — but libwebp's animation encoder codes frame 0 otherwise than its still
        // encoder does (measured: max 3.65–3.96, mean 0.57–0.68).
        "animated.gif/webp": ("WebP animation vs still encoding of the same frame", 6, 1),
        "animated.webp/webp": ("WebP animation vs still encoding of the same frame", 6, 1),
    ]

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.corpus + "/.done"),
                      "the awkward corpus is missing under \(Self.corpus): run scripts/test-data.sh")
    }

    func testThumbnailsOfAwkwardFilesAreVipsthumbnails() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus).filter { !$0.hasPrefix(".") }.sorted()
        // Every case of the corpus is there (AVIF and JPEG 2000 only where libvips writes them).
        for name in ["orient-o1.jpg", "orient-o2.jpg", "orient-o3.jpg", "orient-o4.jpg", "orient-o5.jpg", "orient-o6.jpg",
                     "orient-o7.jpg", "orient-o8.jpg", "orient-o6.png", "cmyk-profiled.jpg", "cmyk-noprofile.jpg", "p3.jpg",
                     "p3.png", "prophoto.jpg", "prophoto16.tif", "rgb16.png", "rgb16.tif", "grey16.png", "grey-alpha.png",
                     "palette.png", "palette-trns.png", "animated.gif", "animated.webp", "multipage.tif", "icon.svg", "big.svg", "gainmap.jpg",
                     "truncated.jpg", "truncated.png", "bomb.png"] {
            XCTAssertTrue(files.contains(name), "the corpus has \(name)")
        }
        try run(files: files)
    }

    func run(files: [String]) throws {
        let result = try Tool.medley(["run", try pipeline("version: 1\njobs:\n" + Self.formats.map { format, _ in """
              - name: thumb-\(format)
                ingest: { from: [\(Self.corpus)] }
                filters: [ { resize: { width: 320, height: 320, mode: aspectFit } } ]
                export: { to: out-\(format), format: \(format), quality: 80, strip: true, name: "{stem}-{inputExt}.{ext}" }

            """ }.joined()), "--failed-items-ok", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)

        var pairs = ""
        for (format, ext) in Self.formats {
            let manifest = try String(contentsOfFile: work + "/out-\(format)/.medley/manifest-thumb-\(format).jsonl", encoding: .utf8)
                .split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            var records: [String: [String: Any]] = [:]
            for record in manifest { if let item = record["item"] as? String { records[item] = record } }
            XCTAssertEqual(Set(records.keys), Set(files), "\(format): one record a file")
            for name in files {
                let record = try XCTUnwrap(records[name], name)
                let input = Self.corpus + "/" + name
                if record["status"] as? String == "failed" {
                    let reason = record["error"] as? String ?? ""
                    let expected = try XCTUnwrap(Self.refusable[name], "\(format): \(name) failed: \(reason)")
                    XCTAssertTrue(reason.contains(expected), "\(format): \(name)'s reason names it: \(reason)")
                    XCTAssertTrue(result.stderr.contains("✗ " + input + ": " + reason), "the summary names \(input)\n\(result.stderr)")
                    XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out-\(format)/\((name as NSString).deletingPathExtension)-\((name as NSString).pathExtension).\(ext)"))
                    continue
                }
                XCTAssertNotEqual(name, "bomb.png", "\(format): a 900 MP picture is refused before decoding")
                XCTAssertEqual(record["status"] as? String, "succeeded", "\(format): \(name)")
                // What the one-picture output leaves out is said, in words that fit the file: frames of an
                // animation, pages of a TIFF; a JPEG 2000's resolution levels (libvips counts them as
                // pages) leave nothing out.
                let warnings = (record["warnings"] as? [String] ?? []).joined(separator: "; ")
                switch name {
                case "animated.gif" where format != "webp", "animated.webp" where format != "webp":
                    XCTAssertTrue(warnings.contains("an animation of 3 frames"), "\(format) \(name): \(warnings)")
                case "multipage.tif":
                    XCTAssertTrue(warnings.contains("a file of 2 pages: only the first is written"), "\(format) \(name): \(warnings)")
                case "jp2.jp2":
                    XCTAssertFalse(warnings.contains("frames") || warnings.contains("pages"), "\(format) \(name): \(warnings)")
                default: break
                }
                let mine = try XCTUnwrap(record["output"] as? String, name)
                // The peer: vipsthumbnail turns by EXIF and shrinks on load; a picture with a profile
                // is taken to sRGB as Medley's output is (--export-profile srgb); same format, same quality,
                // flattened onto white where the format has no alpha (Medley's export.background default).
                let peer = work + "/peer/\((mine as NSString).lastPathComponent)"
                try FileManager.default.createDirectory(atPath: work + "/peer", withIntermediateDirectories: true)
                let profiled = try Tool.run("vipsheader", ["-a", input]).stdout.contains("icc-profile-data")
                let made = try Tool.run("vipsthumbnail", [input, "-s", "320"] + (profiled ? ["--export-profile", "srgb"] : [])
                                        + ["-o", peer + "[Q=80,background=255]"])
                XCTAssertEqual(made.status, 0, "vipsthumbnail \(name): \(made.stderr)")
                pairs += "\(name)/\(format)\t\(mine)\t\(peer)\n"
            }
        }
        try pairs.write(toFile: work + "/pairs.tsv", atomically: true, encoding: .utf8)
        let compared = try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/box-compare.py", work + "/pairs.tsv"])
        XCTAssertEqual(compared.status, 0, compared.stderr)
        let lines = compared.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.count, pairs.split(separator: "\n").count, compared.stdout)
        // The measured table, for the log.
        print(compared.stdout)
        for fields in lines {
            let name = fields.first ?? "?"
            guard fields.count == 7, let max = Double(fields[5]), let mean = Double(fields[6]) else {
                XCTFail("\(name): \(fields.joined(separator: " "))"); continue
            }
            XCTAssertEqual(fields[1], fields[3], "\(name): width as vipsthumbnail's")
            XCTAssertEqual(fields[2], fields[4], "\(name): height as vipsthumbnail's")
            let bound = Self.differences[name] ?? ("", 2, 2)
            XCTAssertLessThanOrEqual(max, bound.max, "\(name): 24 × 24 boxes within \(bound.max) levels (\(bound.reason)); mean \(mean)")
            XCTAssertLessThanOrEqual(mean, bound.mean, "\(name)")
        }
    }
}
