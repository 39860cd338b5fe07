import Foundation
import XCTest

/// `normalize: {loudness: …, album: true}` through `medley run`: one gain per album, from the
/// album's loudness measured over its tracks before any is written. Expected values come from
/// ffmpeg's `ebur128` filter on the outputs (each, and concatenated) and mutagen, never from Medley.
final class AlbumNormalizationRunTests: EndToEndCase {
    /// Tracks of 8 s of pink noise at three levels, 48 kHz stereo FLAC, tagged by metaflac.
    func track(_ name: String, volume: Double, album: String) throws -> String {
        let path = work + "/in/" + name
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let made = try Tool.run("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "24", path, "synth", "8", "pinknoise",
                                        "vol", String(volume)])
        XCTAssertEqual(made.status, 0, made.stderr)
        let tagged = try Tool.run("metaflac", ["--set-tag=ALBUM=\(album)", "--set-tag=ALBUMARTIST=Band", "--set-tag=TITLE=\(name)", path])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        return path
    }

    /// ffmpeg's integrated loudness (LUFS, to 0.1) of the files played one after another.
    func ffmpegLoudness(_ paths: [String]) throws -> Double { try EBUR128.summary(paths).integrated }

    func testOneGainPerAlbumKeepsTheTracksLevelsAndReachesTheTarget() throws {
        let inputs = [try track("a1.flac", volume: 0.05, album: "One"), try track("a2.flac", volume: 0.15, album: "One"),
                      try track("a3.flac", volume: 0.3, album: "One"), try track("b1.flac", volume: 0.02, album: "Two")]
        let path = try pipeline("""
            version: 1
            jobs:
              - name: albums
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC, normalize: { loudness: -23LUFS, truePeak: -1dBTP, album: true } }
                tag: { replayGain: album }
                export: { to: out, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let outputs = ["a1", "a2", "a3"].map { work + "/out/\($0).flac" }
        // The album as a whole reaches the target: ffmpeg over the concatenated outputs, ±0.3 LU (the issue's).
        XCTAssertEqual(try ffmpegLoudness(outputs), -23, accuracy: 0.3)
        // One gain for every track: each output differs from its input by the same amount — the
        // issue's 0.1 LU for kept differences (ffmpeg prints 0.1 LU, so a shift can read one step off;
        // 0.101 lets that step through its binary rounding, not two).
        let shifts = try zip(inputs.prefix(3), outputs).map { try ffmpegLoudness([$1]) - ffmpegLoudness([$0]) }
        for shift in shifts { XCTAssertEqual(shift, shifts[0], accuracy: 0.101, "\(shifts)") }
        // The other album has its own gain, to its own target.
        XCTAssertEqual(try ffmpegLoudness([work + "/out/b1.flac"]), -23, accuracy: 0.3)
        // ReplayGain's album gain describes the album as written: −18 − (−23) = +5 dB, ±0.3 as above.
        let tags = try Tool.run("/usr/bin/python3", ["-c", "import mutagen,sys; print(mutagen.File(sys.argv[1])['REPLAYGAIN_ALBUM_GAIN'][0])",
                                                     outputs[0]])
        XCTAssertEqual(tags.status, 0, tags.stderr)
        let albumGain = try XCTUnwrap(Double(tags.stdout.split(separator: " ").first ?? ""), tags.stdout)
        XCTAssertEqual(albumGain, 5, accuracy: 0.3)
        // The manifest names each track's album and the one loudness its gain came from.
        let lines = try String(contentsOfFile: work + "/out/.medley/manifest-albums.jsonl", encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let albums = records.compactMap { ($0["normalization"] as? [String: Any])?["album"] as? String }
        XCTAssertEqual(albums.sorted(), ["Band/One", "Band/One", "Band/One", "Band/Two"])
        let gains = Set(records.filter { ($0["item"] as? String)?.hasPrefix("a") == true }
            .compactMap { ($0["normalization"] as? [String: Any])?["gain"] as? Double })
        XCTAssertEqual(gains.count, 1, "one gain for album One: \(gains)")
    }
}
