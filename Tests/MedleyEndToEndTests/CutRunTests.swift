import Foundation
import XCTest

/// `cut:` through `medley run`, against the peers on the same files: `sox in out trim FROM LENGTH`
/// and `ffmpeg -ss FROM -t LENGTH` (PCM and FLAC: the same frame count, and sox's sample values
/// bit for bit), and for lossy inputs ffmpeg's decode-then-cut (`atrim`) frame count.
final class CutRunTests: EndToEndCase {
    func run(_ settings: String, name: String = "{stem}.wav") throws -> (result: Tool.Result, records: [[String: Any]]) {
        try runTranscode(settings, name: name, job: "cut")
    }

    func testCutMatchesSoxTrimAndFfmpegSeekOnPCMAndFLAC() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let wav = work + "/src/music.wav"
        try makeSource(wav)
        try sox([wav, work + "/src/lossless.flac"])
        let reference = work + "/sox-10-30.wav"
        try sox([wav, reference, "trim", "10", "30"])
        let expected = try soxSamples(reference)
        XCTAssertEqual(expected.count / 2, 30 * 44100)
        // ffmpeg's seek and length on the same file: the same frame count.
        XCTAssertEqual(try ffmpegFrames(wav, ["-ss", "10", "-t", "30", "-i", wav]), 30 * 44100)

        for cut in ["{ from: 10s, to: 40s }", "{ from: 10, duration: 30 }", "{ from: \"0:10.000\", to: \"00:00:40\" }", "{ from: 20%, to: 80% }"] {
            let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, cut: \(cut)")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(records.count, 2, cut)
            for stem in ["music", "lossless"] {
                let output = try soxSamples(work + "/out/\(stem).wav")
                XCTAssertEqual(output.count, expected.count, "\(stem) \(cut): samples against sox trim 10 30")
                XCTAssertTrue(output == expected, "\(stem) \(cut): sample values against sox trim 10 30")
            }
        }
        // A FLAC output of the cut: the same samples, in FLAC.
        let (result, _) = try run("AVFormatIDKey: kAudioFormatFLAC, cut: { from: 10s, to: 40s }", name: "{stem}.flac")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(try soxSamples(work + "/out/lossless.flac") == expected)
    }

    func testLossyInputsAreCutToTheSampleAfterDecoding() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let wav = work + "/source.wav"
        try makeSource(wav, seconds: 20)
        for (name, codec) in [("music.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]), ("music.m4a", ["-c:a", "aac", "-b:a", "128k"])] {
            let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", wav] + codec + [work + "/src/" + name])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        // 3.3 s from 2.5 s: neither edge on an MP3 (1152) or AAC (1024) packet boundary.
        let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, cut: { from: 2.5s, duration: 3.3s }", name: "{stem}-{inputExt}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records.count, 2)
        for name in ["music.mp3", "music.m4a"] {
            let input = work + "/src/" + name
            // ffmpeg decodes the whole stream, then atrim cuts the decoded samples.
            let peer = try ffmpegFrames(input, ["-i", input, "-af", "atrim=start_sample=110250:end_sample=255780"])
            XCTAssertEqual(peer, 145_530, name)
            let output = work + "/out/music-" + (name as NSString).pathExtension + ".wav"
            XCTAssertEqual(try soxSamples(output).count / 2, peer, name)
        }
    }

    func testCutComesBeforeTrimAndFade() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        // 1 s of silence, 3 s of tone, 1 s of silence (mono, 8 kHz, 16-bit).
        try sox(["-n", "-r", "8000", "-c", "1", "-b", "16", work + "/src/tone.wav", "synth", "3", "sine", "300", "vol", "0.5", "pad", "1", "1"])
        // Cut from 2 s: the silence trim then finds sound from the cut's first frame, and keeps 0.25 s after the tone.
        let (result, _) = try run("AVFormatIDKey: kAudioFormatLinearPCM, cut: { from: 2s }, trim: { keep: 0.25s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let source = try soxSamples(work + "/src/tone.wav")
        let output = try soxSamples(work + "/out/tone.wav")
        let last = try XCTUnwrap(source.lastIndex { abs($0) > Float(pow(10, -50.0 / 20)) })
        XCTAssertEqual(output.count, last + 1 + 2000 - 16000)
        XCTAssertTrue(output == Array(source[16000..<(last + 1 + 2000)]))
    }

    func testACutPastTheEndFailsThatItemAloneAndWritesNothing() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try makeSource(work + "/src/long.wav", seconds: 12)
        try sox(["-n", "-r", "44100", "-c", "2", "-b", "16", work + "/src/short.wav", "synth", "5", "sine", "440"])
        let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, cut: { from: 10s, to: \"1:00\" }")
        XCTAssertNotEqual(result.status, 0)
        let byItem = Dictionary(uniqueKeysWithValues: records.compactMap { record in (record["item"] as? String).map { ($0, record) } })
        XCTAssertEqual(byItem["short.wav"]?["status"] as? String, "failed")
        XCTAssertEqual(byItem["short.wav"]?["error"] as? String, "cut starts at 10 s, past the end of the item (5 s)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/short.wav"))
        // The long one is cut to its end, as sox does, and says so.
        XCTAssertEqual(byItem["long.wav"]?["status"] as? String, "succeeded")
        XCTAssertEqual(byItem["long.wav"]?["warnings"] as? [String], ["cut ends at 60 s, past the end of the item (12 s): kept to the end"])
        XCTAssertEqual(try soxSamples(work + "/out/long.wav").count / 2, 2 * 44100)
    }
}
