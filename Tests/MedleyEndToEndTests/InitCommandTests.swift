import Foundation
import XCTest

/// `medley init [TEMPLATE] [FILE]`: every starter pipeline the issue names is valid once the
/// folders it reads exist, its prose is all YAML comments (PyYAML reads the same data with and
/// without them), and an existing file is never overwritten.
final class InitCommandTests: EndToEndCase {
    static let templates = ["photos", "web-export", "music-library", "podcast", "movies"]

    /// PyYAML's reading of a file as JSON, with its comments (`#` to the end of a line) or without
    /// them; also every string value, to see that no comment became part of a value.
    func python(_ path: String, strippingComments: Bool) throws -> String {
        let script = """
            import json, re, sys, yaml
            text = open(sys.argv[1]).read()
            if sys.argv[2] == "strip":
                text = "\\n".join(re.sub(r"(^|\\s)#.*$", "", line) for line in text.split("\\n"))
            print(json.dumps(yaml.safe_load(text), sort_keys=True))
            """
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path, strippingComments ? "strip" : "keep"])
        XCTAssertEqual(result.status, 0, "\(path): \(result.stderr)")
        return result.stdout
    }

    func testListNamesTheTemplates() throws {
        let list = try Tool.medley(["init", "--list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }, Self.templates)
    }

    func testEveryTemplateIsAValidCommentedPipeline() throws {
        for template in Self.templates {
            let folder = work + "/" + template
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/starter.yaml"
            let written = try Tool.medley(["init", template, path])
            XCTAssertEqual(written.status, 0, written.stderr)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertEqual(try Tool.medley(["init", template, "-"]).stdout, text, "'-' prints the same template")

            // Commented: a good share of the lines are comments, and they are YAML comments.
            let lines = text.split(separator: "\n")
            let comments = lines.filter { $0.contains("#") }
            XCTAssertGreaterThanOrEqual(comments.count * 3, lines.count, "\(template): at least a third of the lines explain")
            let withComments = try python(path, strippingComments: false)
            XCTAssertEqual(withComments, try python(path, strippingComments: true), "\(template): comments carry no data")
            XCTAssertFalse(withComments.contains("#"), "\(template): no comment text inside a value")
            XCTAssertTrue(withComments.contains(#""version": 1"#), withComments)

            // Valid once the folders it reads (its ingest.from, as PyYAML reads them) exist.
            let roots = try Tool.run("/usr/bin/python3", ["-c", """
                import sys, yaml
                for job in yaml.safe_load(open(sys.argv[1]))["jobs"]:
                    for root in job["ingest"]["from"]: print(root)
                """, path]).stdout.split(separator: "\n").map(String.init)
            XCTAssertFalse(roots.isEmpty, template)
            let missing = try Tool.medley(["validate", path])
            XCTAssertEqual(missing.status, 2, "\(template): its input folder does not exist yet")
            for root in roots {
                try FileManager.default.createDirectory(atPath: folder + "/" + root, withIntermediateDirectories: true)
            }
            let valid = try Tool.medley(["validate", path])
            XCTAssertEqual(valid.status, 0, "\(template): \(valid.stderr)")
        }
    }

    /// The web-export starter run for real on two fixture photos: WebP outputs, never enlarged.
    func testWebExportTemplateRuns() throws {
        let path = work + "/web.yaml"
        XCTAssertEqual(try Tool.medley(["init", "web-export", path]).status, 0)
        try FileManager.default.createDirectory(atPath: work + "/photos", withIntermediateDirectories: true)
        for name in ["landscape.jpg", "alpha.png"] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/" + name, toPath: work + "/photos/" + name)
        }
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        for (name, output) in [("landscape.jpg", "landscape.webp"), ("alpha.png", "alpha.webp")] {
            let made = work + "/out/web/" + output
            XCTAssertEqual(try Tool.vipsHeader(made, "vips-loader"), "webpload", output)
            for field in ["width", "height"] {
                let input = Int(try Tool.vipsHeader(work + "/photos/" + name, field)) ?? 0
                XCTAssertEqual(Int(try Tool.vipsHeader(made, field)), input > 1600 ? nil : input, "\(output) \(field)")
            }
        }
    }

    /// The podcast starter on four seconds of SoX's pink noise: an MP3 at -16 LUFS (±1 LU: the fades and
    /// trimmed ends count too) with its peak under -1 dBFS, by ffmpeg's EBU R128 meter; 5.1 mixed to stereo.
    func testPodcastTemplateMeetsTheLoudnessTarget() throws {
        let path = work + "/podcast.yaml"
        XCTAssertEqual(try Tool.medley(["init", "podcast", path]).status, 0)
        try FileManager.default.createDirectory(atPath: work + "/episodes", withIntermediateDirectories: true)
        let sox = try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", work + "/episodes/noise.wav", "synth", "4", "pinknoise", "vol", "0.3"])
        XCTAssertEqual(sox.status, 0, sox.stderr)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/five-one-48000.wav", toPath: work + "/episodes/five-one.wav")
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let meter = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", work + "/out/podcast/noise.mp3", "-af", "ebur128=peak=sample", "-f", "null", "-"])
        func value(_ label: String) -> Double? {
            // The summary at the end: "    I:         -16.7 LUFS", "    Peak:       -5.9 dBFS".
            meter.stderr.components(separatedBy: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label + ":") }
                .flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Double($0) } }
        }
        let integrated = try XCTUnwrap(value("I"), meter.stderr)
        XCTAssertEqual(integrated, -16, accuracy: 1, "integrated loudness")
        XCTAssertLessThanOrEqual(try XCTUnwrap(value("Peak"), meter.stderr), -1)
        for (output, channels) in [("noise.mp3", "2"), ("five-one.mp3", "2")] {
            let probe = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,channels", "-of", "csv=p=0",
                                                 work + "/out/podcast/" + output])
            XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "mp3,\(channels)", output)
        }
    }

    func testExistingFileIsNeverOverwritten() throws {
        let path = work + "/mine.yaml"
        try "my own pipeline\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try Tool.medley(["init", "podcast", path])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("exists"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "my own pipeline\n")
        // A symbolic link at the name is refused too, and what it points at is untouched.
        let target = work + "/target.txt"
        try "target\n".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: work + "/link.yaml", withDestinationPath: target)
        XCTAssertEqual(try Tool.medley(["init", "photos", work + "/link.yaml"]).status, 2)
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "target\n")
        // A dangling link, which O_CREAT alone would follow and create.
        try FileManager.default.createSymbolicLink(atPath: work + "/dangling.yaml", withDestinationPath: work + "/made-through-link.yaml")
        XCTAssertEqual(try Tool.medley(["init", "photos", work + "/dangling.yaml"]).status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/made-through-link.yaml"))
    }

    func testUnknownTemplateIsRefusedWithASuggestion() throws {
        let result = try Tool.medley(["init", "podcats", work + "/p.yaml"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("did you mean 'podcast'"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/p.yaml"))
    }
}
