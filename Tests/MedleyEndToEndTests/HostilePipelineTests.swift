import Foundation
import XCTest

/// Pipelines and media made to exhaust memory or the stack, or to write to the terminal: each is
/// refused (exit 2, nothing written) or fails its item, under limits that keep a regression from
/// taking the machine down.
final class HostilePipelineTests: EndToEndCase {
    /// Runs medley with at most 2 GB of address space, so an alias bomb that got through would
    /// fail to allocate instead of exhausting the machine.
    func medleyLimited(_ arguments: [String]) throws -> Tool.Result {
        try Tool.run("bash", ["-c", "ulimit -v 2000000; exec \"$0\" \"$@\"", Tool.medley] + arguments)
    }

    /// Ten aliases on each of nine levels: 10^10 nodes if expanded.
    func testAnAliasBombIsRefusedBeforeItExpands() throws {
        var lines = ["version: 1", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ",") + "]")
        }
        lines.append("jobs: [{ name: x, ingest: { from: [in] }, filters: [CISepiaTone], export: { to: out } }]")
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = try pipeline(lines.joined(separator: "\n") + "\n", name: "bomb.yaml")
        for command in ["validate", "run"] {
            let result = try medleyLimited([command, path])
            XCTAssertEqual(result.status, 2, "\(command): \(result.stderr)")
            // The root, version and a0…a4 make 123,463 nodes; on line 7 the 8th *a4 passes
            // 1,000,000, at column 10 + 4·7.
            XCTAssertTrue(result.stderr.hasPrefix(path + ":7:38: error: the alias *a4 (111,111 nodes) makes the file expand to more than 1,000,000 nodes"),
                          "\(command): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }

    /// 50,000 nested lists would overflow the stack of a recursive reader.
    func testDeepNestingIsRefusedWithItsPlace() throws {
        let path = try pipeline("version: 1\njobs: " + String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000) + "\n")
        let result = try medleyLimited(["validate", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        // The root mapping is level 1; the 64th "[" (column 6 + 64) opens level 65.
        XCTAssertTrue(result.stderr.hasPrefix(path + ":2:70: error: lists and mappings nest more than 64 levels deep here"),
                      result.stderr)
    }

    /// Values that pass validation but make sizes no image can have, computed from the image at run
    /// time (the fixture is 200 × 150): the item fails with the size it would have had, the run goes
    /// on; a rectangle or centre far outside the image is no trap either.
    func testSizesComputedAtRunTimeFailTheItemNotTheRun() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let input = work + "/in/landscape.jpg"
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input)
        let chains = [
            "affine": "[ CIAffineTransform: { inputTransform: [1e30, 0, 0, 1e30, 0, 0] } ]",
            "lanczos": "[ CILanczosScaleTransform: { inputScale: 100000 } ]",
            "resize-first": "[ resize: { width: 60000 } ]",
            "resize-later": "[ CIGaussianBlur: { inputRadius: 1 }, resize: { width: 60000 } ]",
            "crop": "[ CICrop: { inputRectangle: [-1e200, -1e200, 1e299, 1e299] } ]",
            "pixellate": "[ CIPixellate: { inputCenter: [1e30, -1e30], inputScale: 10 } ]",
        ]
        let path = try pipeline("version: 1\njobs:\n" + chains.keys.sorted().map { name in
            "  - { name: \(name), ingest: { from: [in] }, filters: \(chains[name]!), export: { to: out-\(name), format: png } }"
        }.joined(separator: "\n") + "\n")
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        // 200 · 1e30 × 150 · 1e30; 200 · 100000 × 150 · 100000; a 60000-wide fit: 60000 × 45000 = 2700 MP.
        for failure in [
            "CIAffineTransform: the result would be 2e+32 × 1.5e+32 pixels, longer than libvips' limit of 10,000,000 pixels a side",
            "CILanczosScaleTransform: the result would be 20000000 × 15000000 pixels, longer than libvips' limit of 10,000,000 pixels a side",
            "resize: the result would be 60000 × 45000 pixels, 2700 MP, over the 268 MP limit (limits.maxPixels)",
        ] {
            XCTAssertTrue(result.stderr.contains("  ✗ \(input): \(failure)\n"), "\(failure)\n\(result.stderr)")
        }
        XCTAssertEqual(result.stderr.components(separatedBy: "  ✗ ").count - 1, 4, result.stderr)
        for name in ["affine", "lanczos", "resize-first", "resize-later"] {
            XCTAssertEqual(Tool.files(under: work + "/out-" + name), [], name)
        }
        // The crop covers the whole image; the pixellated copy keeps its size.
        for name in ["crop", "pixellate"] {
            let size = try Tool.run("identify", ["-format", "%w %h", work + "/out-\(name)/landscape.png"])
            XCTAssertEqual(size.stdout, "200 150", name)
        }
    }

    /// inputEV 200 multiplies by 2^200, which is infinity in Float: black pixels become ∞ · 0 = NaN,
    /// which Medley writes as 0 (a NaN turned into a sample used to trap), every other value as full
    /// scale. 8- and 16-bit, on the stored-sample path and (with a flip) the float path.
    func testInfiniteExposureWritesBlackAndFullScaleWithoutATrap() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        // A 1 × 4 ramp: 0, 85, 170, 255 (or 0 … 65535).
        XCTAssertEqual(try Tool.run("convert", ["-size", "1x4", "gradient:black-white", "-depth", "8", work + "/in/ramp8.png"]).status, 0)
        XCTAssertEqual(try Tool.run("convert", ["-size", "1x4", "gradient:black-white", "-depth", "16", work + "/in/ramp16.png"]).status, 0)
        let path = try pipeline("""
            version: 1
            jobs:
              - { name: stored, ingest: { from: [in] }, filters: [ CIExposureAdjust: { inputEV: 200 } ], export: { to: out-stored, format: png } }
              - name: float
                ingest: { from: [in] }
                filters: [ CIExposureAdjust: { inputEV: 200 }, CIAffineTransform: { inputTransform: [-1, 0, 0, 1, 0, 0] } ]
                export: { to: out-float, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for folder in ["out-stored", "out-float"] {
            XCTAssertEqual(try Tool.pixels(work + "/\(folder)/ramp8.png").samples, [0, 0, 0] + Array(repeating: 255, count: 9), folder)
            XCTAssertEqual(try Tool.pixels(work + "/\(folder)/ramp16.png", depth: 16).samples,
                           [0, 0, 0] + Array(repeating: 65535, count: 9), folder)
        }
    }

    /// One 16000 × 16000 MJPEG frame in a small MKV: refused from the stream's header before a frame
    /// is decoded (decoding it took 1.95 GB), as an image header over the limit is.
    func testAMovieOverThePixelLimitIsRefusedBeforeDecoding() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let movie = work + "/in/huge.mkv"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=black:s=16000x16000:d=0.04",
                                           "-frames:v", "1", "-c:v", "mjpeg", movie])
        XCTAssertEqual(made.status, 0, made.stderr)
        let bytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: movie)[.size] as? Int)
        XCTAssertLessThan(bytes, 4_000_000, "a small file")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: huge
                ingest: { from: [in] }
                limits: { maxPixels: 100000000 }
                poster: { at: 0 }
                export: { to: out, format: png }
            """)
        // GNU time's %M: the peak resident set in KB, on the last line of standard error.
        let result = try Tool.run("/usr/bin/time", ["-f", "%M", Tool.medley, "run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("  ✗ \(movie): the video stream claims 16000 × 16000 pixels (256 MP), "
                                             + "over the 100 MP limit (limits.maxPixels); not decoded\n"), result.stderr)
        let peak = try XCTUnwrap(Int(result.stderr.split(separator: "\n").last ?? ""), result.stderr)
        XCTAssertLessThan(peak, 400_000, "peak memory in KB")
        XCTAssertEqual(Tool.files(under: work + "/out"), [])
    }

    /// A 5,000-character job name made `manifest-<job>.jsonl` longer than a file name may be: an
    /// internal error (exit 3) after the run had started. Now the pipeline is invalid.
    func testAJobNameTooLongForItsFilesIsAValidationError() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: work + "/in/a.jpg")
        let path = try pipeline("version: 1\njobs:\n  - { name: \(String(repeating: "n", count: 5000)), ingest: { from: [in] }, "
                                + "filters: [CISepiaTone], export: { to: out } }\n")
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix(path + ":3:13: error: a job name of 5000 characters is longer than the 100 allowed"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }

    /// File names and tags may hold terminal commands (ESC ] 0 ; … BEL retitles the window, ESC [ 2 J
    /// clears it): everything written for a person shows them escaped, and JSON escapes them too.
    func testControlSequencesInNamesAndTagsReachNoTerminal() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let retitle = "\u{1B}]0;pwned\u{07}", clear = "\u{1B}[2J", csi = "\u{9B}"
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/a\(retitle).jpg")
        // Not a JPEG inside: a failed item, so the name is also in the failure line and the summary.
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: input + "/b\(clear)\(csi).jpg"))
        let song = work + "/song.mp3"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.3", "-metadata", "title=t\(retitle)",
                                           "-metadata", "artist=\(clear)x", song])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: names
                ingest: { from: [in], media: [any] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
            """)
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertFalse(run.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" }, run.stderr)
        XCTAssertTrue(run.stderr.contains("ok    \(input)/a\\x1B]0;pwned\\x07.jpg → "), run.stderr)
        XCTAssertTrue(run.stderr.contains("FAIL  \(input)/b\\x1B[2J\\u009B.jpg: "), run.stderr)
        XCTAssertTrue(run.stderr.contains("  ✗ \(input)/b\\x1B[2J\\u009B.jpg: "), run.stderr)

        // A YAML escape puts ESC into a pipeline's text, and so into a validation message (the
        // quoted name starts after the 52 characters of `jobs: [{ … }, filters: [`).
        let bad = try pipeline("version: 1\njobs: [{ name: x, ingest: { from: [in] }, filters: [\"CI\\e]0;x\\aSepia\"], export: { to: out } }]\n",
                               name: "bad.yaml")
        let validate = try Tool.medley(["validate", bad])
        XCTAssertEqual(validate.status, 2, validate.stderr)
        XCTAssertTrue(validate.stderr.hasPrefix(bad + ":2:53: error: unknown filter 'CI\\x1B]0;x\\x07Sepia'"), validate.stderr)

        let probe = try Tool.medley(["probe", song, input + "/a\(retitle).jpg"])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertFalse(probe.stdout.unicodeScalars.contains("\u{1B}"), probe.stdout)
        XCTAssertTrue(probe.stdout.contains("\n  title: t\\x1B]0;pwned\\x07\n"), probe.stdout)
        XCTAssertTrue(probe.stdout.contains("\n  artist: \\x1B[2Jx\n"), probe.stdout)
        XCTAssertTrue(probe.stdout.contains("\n\(input)/a\\x1B]0;pwned\\x07.jpg\n"), probe.stdout)
        let json = try Tool.medley(["probe", "--json", song])
        XCTAssertFalse(json.stdout.unicodeScalars.contains("\u{1B}"), json.stdout)
        let records = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.data) as? [[String: Any]])
        XCTAssertEqual(records.first?["title"] as? String, "t" + retitle)
    }

    /// An artist of U+0338 (combining long solidus overlay) and "..": as Characters "/" + U+0338 is
    /// one non-"/" Character, so a String prefix test thought the output folder left the export root
    /// and refused it, naming a symbolic link that did not exist. The folder is "_" + U+0338 + "..".
    func testACombiningMarkInATagIsNoSymbolicLink() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=0.3", "-metadata", "artist=\u{0338}..",
                                           "-metadata", "title=Song", work + "/in/a.flac"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: marks
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, name: "{artist}/{title}.flac" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out").map { Array($0.unicodeScalars) }, [Array("_\u{0338}../Song.flac".unicodeScalars)])
    }

    /// "café" written precomposed (NFC) and decomposed (NFD) are two folders on Linux but one String to
    /// Swift: a link under the export root out/café leading to out/cafe + U+0301 must be refused, which a
    /// String prefix test of the resolved folder did not do.
    func testALinkToACanonicallyEquivalentFolderIsOutside() throws {
        let root = work + "/out/caf\u{E9}", twin = work + "/out/cafe\u{301}"
        for folder in [work + "/in/evil", root, twin] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/out").count, 2, "two folders")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: work + "/in/evil/a.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/evil", withDestinationPath: twin)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: twins
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: "out/caf\u{E9}", format: png, name: "{relpath}/{stem}.png" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        // The link is refused as a link (no output is written through any link under the root).
        XCTAssertTrue(result.stderr.contains("out/caf\u{E9}/evil is a symbolic link; Medley writes only through real folders"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: twin), [])
    }
}
