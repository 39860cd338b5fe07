import Foundation
import XCTest

/// `export.id3: v2.3` through `medley run`: MP3 and WAV outputs whose tags mutagen and id3lib
/// (`id3v2 -l`, which reads v2.2/v2.3 only) read as v2.3, the conversions in the item's
/// warnings, and a wrong or pointless `id3` refused at validation with FILE:LINE:COL.
final class ID3VersionRunTests: EndToEndCase {
    let audio = Tool.fixtures + "/audio"

    /// Transcodes a FLAC made by ffmpeg whose Vorbis comments hold a title, a date and MOOD (which
    /// ID3v2.4 keeps in TMOO, a frame v2.3 lacks).
    func run(_ transcode: String, export: String, name: String = "{stem}.{ext}") throws -> Tool.Result {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", audio + "/sine-1k-44100-stereo.wav", "-t", "1",
                                           "-metadata", "title=Ünïcode ☕ Title", "-metadata", "date=2024-05-01",
                                           "-metadata", "MOOD=Calm", work + "/in/source.flac"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: id3
                ingest: { from: [in] }
                transcode: { \(transcode) }
                export: { to: out, name: "\(name)", \(export) }
            """)
        return try Tool.medley(["run", path, "--quiet"])
    }

    func manifest() throws -> [[String: Any]] {
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-id3.jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// mutagen's version, TIT2, TYER, TDAT and TXXX:MOOD of the file's ID3 tag, as stored (no upgrade to v2.4).
    func stored(_ path: String) throws -> [String] {
        let script = """
import sys, mutagen.wave
from mutagen.id3 import ID3
t = mutagen.wave.WAVE(sys.argv[1], translate=False).tags if sys.argv[1].endswith(".wav") else ID3(sys.argv[1], translate=False)
print("%d.%d" % t.version[:2])
for k in ("TIT2", "TYER", "TDAT", "TXXX:MOOD", "TDRC", "TMOO"):
    print(k, t[k].text[0] if k in t else "-")
"""
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testMP3WithV23IsReadByMutagenAndId3libAndTheConversionsAreWarnings() throws {
        let result = try run("AVFormatIDKey: kAudioFormatMPEGLayer3, AVEncoderBitRateKey: 128000", export: "id3: v2.3")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/source.mp3"
        XCTAssertEqual(try stored(output), ["2.3", "TIT2 Ünïcode ☕ Title", "TYER 2024", "TDAT 0105", "TXXX:MOOD Calm", "TDRC -", "TMOO -"])
        let listing = try Tool.run("id3v2", ["-l", output]).stdout
        XCTAssertTrue(listing.contains("TYER (Year): 2024"), listing)
        XCTAssertTrue(listing.contains("TXXX (User defined text information): (MOOD): Calm"), listing)
        let warnings = try XCTUnwrap(try manifest().first?["warnings"] as? [String])
        XCTAssertTrue(warnings.contains("ID3v2.3: releaseDate 2024-05-01: TDRC is ID3v2.4's; written as TYER 2024 + TDAT 0105"), "\(warnings)")
        XCTAssertTrue(warnings.contains("ID3v2.3: TMOO is ID3v2.4's; written as TXXX:MOOD"), "\(warnings)")
    }

    /// A tag-only job (no transcode) copies an MP3 tagged v2.4 by ffmpeg and writes its tag as v2.3;
    /// the MPEG frames after the tag are the input's, byte for byte.
    func testATagOnlyCopyOfAnMP3IsRetaggedAsV23() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let source = work + "/in/source.mp3"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", audio + "/sine-1k-44100-stereo.wav", "-t", "1", "-c:a", "libmp3lame",
                                           "-id3v2_version", "4", "-metadata", "title=Ünïcode ☕ Title", "-metadata", "date=2024-05-01",
                                           "-metadata", "MOOD=Calm", source])
        XCTAssertEqual(made.status, 0, made.stderr)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: id3
                ingest: { from: [in] }
                tag: { set: { comments: "retagged" } }
                export: { to: out, name: "{stem}.{ext}", id3: v2.3 }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/source.mp3"
        XCTAssertEqual(try stored(output), ["2.3", "TIT2 Ünïcode ☕ Title", "TYER 2024", "TDAT 0105", "TXXX:MOOD Calm", "TDRC -", "TMOO -"])
        // The audio: everything after each file's ID3v2 tag (header size + 10), compared by mutagen's offsets.
        let script = """
import sys
from mutagen.id3 import ID3
def audio(p):
    data = open(p, "rb").read()
    return data[ID3(p).size:]
print(audio(sys.argv[1]) == audio(sys.argv[2]))
"""
        let same = try Tool.run("/usr/bin/python3", ["-c", script, source, output])
        XCTAssertEqual(same.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "True", same.stderr)
    }

    func testTheDefaultStaysV24AndNamesNoConversion() throws {
        let result = try run("AVFormatIDKey: kAudioFormatMPEGLayer3", export: "overwrite: replace")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/source.mp3"
        XCTAssertEqual(try stored(output), ["2.4", "TIT2 Ünïcode ☕ Title", "TYER -", "TDAT -", "TXXX:MOOD -", "TDRC 2024-05-01", "TMOO Calm"])
        let warnings = try manifest().first?["warnings"] as? [String] ?? []
        XCTAssertFalse(warnings.contains { $0.hasPrefix("ID3v2.3") }, "\(warnings)")
    }

    func testWAVOutputGetsAV23Chunk() throws {
        let result = try run("AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16", export: "id3: \"2.3\"", name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/source.wav"
        XCTAssertEqual(try stored(output), ["2.3", "TIT2 Ünïcode ☕ Title", "TYER 2024", "TDAT 0105", "TXXX:MOOD Calm", "TDRC -", "TMOO -"])
    }

    func testAWrongOrPointlessID3IsRefusedAtItsLineBeforeAnythingIsWritten() throws {
        let cases: [(transcode: String?, id3: String, message: String, suggestion: String)] = [
            ("AVFormatIDKey: kAudioFormatMPEGLayer3", "v2.5", "export.id3 must be v2.3 or v2.4, not 'v2.5'", "did you mean 'v2."),
            ("AVFormatIDKey: kAudioFormatMPEG4AAC", "v2.3", "export.id3: kAudioFormatMPEG4AAC outputs hold no ID3 tag (only MP3, WAV and AIFF do)",
             "remove 'id3', or transcode to kAudioFormatMPEGLayer3"),
            (nil, "v2.3", "export.id3 chooses the ID3 version of the audio a job writes, but this job has no 'transcode' or 'tag' stage",
             "remove 'id3', or add 'tag:'"),
        ]
        for (transcode, id3, message, suggestion) in cases {
            let text = """
                version: 1
                jobs:
                  - name: id3
                    ingest: { from: [\(audio)] }
                \(transcode.map { "    transcode: { \($0) }" } ?? "")
                    export:
                      to: out
                      id3: \(id3)
                """
            let path = try pipeline(text)
            let result = try Tool.medley(["run", path])
            XCTAssertEqual(result.status, 2, "\(id3) \(transcode ?? "-"): \(result.stderr)")
            // Line 8 (the 'id3' line when there is a transcode line, counting the blank one otherwise), column 12: the value.
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("id3: ") }.map { $0 + 1 } ?? 0
            let located = result.stderr.split(separator: "\n").first { $0.hasPrefix("\(path):\(line):12: ") }
            XCTAssertNotNil(located, "expected \(path):\(line):12 in\n\(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
            XCTAssertTrue(result.stderr.contains(suggestion), result.stderr)
            XCTAssertFalse(result.stderr.contains("did you mean 'did you mean"), "the suggestion said once: \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
        }
    }
}
