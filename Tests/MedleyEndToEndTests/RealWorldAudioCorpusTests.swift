import Foundation
import XCTest

/// Real audio that other people's encoders made, as Debian packages ship it (tracker issue 14):
/// the representative subset of `fixtures/realworld/make-audio.sh` checked by
/// `fixtures/realworld/check-audio.py` against ffprobe, soxi, oggdec and ffmpeg, plus focused
/// tests for what that checker found. The full corpus runs in the script, not here.
final class RealWorldAudioCorpusTests: EndToEndCase {
    /// The subset, fetched from Debian's packages by `scripts/test-data.sh` (which
    /// `scripts/setup.sh --tests` runs) into the test data cache — never while the tests run —,
    /// with 0 as its status when every package of it is there, or what to do when not.
    static let corpus: (path: String, status: Int32, stderr: String) = {
        let out = Tool.testData + "/realworld-audio-subset"
        let missing = ["sound-theme-freedesktop", "alsa-utils", "sound-icons"]
            .filter { !FileManager.default.fileExists(atPath: out + "/audio/\($0)/.done") }
        return (out + "/audio", missing.isEmpty ? 0 : 1,
                missing.isEmpty ? "" : "\(missing.joined(separator: ", ")) missing under \(out): run scripts/test-data.sh")
    }()

    func testCheckerAgreesOnEveryFileOfTheSubset() throws {
        let corpus = Self.corpus
        XCTAssertEqual(corpus.status, 0, corpus.stderr)
        let checked = try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/check-audio.py", corpus.path,
                                                        "--medley", Tool.medley])
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
        // The totals row: | **total** | files | agree | differ | refused | wrong |
        let total = try XCTUnwrap(checked.stdout.split(separator: "\n").first { $0.hasPrefix("| **total** |") })
        let cells = total.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(cells.count, 6, String(total))
        let files = try XCTUnwrap(Int(cells[1])), agree = try XCTUnwrap(Int(cells[2]))
        XCTAssertGreaterThanOrEqual(files, 60, checked.stdout)
        XCTAssertEqual(agree, files, checked.stdout)
        XCTAssertEqual(cells[3], "0")
        XCTAssertEqual(cells[5], "0")
        // Every set of the subset is in the table: Vorbis .oga and two packages' WAV.
        for set in ["sound-theme-freedesktop (oga)", "alsa-utils (wav)", "sound-icons (wav)"] {
            XCTAssertTrue(checked.stdout.contains("| \(set) |"), set)
        }
    }

    /// An Ogg Vorbis file is as long as its last granule position says, as libvorbisfile (oggdec,
    /// soxi) decodes it. FFmpeg 5.1's own end trimming gets some streams wrong: oggenc's 2,756-frame
    /// file decodes to 2,628 frames there (real audio cut), its 882-frame file to 896 (padding
    /// kept); the freedesktop sound theme's `audio-volume-change.oga` is one of the first kind.
    func testOggVorbisOutputsEndAtTheLastGranulePositionAsLibvorbisfileDecodes() throws {
        for seconds in ["0.02", "0.0625"] {
            let source = work + "/in-\(seconds).wav", ogg = work + "/src/tone-\(seconds).ogg"
            try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
            XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", source,
                                                 "synth", seconds, "sine", "440", "vol", "0.5"]).status, 0)
            let made = try Tool.run("oggenc", ["-Q", "-q", "3", source, "-o", ogg])
            XCTAssertEqual(made.status, 0, made.stderr)
            // libvorbisfile's count, two ways: soxi reads the granule, oggdec decodes.
            let soxi = try XCTUnwrap(Int(try Tool.run("soxi", ["-s", ogg]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            let xiph = try Tool.run("oggdec", ["-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", "-", ogg])
            XCTAssertEqual(xiph.status, 0, xiph.stderr)
            XCTAssertEqual(xiph.data.count, soxi * 4, seconds)
            XCTAssertEqual(try Tool.run("soxi", ["-s", source]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                           String(soxi), "oggenc keeps the WAV's length")

            let probe = try Tool.medley(["probe", "--json", ogg])
            XCTAssertEqual(probe.status, 0, probe.stderr)
            let info = try XCTUnwrap((try JSONSerialization.jsonObject(with: probe.data) as? [[String: Any]])?.first)
            let duration = try XCTUnwrap(info["playbackDuration"] as? Double)
            XCTAssertEqual(duration, Double(soxi) / 44100, accuracy: 0.0005, seconds)

            try? FileManager.default.removeItem(atPath: work + "/out")
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: vorbis
                    ingest: { from: [src] }
                    transcode: { AVFormatIDKey: kAudioFormatFLAC }
                    export: { to: out, name: "{stem}.{ext}" }
                """)
            let result = try Tool.medley(["run", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let output = work + "/out/tone-\(seconds).flac"
            XCTAssertEqual(try Tool.run("soxi", ["-s", output]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                           String(soxi), seconds)
            // The samples are libvorbis' within one 16-bit step (two float decoders, each rounded).
            let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", output, "-f", "s16le", "-"])
            XCTAssertEqual(decoded.status, 0, decoded.stderr)
            XCTAssertEqual(decoded.data.count, xiph.data.count, seconds)
            let mine = decoded.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let theirs = xiph.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            let worst = zip(mine, theirs).map { abs(Int($0) - Int($1)) }.max() ?? Int.max
            XCTAssertLessThanOrEqual(worst, 1, seconds)
        }
    }

    /// An Ogg Opus file's playbackDuration leaves out its pre-skip (RFC 7845 §4.2), as opusinfo and
    /// mutagen do: FFmpeg's stream duration counts it (warzone2100-music's `menu.opus`, 180 s, was
    /// probed as 180.007).
    func testOggOpusPlaybackDurationLeavesOutThePreSkip() throws {
        let source = work + "/in.wav", opus = work + "/tone.opus"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", source,
                                             "synth", "2", "sine", "440", "vol", "0.5"]).status, 0)
        let made = try Tool.run("opusenc", ["--quiet", source, opus])
        XCTAssertEqual(made.status, 0, made.stderr)
        let mutagen = try Tool.run("/usr/bin/python3", ["-c", """
            import sys, mutagen.oggopus
            info = mutagen.oggopus.OggOpus(sys.argv[1]).info
            print(info.length)
            """, opus])
        XCTAssertEqual(mutagen.status, 0, mutagen.stderr)
        let expected = try XCTUnwrap(Double(mutagen.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(expected, 2, accuracy: 0.0001, "opusenc keeps the WAV's 96,000 frames")
        let probe = try Tool.medley(["probe", "--json", opus])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let info = try XCTUnwrap((try JSONSerialization.jsonObject(with: probe.data) as? [[String: Any]])?.first)
        XCTAssertEqual(try XCTUnwrap(info["playbackDuration"] as? Double), expected, accuracy: 0.0005)
    }
}
