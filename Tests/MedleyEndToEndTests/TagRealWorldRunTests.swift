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
        XCTAssertTrue((result.stdout + result.stderr).contains("shared.ogg → \(work!)/out/Ärtist - Old Encoder.flac\n"),
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

    /// What mutagen reads: every tag by mutagen's key (ID3 HashKey such as "TXXX:REPLAYGAIN_TRACK_GAIN",
    /// MP4 atom name, Vorbis field in upper case) with all its values.
    static let mutagenDump = #"""
import sys, json, mutagen
from mutagen.id3 import ID3
f = mutagen.File(sys.argv[1])
out = {}
tags = f.tags
if isinstance(tags, ID3):
    for key, frame in tags.items():
        if frame.FrameID == "UFID": out[key] = [frame.data.decode("latin-1")]
        elif hasattr(frame, "text"): out[key] = [str(t) for t in frame.text]
elif type(f).__name__ == "MP4":
    for key, values in tags.items():
        out[key] = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]
else:
    for key, value in tags: out.setdefault(key.upper(), []).append(value)
print(json.dumps(out))
"""#

    func mutagen(_ path: String) throws -> [String: [String]] {
        let result = try Tool.run("/usr/bin/python3", ["-c", Self.mutagenDump, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: [String]], result.stdout)
    }

    /// A FLAC tagged by mutagen with ReplayGain, a MusicBrainz recording ID, ISRC, copyright and
    /// three ARTIST fields, converted to FLAC, MP3, M4A, Ogg Opus, WAV and CAF: mutagen (ffprobe
    /// for CAF, which mutagen does not read) finds every one of them in each output, all three
    /// artists where the container holds several values, or the item's warnings name what is missing.
    func testTagsOutsideTheSpecAndSeveralValuesAreCarriedOrReported() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let source = work + "/in/extra.flac"
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=44100",
                                               "-c:a", "flac", "-fflags", "+bitexact", source]).status, 0)
        let tagging = #"""
import sys
from mutagen.flac import FLAC
f = FLAC(sys.argv[1])
f.delete()
f["TITLE"] = "Extra"
f["ARTIST"] = ["First Ärtist", "Second", "Third"]
f["REPLAYGAIN_TRACK_GAIN"] = "-6.50 dB"
f["REPLAYGAIN_TRACK_PEAK"] = "0.988525"
f["REPLAYGAIN_ALBUM_GAIN"] = "-7.10 dB"
f["MUSICBRAINZ_TRACKID"] = "8f3471b5-7e6a-48da-86a9-c1c07a0f47ae"
f["ISRC"] = "USRC17607839"
f["COPYRIGHT"] = "℗ 2024 Medley Records"
f.save()
"""#
        XCTAssertEqual(try Tool.run("/usr/bin/python3", ["-c", tagging, source]).status, 0)
        let artists = ["First Ärtist", "Second", "Third"]
        let read = try mutagen(source)
        XCTAssertEqual(read["ARTIST"], artists)
        XCTAssertEqual(read["ISRC"], ["USRC17607839"])

        let formats = [("flac", "kAudioFormatFLAC"), ("mp3", "kAudioFormatMPEGLayer3"), ("m4a", "kAudioFormatMPEG4AAC"),
                       ("ogg", "kAudioFormatOpus"), ("wav", "kAudioFormatLinearPCM"), ("caf", "kAudioFormatLinearPCM")]
        var jobs = ["version: 1", "jobs:"]
        for (ext, format) in formats {
            jobs += ["  - name: to-\(ext)", "    ingest: { from: [\(work!)/in] }",
                     "    transcode: { AVFormatIDKey: \(format)\(ext == "m4a" ? ", AVSampleRateKey: 44100" : "") }",
                     "    export: { to: out, name: \"{stem}.\(ext)\" }"]
        }
        let result = try Tool.medley(["run", try pipeline(jobs.joined(separator: "\n"))])
        XCTAssertEqual(result.status, 0, result.stderr)
        func warnings(_ ext: String) throws -> [String] {
            try manifest("to-\(ext)").first?["warnings"] as? [String] ?? []
        }
        for ext in ["flac", "ogg"] {
            let tags = try mutagen(work + "/out/extra.\(ext)")
            XCTAssertEqual(tags["ARTIST"], artists, ext)
            XCTAssertEqual(tags["REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"], ext)
            XCTAssertEqual(tags["REPLAYGAIN_TRACK_PEAK"], ["0.988525"], ext)
            XCTAssertEqual(tags["REPLAYGAIN_ALBUM_GAIN"], ["-7.10 dB"], ext)
            XCTAssertEqual(tags["MUSICBRAINZ_TRACKID"], ["8f3471b5-7e6a-48da-86a9-c1c07a0f47ae"], ext)
            XCTAssertEqual(tags["ISRC"], ["USRC17607839"], ext)
            XCTAssertEqual(tags["COPYRIGHT"], ["℗ 2024 Medley Records"], ext)
            XCTAssertEqual(try warnings(ext), [], ext)
        }
        for ext in ["mp3", "wav"] {
            let tags = try mutagen(work + "/out/extra.\(ext)")
            XCTAssertEqual(tags["TPE1"], artists, ext)
            XCTAssertEqual(tags["TXXX:REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"], ext)
            XCTAssertEqual(tags["TXXX:REPLAYGAIN_TRACK_PEAK"], ["0.988525"], ext)
            XCTAssertEqual(tags["TXXX:REPLAYGAIN_ALBUM_GAIN"], ["-7.10 dB"], ext)
            XCTAssertEqual(tags["UFID:http://musicbrainz.org"], ["8f3471b5-7e6a-48da-86a9-c1c07a0f47ae"], ext)
            XCTAssertEqual(tags["TSRC"], ["USRC17607839"], ext)
            XCTAssertEqual(tags["TCOP"], ["℗ 2024 Medley Records"], ext)
            XCTAssertEqual(try warnings(ext), [], ext)
        }
        // WAV's INFO list has a field for the copyright too (exiftool reads RIFF INFO).
        let info = try Tool.run("exiftool", ["-s3", "-RIFF:Copyright", "-charset", "RIFF=UTF8", work + "/out/extra.wav"])
        XCTAssertEqual(info.stdout.trimmingCharacters(in: .newlines), "℗ 2024 Medley Records", info.stderr)
        let m4a = try mutagen(work + "/out/extra.m4a")
        XCTAssertEqual(m4a["©ART"], artists)
        XCTAssertEqual(m4a["----:com.apple.iTunes:REPLAYGAIN_TRACK_GAIN"], ["-6.50 dB"])
        XCTAssertEqual(m4a["----:com.apple.iTunes:REPLAYGAIN_TRACK_PEAK"], ["0.988525"])
        XCTAssertEqual(m4a["----:com.apple.iTunes:REPLAYGAIN_ALBUM_GAIN"], ["-7.10 dB"])
        XCTAssertEqual(m4a["----:com.apple.iTunes:MusicBrainz Track Id"], ["8f3471b5-7e6a-48da-86a9-c1c07a0f47ae"])
        XCTAssertEqual(m4a["----:com.apple.iTunes:ISRC"], ["USRC17607839"])
        XCTAssertEqual(m4a["cprt"], ["℗ 2024 Medley Records"])
        XCTAssertEqual(try warnings("m4a"), [])

        // CAF's info chunk: ISRC and copyright have keys; one value per key; the rest is reported.
        let caf = try formatTags(work + "/out/extra.caf")
        XCTAssertEqual(caf["isrc"], "USRC17607839")
        XCTAssertEqual(caf["copyright"], "℗ 2024 Medley Records")
        XCTAssertEqual(caf["artist"], "First Ärtist; Second; Third")
        XCTAssertEqual(try warnings("caf"), [
            "MUSICBRAINZ_TRACKID: .caf has no field for it; not written",
            "REPLAYGAIN_ALBUM_GAIN: .caf has no field for it; not written",
            "REPLAYGAIN_TRACK_GAIN: .caf has no field for it; not written",
            "REPLAYGAIN_TRACK_PEAK: .caf has no field for it; not written",
            "artist (3 values, written joined with \"; \"): .caf holds one value per field",
        ])
        for line in ["MUSICBRAINZ_TRACKID", "REPLAYGAIN_TRACK_GAIN"] {
            XCTAssertTrue(result.stderr.contains("extra.flac: \(line): .caf has no field for it; not written"), result.stderr)
        }
    }
}
