import Foundation
import XCTest

/// The media library end to end (docs/library.md, docs/metadata.md, docs/runs.md): tags read from FLAC/Ogg/MP3/M4A written by the
/// ffmpeg CLI, `where`, `tag`, names from tags, tags and cover art carried into AAC, and the
/// playlist — every check made with ffprobe/ffmpeg or by reading the files, not with Medley.
final class LibraryRunTests: EndToEndCase {
    let music = Tool.fixtures + "/music"

    /// ffprobe's format tags of a file, keys lower-cased.
    func tags(_ path: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        let tags = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        return Dictionary(uniqueKeysWithValues: tags.map { ($0.key.lowercased(), $0.value) })
    }

    /// The bytes of the attached picture, extracted by the ffmpeg CLI.
    func cover(_ path: String) throws -> Data? {
        let out = work + "/cover-\(UUID().uuidString)"
        let result = try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "image2", out])
        guard result.status == 0 else { return nil }
        return FileManager.default.contents(atPath: out)
    }

    func testAmbientExamplePipelineFilesTagsCoversAndPlaylist() throws {
        // The example pipeline as shipped, pointed at this test's output folder.
        var text = try String(contentsOfFile: Tool.packageRoot + "/pipelines/ambient-to-aac.yaml", encoding: .utf8)
        text = text.replacingOccurrences(of: "../fixtures/music", with: music)
            .replacingOccurrences(of: "../out/ambient", with: work + "/out")
        let path = try pipeline(text)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)

        let expected = ["Aria Tone/Quiet Hours/1-01 Morning Drone.m4a", "Aria Tone/Quiet Hours/1-02 Evening Drone.m4a",
                        "Various Artists/Mixed Bag/2-03 Café Song ☕.m4a"]
        XCTAssertEqual(Set(Tool.files(under: work + "/out")), Set(expected + ["ambient.m3u8"]),
                       "genre Rock, the podcast and the untagged file are left out")

        let first = try tags(work + "/out/" + expected[0])
        XCTAssertEqual(first["title"], "Morning Drone")
        XCTAssertEqual(first["artist"], "Aria Tone")
        XCTAssertEqual(first["album_artist"], "Aria Tone")
        XCTAssertEqual(first["album"], "Quiet Hours")
        XCTAssertEqual(first["genre"], "Ambient")
        XCTAssertEqual(first["composer"], "A. Tone")
        XCTAssertEqual(first["track"], "1/2")
        XCTAssertEqual(first["disc"], "1/1")
        XCTAssertEqual(first["comment"], "converted by Medley from flac", "tag.set with a template")
        XCTAssertEqual(try cover(work + "/out/" + expected[0]),
                       FileManager.default.contents(atPath: Tool.fixtures + "/artwork/cover.jpg"),
                       "the FLAC's cover, byte for byte")
        let compilation = try tags(work + "/out/" + expected[2])
        XCTAssertEqual(compilation["title"], "Café Song ☕")
        XCTAssertEqual(compilation["artist"], "Zoë")
        XCTAssertEqual(compilation["disc"], "2/2")
        XCTAssertEqual(compilation["compilation"], "1")
        let codec = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name",
                                             "-of", "csv=p=0", work + "/out/" + expected[1]])
        XCTAssertEqual(codec.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "aac")

        // The playlist: #EXTM3U, one #EXTINF per item with "artist - title", paths relative to it.
        let playlist = try String(contentsOfFile: work + "/out/ambient.m3u8", encoding: .utf8)
        let lines = playlist.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "#EXTM3U")
        let paths = lines.filter { !$0.hasPrefix("#") }
        XCTAssertEqual(Set(paths), Set(expected))
        XCTAssertTrue(lines.contains("#EXTINF:1,Aria Tone - Morning Drone"), playlist)
        XCTAssertTrue(lines.contains("#EXTINF:1,Zoë - Café Song ☕"), playlist)
        // Seeded: a forced re-run shuffles the same way.
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet", "--force"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: work + "/out/ambient.m3u8", encoding: .utf8), playlist)
    }

    func testPodcastMediaTypeComesFromTheTags() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: podcasts
                ingest: { from: [\(music)], media: [podcast] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100 }
                export: { to: out, name: "{podcastTitle|albumTitle}/{title}.m4a" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["The Show/Episode 1: Hello.m4a"])
    }

    func testCoverArtExportAndEmbed() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: covers
                ingest: { from: [\(music)/incoming], include: ["*.flac", "*.mp3"] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100 }
                tag: { artwork: { export: "covers/{albumTitle}.{ext}" } }
                export: { to: out, name: "{stem}.m4a" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: work + "/out/covers/Quiet Hours.jpg"),
                       FileManager.default.contents(atPath: Tool.fixtures + "/artwork/cover.jpg"))
        XCTAssertEqual(FileManager.default.contents(atPath: work + "/out/covers/Edges.png"),
                       FileManager.default.contents(atPath: Tool.fixtures + "/artwork/cover.png"))
        // The untagged FLAC has no cover: nothing exported for it, and it still converts.
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/untagged.m4a"))
        XCTAssertEqual(Tool.files(under: work + "/out/covers").count, 2)

        let embed = try pipeline("""
            version: 1
            jobs:
              - name: embed
                ingest: { from: [\(music)/incoming/untagged.flac] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100 }
                tag:
                  set: { title: "Now Tagged", albumTrackNumber: "7" }
                  artwork: { embed: \(Tool.fixtures)/artwork/cover.png }
                export: { to: embedded, name: "{albumTrackNumber:02} {title}.m4a" }
            """, name: "embed.yaml")
        let embedded = try Tool.medley(["run", embed, "--quiet"])
        XCTAssertEqual(embedded.status, 0, embedded.stderr)
        let output = work + "/embedded/07 Now Tagged.m4a"
        XCTAssertEqual(try tags(output)["title"], "Now Tagged")
        XCTAssertEqual(try cover(output), FileManager.default.contents(atPath: Tool.fixtures + "/artwork/cover.png"))
    }

    func testWhereOnImagePropertiesAndTagsFromThePath() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: wide
                ingest: { from: [\(Tool.fixtures)/images], exclude: ["thumbs/**"] }
                where:
                  width: { gte: 200 }
                  any: [ { format: jpeg }, { format: webp } ]
                filters: [ CIPhotoEffectMono ]
                export: { to: out, format: png, name: "{stem}-{width}x{height}.png" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // What ImageMagick says about each fixture decides which should be kept.
        var expected: [String] = []
        for name in ["landscape.jpg", "photo.webp", "portrait-exif6.jpg", "alpha.png", "gray.png", "deep16.png"] {
            let size = try Tool.run("identify", ["-format", "%w %h", Tool.fixtures + "/images/" + name]).stdout.split(separator: " ")
            let (w, h) = (Int(size[0]) ?? 0, Int(size[1]) ?? 0)
            let stem = (name as NSString).deletingPathExtension
            if w >= 200 && (name.hasSuffix(".jpg") || name.hasSuffix(".webp")) { expected.append("\(stem)-\(w)x\(h).png") }
        }
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(Tool.files(under: work + "/out"), expected.sorted())
    }

    /// CAF's info chunk has no album artist, disc or artwork: converting the tagged FLAC to CAF
    /// keeps what CAF holds (checked with ffprobe) and reports the rest, in the console and the
    /// manifest.
    func testTagsAContainerCannotHoldAreReported() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: caf
                ingest: { from: [\(music)/incoming/ambient-01.flac] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM }
                export: { to: out, name: "{stem}.caf" }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let warning = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("warn") }, result.stderr)
        for lost in ["albumArtist", "artwork", "discNumber", "discCount", "albumTrackCount"] {
            XCTAssertTrue(warning.contains(lost), "\(lost) in: \(warning)")
        }
        XCTAssertFalse(warning.contains("title"), "CAF holds the title: \(warning)")
        let kept = try tags(work + "/out/ambient-01.caf")
        XCTAssertEqual(kept["title"], "Morning Drone")
        XCTAssertEqual(kept["artist"], "Aria Tone")
        XCTAssertEqual(kept["album"], "Quiet Hours")
        let line = try String(contentsOfFile: work + "/out/.medley/manifest-caf.jsonl", encoding: .utf8)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertTrue((record["warnings"] as? [String] ?? []).joined().contains("albumArtist"), "\(record)")
    }

    /// A file whose path does not fit `from_path` keeps its own tags (as beets leaves them) and is
    /// exported with a warning, in the console and the manifest; the one that fits is tagged.
    func testAPathThatDoesNotFitFromPathIsAWarning() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/Nina", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/tone.flac", toPath: input + "/Nina/01 Intro.flac")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/tone.flac", toPath: input + "/loose.flac")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: paths
                ingest: { from: [in] }
                tag: { from_path: "{artist}/{albumTrackNumber} {title}" }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, name: "{stem}.flac" }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = "tag.from_path: 'loose' does not fit \"{artist}/{albumTrackNumber} {title}\"; its tags are left as they were"
        XCTAssertTrue(result.stderr.contains("warn  \(input)/loose.flac: \(expected)"), result.stderr)
        XCTAssertEqual(try tags(work + "/out/01 Intro.flac")["artist"], "Nina")
        XCTAssertEqual(try tags(work + "/out/loose.flac")["artist"], try tags(input + "/loose.flac")["artist"])
        let lines = try String(contentsOfFile: work + "/out/.medley/manifest-paths.jsonl", encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let warnings = Dictionary(uniqueKeysWithValues: records.map { ($0["item"] as? String ?? "", $0["warnings"] as? [String] ?? []) })
        XCTAssertEqual(warnings, ["Nina/01 Intro.flac": [], "loose.flac": [expected]])
    }
}

