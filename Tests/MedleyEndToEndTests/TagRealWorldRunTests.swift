import Foundation
import XCTest

/// Tags of real-world files through whole runs: what cannot be read is an item warning (console
/// and manifest), and a job that needs the tags fails the item instead of guessing. Files are
/// made with ffmpeg and changed byte by byte; outputs are read back with ffprobe.
final class TagRealWorldRunTests: EndToEndCase {
    func ffmpeg(_ name: String, codec: String, metadata: [String: String]) throws -> String {
        let path = work + "/" + name
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=44100", "-ac", "2",
                         "-c:a", codec]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { arguments += ["-metadata", "\(key)=\(value)"] }
        let result = try Tool.run("ffmpeg", arguments + [path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return path
    }

    func formatTags(_ path: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        let tags = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        return Dictionary(uniqueKeysWithValues: tags.map { ($0.key.lowercased(), $0.value) })
    }

    func manifest(_ job: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-\(job).jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// An Ogg Vorbis file whose first audio packets share the last header page (as older
    /// encoders wrote them): probe lists its tags and `where` and the export name see them. (A
    /// dry run: libsndfile decodes no audio from such a file, which the decode work tracks.)
    func testVorbisWithAudioOnTheLastHeaderPageKeepsItsTags() throws {
        let source = try ffmpeg("framed.ogg", codec: "libvorbis", metadata: ["title": "Old Encoder", "artist": "Ärtist"])
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let shared = work + "/in/shared.ogg"
        let script = Tool.fixtures + "/tools/ogg-share-header-page.py"
        XCTAssertEqual(try Tool.run("/usr/bin/python3", [script, source, shared]).status, 0)
        XCTAssertTrue(try Tool.run("ogginfo", [shared]).stdout.contains("Terminal header page contains additional packets"))
        let probe = try Tool.medley(["probe", shared])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertTrue(probe.stdout.contains("\n  title: Old Encoder\n"), probe.stdout)
        XCTAssertTrue(probe.stdout.contains("\n  artist: Ärtist\n"), probe.stdout)
        XCTAssertFalse(probe.stdout.contains("warnings"), probe.stdout)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: old
                ingest: { from: [\(work!)/in] }
                where: { title: "Old Encoder" }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, name: "{artist} - {title}.flac" }
            """)
        let result = try Tool.medley(["run", path, "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains("shared.ogg → \(work!)/out/Ärtist - Old Encoder.flac (dry run)"),
                      result.stdout + result.stderr)
        XCTAssertFalse(result.stderr.contains("warn"), result.stderr)
    }

    /// An MP3 whose ID3v2 header claims an extended header that is not there (mpg123 skips the
    /// tag and plays the audio): converted with a warning naming why, or failed when the job
    /// needs its tags.
    func testUnreadableTagsAreAWarningOrAnItemFailure() throws {
        let made = try ffmpeg("made.mp3", codec: "libmp3lame", metadata: ["title": "Hidden"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: made)))
        XCTAssertEqual(Array(bytes[0..<4]), [0x49, 0x44, 0x33, 4], "ffmpeg writes ID3v2.4")
        bytes[5] |= 0x40 // "an extended header follows": the first frame's bytes are read as its size
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: work + "/in/damaged.mp3"))
        let reason = "the ID3v2 extended header says it is"

        let plain = try pipeline("""
            version: 1
            jobs:
              - name: plain
                ingest: { from: [\(work!)/in] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, name: "{stem}.flac" }
            """)
        let converted = try Tool.medley(["run", plain])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let warning = converted.stderr.split(separator: "\n").filter { $0.hasPrefix("warn") }
        XCTAssertEqual(warning.count, 1, converted.stderr)
        XCTAssertTrue(warning.first?.contains("damaged.mp3: cannot read the tags") == true, converted.stderr)
        XCTAssertTrue(warning.first?.contains(reason) == true, converted.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/damaged.flac"))
        let record = try XCTUnwrap(try manifest("plain").first)
        XCTAssertEqual(record["status"] as? String, "succeeded")
        XCTAssertTrue((record["warnings"] as? [String] ?? []).joined().contains(reason), "\(record)")

        for (job, stage, name, use) in [("tagged", "tag: { set: { comments: converted } }", "{stem}.flac", "tag stage"),
                                        ("named", "where: { ext: mp3 }", "{artist}/{stem}.flac", "export name ({artist})")] {
            let path = try pipeline([
                "version: 1", "jobs:", "  - name: \(job)", "    ingest: { from: [\(work!)/in] }",
                "    transcode: { AVFormatIDKey: kAudioFormatFLAC }", "    \(stage)", "    export: { to: out, name: \"\(name)\" }",
            ].joined(separator: "\n"), name: job + ".yaml")
            let result = try Tool.medley(["run", path])
            XCTAssertNotEqual(result.status, 0, result.stderr)
            let failure = result.stderr.split(separator: "\n").first { $0.hasPrefix("FAIL") }
            XCTAssertTrue(failure?.contains(reason) == true, result.stderr)
            XCTAssertTrue(failure?.contains("the job's \(use) needs them") == true, result.stderr)
            XCTAssertEqual(try manifest(job).first?["status"] as? String, "failed")
            XCTAssertEqual(Tool.files(under: work + "/out").filter { $0.hasSuffix(".flac") }, ["damaged.flac"], "nothing more written")
        }
    }
}
