import Foundation
import XCTest

/// The representative subset of the real-world image corpus (tracker issue 14), built once per
/// class by `fixtures/realworld/make-images.sh --subset`, checked by `check-images.py` against
/// libvips' own decode; plus the two bugs the corpus work fixed. The full corpus (Debian packages)
/// runs in the script, not here.
final class RealWorldImageCorpusTests: EndToEndCase {
    /// OUTDIR of the subset: built on first use, shared by the class's tests.
    nonisolated(unsafe) static var corpus: String?

    override class func tearDown() {
        if let corpus { try? FileManager.default.removeItem(atPath: corpus) }
        corpus = nil
        super.tearDown()
    }

    /// The subset's image folder (OUTDIR/images).
    func subset() throws -> String {
        if let corpus = Self.corpus { return corpus + "/images" }
        let folder = NSTemporaryDirectory() + "medley-image-corpus-\(UUID().uuidString)"
        let made = try Tool.run(Tool.fixtures + "/realworld/make-images.sh", [folder, "--subset"])
        XCTAssertEqual(made.status, 0, made.stderr)
        Self.corpus = folder
        return folder + "/images"
    }

    func testMedleyDecodesEveryImageOfTheSubsetAsLibvipsDoes() throws {
        let images = try subset()
        let result = try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/check-images.py", images, "--medley", Tool.medley])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        // The totals row: | **total** | **files** | **agree** | **differ** | **refused** | **wrong** |
        let total = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("| **total**") }, result.stdout)
        let counts = total.split(separator: "|").dropFirst().map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "*", with: "")) }
        XCTAssertEqual(counts.count, 5, String(total))
        let files = try XCTUnwrap(counts.first ?? nil)
        XCTAssertGreaterThanOrEqual(files, 50, "every kind of the matrix: \(total)")
        XCTAssertEqual(counts[1], files, "all agree: \(total)")
        XCTAssertFalse(result.stdout.contains("\nDIFF ") || result.stdout.hasPrefix("DIFF "), result.stdout)
    }

    /// Mean absolute difference, in levels of 255, between frame `page` of Medley's output and vips'
    /// autorotated frame of the input.
    func frameDifference(output: String, input: String, page: Int) throws -> (mine: Int, theirs: Int, mean: Double) {
        let mine = work + "/mine-\(page).png", theirs = work + "/theirs-\(page).png"
        try Tool.vips(["copy", output + "[page=\(page)]", mine])
        try Tool.vips(["autorot", input + "[page=\(page)]", theirs])
        let a = try Tool.pixels(mine, channels: "rgb"), b = try Tool.pixels(theirs, channels: "rgb")
        XCTAssertEqual([a.width, a.height], [b.width, b.height], "frame \(page)")
        guard a.samples.count == b.samples.count, !a.samples.isEmpty else { return (a.width, b.width, .infinity) }
        let sum = zip(a.samples, b.samples).reduce(0) { $0 + abs($1.0 - $1.1) }
        return (a.width, b.width, Double(sum) / Double(a.samples.count))
    }

    func testAnimationFramesAreTurnedUprightByTheirEXIFOrientationAsStillsAre() throws {
        let images = try subset()
        for (name, turned) in [("two-frames-o6", true), ("two-frames-o3", false)] {
            let input = images + "/animated/" + name + ".webp"
            // The peer's view: exiftool reads the orientation, vips loads two 200x150 frames.
            XCTAssertEqual(try Tool.exif(input, "Orientation"), turned ? "6" : "3")
            XCTAssertEqual(try Tool.vipsHeader(input, "n-pages"), "2")
            let folder = work + "/" + name
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: anim
                    ingest: { from: [\(input)] }
                    export: { to: \(folder), format: webp, name: "{stem}.{ext}" }
                """)
            let result = try Tool.medley(["run", path, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let output = folder + "/" + name + ".webp"
            XCTAssertEqual(try Tool.vipsHeader(output, "n-pages"), "2", name)
            // Orientation 6 turns each 200x150 frame into 150x200; before, the frames stayed as stored.
            XCTAssertEqual(try Tool.vipsHeader(output, "width"), turned ? "150" : "200", name)
            XCTAssertEqual(try Tool.vipsHeader(output, "height"), turned ? "200" : "150", "\(name): frame 0 only")
            // The tag went with the rotation: a viewer must not turn the frames a second time.
            XCTAssertNotEqual(try Tool.exif(output, "Orientation"), turned ? "6" : "3", name)
            for page in 0..<2 {
                // Tolerance: 6 levels of 255 on average, for WebP's lossy re-encoding (measured ≈ 1–2);
                // an unrotated 180° frame is ≈ 30–55 away.
                let difference = try frameDifference(output: output, input: input, page: page)
                XCTAssertLessThanOrEqual(difference.mean, 6, "\(name) frame \(page)")
            }
        }
    }

    func testFloatImagesBecomeSixteenBitSRGBWithAWarning() throws {
        let images = try subset()
        let input = images + "/float/scrgb-float.tif"
        XCTAssertEqual([try Tool.vipsHeader(input, "format"), try Tool.vipsHeader(input, "interpretation")], ["float", "scrgb"])
        let path = try pipeline("""
            version: 1
            jobs:
              - name: float
                ingest: { from: [\(input)] }
                export: { to: \(work!)/out, format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/scrgb-float.png"
        // Before, 32-bit float samples were written as 8-bit without a word.
        XCTAssertEqual(try Tool.vipsHeader(output, "format"), "ushort")
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-float.jsonl", encoding: .utf8)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any])
        XCTAssertEqual(record["warnings"] as? [String],
                       ["32-bit float samples (scrgb): written as 16-bit integers; values outside 0…1 after the conversion to sRGB are clipped"])
        // The pixels: vips' own scRGB → 16-bit sRGB, within 1 step of 65535 (both round once).
        let reference = work + "/reference.png"
        try Tool.vips(["colourspace", input, reference, "rgb16"])
        let mine = try Tool.pixels(output, depth: 16), theirs = try Tool.pixels(reference, depth: 16)
        XCTAssertEqual(mine.samples.count, theirs.samples.count)
        XCTAssertLessThanOrEqual(zip(mine.samples, theirs.samples).map { abs($0 - $1) }.max() ?? .max, 1)
    }

    func testProbeShowsLibraryMessagesAsTheFilesWarningsNotRawStderr() throws {
        // An EXIF resolution unit of 7 (only 1–3 exist): libvips logs "unknown EXIF resolution unit".
        let odd = work + "/odd-unit.jpg", clean = Tool.fixtures + "/images/landscape.jpg"
        try FileManager.default.copyItem(atPath: clean, toPath: odd)
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-n", "-ResolutionUnit=7", odd]).status, 0)
        let peer = try Tool.run("vipsheader", ["-a", odd])
        XCTAssertTrue(peer.stderr.contains("VIPS-WARNING") && peer.stderr.contains("unknown EXIF resolution unit"), peer.stderr)

        let json = try Tool.medley(["probe", "--json", odd, clean])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertFalse(json.stderr.contains("VIPS-WARNING") || json.stderr.contains("**"), "raw GLib line: \(json.stderr)")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.data) as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        XCTAssertTrue((entries[0]["warnings"] as? String)?.hasPrefix("VIPS: unknown EXIF resolution unit") == true, "\(entries[0])")
        XCTAssertNil(entries[1]["warnings"], "the clean file has none")
        XCTAssertEqual(entries[0]["width"] as? Int, Int(try Tool.vipsHeader(odd, "width")))

        let text = try Tool.medley(["probe", odd])
        XCTAssertFalse(text.stderr.contains("VIPS-WARNING"), text.stderr)
        XCTAssertTrue(text.stdout.contains("  warnings: VIPS: unknown EXIF resolution unit"), text.stdout)
    }
}
