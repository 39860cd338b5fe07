import Foundation
import XCTest

/// `analyze: [loudness]` in a run: every audio output's EBU R128 loudness as written, in the
/// manifest, the itemFinished event and the report, checked against FFmpeg's `ebur128` filter on
/// the output file (LoudnessConformanceTests checks the meter itself against the EBU's cases).
final class LoudnessAnalyzeRunTests: EndToEndCase {
    func manifest(_ job: String) throws -> [String: [String: Any]] {
        let lines = try String(contentsOfFile: work + "/out/\(job)/.medley/manifest-\(job).jsonl", encoding: .utf8).split(separator: "\n")
        var records: [String: [String: Any]] = [:]
        for line in lines {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[((record["input"] as? String ?? "") as NSString).lastPathComponent] = record
        }
        return records
    }

    /// The peak of the band-limited signal through the samples, by numpy: each channel's spectrum
    /// zero-padded to 8× the rate (an ideal reconstruction of the file taken as periodic), in dB.
    func bandLimitedPeak(_ path: String) throws -> Double {
        let script = """
            import numpy as np, subprocess, sys
            raw = subprocess.run(['sox', sys.argv[1], '-t', 'f32', '-'], capture_output=True, check=True).stdout
            ch = int(subprocess.run(['soxi', '-c', sys.argv[1]], capture_output=True, text=True, check=True).stdout)
            x = np.frombuffer(raw, '<f4').astype(np.float64).reshape(-1, ch)
            n = x.shape[0]
            print(20 * np.log10(max(np.abs(np.fft.irfft(np.fft.rfft(x[:, c]), n * 8) * 8).max() for c in range(ch))))
            """
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), result.stdout + result.stderr)
    }

    func testAnalyzeLoudnessRecordsEachOutputAsFFmpegMeasuresIt() throws {
        let folder = work + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Two levels 10 LU apart (EBU Tech 3342 case 1, shortened): a loudness range to record.
        try sox(["-n", "-r", "44100", "-c", "2", "-b", "24", work + "/a.wav", "synth", "10", "sine", "1000", "vol", "-20dB"])
        try sox(["-n", "-r", "44100", "-c", "2", "-b", "24", work + "/b.wav", "synth", "10", "sine", "1000", "vol", "-30dB"])
        try sox([work + "/a.wav", work + "/b.wav", folder + "/steps.wav"])
        // Mono pink noise: the AAC job writes it as stereo, so what is measured is the mix as written.
        // (-R: sox's repeatable mode, the same noise every run.)
        try sox(["-R", "-n", "-r", "48000", "-c", "1", "-b", "16", folder + "/noise.wav", "synth", "8", "pinknoise", "vol", "-12dB"])
        try sox(["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", folder + "/silent.wav", "trim", "0", "2"])
        let path = try pipeline("""
            version: 1
            jobs:
              - name: flac
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                analyze: [loudness]
                export: { to: out/flac, name: "{stem}.{ext}" }
                report: true
              - name: aac
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2,
                             AVEncoderBitRateKey: 192000 }
                analyze: [metering, loudness]
                export: { to: out/aac, name: "{stem}.{ext}" }
              - name: plain
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out/plain, name: "{stem}.{ext}" }
            """)
        let run = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
        XCTAssertEqual(run.status, 0, run.stderr)

        // FLAC is lossless: the file holds the very samples measured, so FFmpeg's reading of it
        // must agree as on any file (0.1 LU, LRA 0.2, sample peak 0.01 dB, each plus FFmpeg's 0.05
        // rounding; see LoudnessConformanceTests). The true peak of broadband noise is where the two
        // meters' estimates part most (0.3 dB here: FFmpeg reads higher, as it overshoots the
        // quarter-rate sine by 0.6 dB), so against FFmpeg it is 0.5 dB, and the FLAC outputs' true
        // peak is checked against numpy's band-limited reconstruction instead: 4× oversampling
        // finds the crest or falls short of it (the grid misses it by at most 1/8 sample), never
        // more than 0.1 dB over, at most 0.3 dB under on these signals. AAC is measured before the
        // encoder (what Medley fed it): the decoded file differs by the codec's error, 0.2 LU and
        // 0.5 dB of peak at 192 kb/s on these signals.
        let flac = try manifest("flac"), aac = try manifest("aac")
        for (job, records, ext, loudnessTolerance) in [("flac", flac, "flac", 0.1), ("aac", aac, "m4a", 0.2)] {
            for stem in ["steps", "noise"] {
                let record = try XCTUnwrap(records[stem + ".wav"], "\(job)/\(stem)")
                let loudness = try XCTUnwrap(record["loudness"] as? [String: Any], "\(job)/\(stem): \(record)")
                let output = work + "/out/\(job)/\(stem).\(ext)"
                let ffmpeg = try LoudnessConformanceTests.ffmpegLoudness(output)
                let context = "\(job)/\(stem)"
                XCTAssertEqual(try XCTUnwrap(loudness["integrated"] as? Double, context), ffmpeg.integrated,
                               accuracy: loudnessTolerance + 0.05, context)
                XCTAssertEqual(try XCTUnwrap(loudness["range"] as? Double, context), ffmpeg.range, accuracy: 0.25, context)
                let truePeak = try XCTUnwrap(loudness["truePeak"] as? Double, context)
                XCTAssertEqual(truePeak, ffmpeg.truePeak, accuracy: 0.5 + 0.05, context)
                if job == "flac" {
                    XCTAssertEqual(try XCTUnwrap(loudness["samplePeak"] as? Double, context), ffmpeg.samplePeak, accuracy: 0.06, context)
                    let reference = try bandLimitedPeak(output)
                    XCTAssertLessThanOrEqual(truePeak, reference + 0.1, context)
                    XCTAssertGreaterThanOrEqual(truePeak, reference - 0.3, context)
                }
            }
            // Digital silence (sox without dither, -D) has no loudness and no peak: null, not a number made up.
            let silent = try XCTUnwrap(records["silent.wav"]?["loudness"] as? [String: Any], "\(job)/silent")
            XCTAssertTrue(silent["integrated"] is NSNull, "\(silent)")
            XCTAssertTrue(silent["samplePeak"] is NSNull, "\(silent)")
            XCTAssertTrue(silent["truePeak"] is NSNull, "\(silent)")
            XCTAssertEqual(silent["range"] as? Double, 0)
        }
        // The steps' published range: 10 LU ±1 (EBU Tech 3342 case 1's levels).
        let steps = try XCTUnwrap(flac["steps.wav"]?["loudness"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(steps["range"] as? Double), 10, accuracy: 1)
        // Integrated over two segments 10 dB apart, both above the relative gate: the energy mean,
        // −20 dBFS and −30 dBFS sines (each reads its level in LUFS as stereo) → 10·log10((1 + 0.1)/2) − 20.
        XCTAssertEqual(try XCTUnwrap(steps["integrated"] as? Double), 10 * log10(1.1 / 2) - 20, accuracy: 0.1)
        // A job that does not ask has no loudness in its manifest.
        XCTAssertNil(try manifest("plain")["steps.wav"]?["loudness"])

        // The itemFinished event carries what the manifest has.
        let events = try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "itemFinished" }
        var checked = 0
        for event in events {
            let job = try XCTUnwrap(event["job"] as? String)
            let input = ((event["input"] as? String ?? "") as NSString).lastPathComponent
            let recorded = [("flac", flac), ("aac", aac)].first { $0.0 == job }?.1[input]?["loudness"] as? NSDictionary
            if job == "plain" {
                XCTAssertNil(event["loudness"])
            } else {
                XCTAssertEqual(event["loudness"] as? NSDictionary, try XCTUnwrap(recorded, "\(job)/\(input)"), "\(job)/\(input)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 6)

        // The report shows each item's values as the manifest has them.
        // The page's script makes the cards: read them as Chromium renders the page.
        let rendered = try chromium(["--dump-dom", "file://" + work + "/out/flac/.medley/report-flac/index.html"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let page = rendered.stdout
        for stem in ["steps", "noise"] {
            let loudness = try XCTUnwrap(flac[stem + ".wav"]?["loudness"] as? [String: Any])
            let integrated = try XCTUnwrap(loudness["integrated"] as? Double), truePeak = try XCTUnwrap(loudness["truePeak"] as? Double)
            XCTAssertTrue(page.contains("data-loudness=\"integrated\">" + String(format: "%.2f LUFS", integrated)), stem)
            XCTAssertTrue(page.contains("data-loudness=\"truePeak\">" + String(format: "%.2f dBTP", truePeak)), stem)
        }
        XCTAssertTrue(page.contains("data-loudness=\"integrated\">silent"))

        // An unchanged re-run lists the items from the last run, their loudness kept.
        let again = try Tool.medley(["run", path, "--quiet", "--only", "flac", "--events", work + "/again.jsonl"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let skipped = try String(contentsOfFile: work + "/again.jsonl", encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"event\":\"itemSkipped\"") }
        XCTAssertEqual(skipped.count, 3, "every item unchanged")
        XCTAssertEqual(try manifest("flac")["steps.wav"]?["loudness"] as? NSDictionary, steps as NSDictionary)
    }

    /// `loudness` measures audio: a job that takes none fails validation at the word, and a
    /// misspelling gets the name it meant.
    func testLoudnessAnalysisFailsValidationWithoutAudioOrWhenMisspelt() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: photos
                ingest: { from: [\(Tool.fixtures)/images], media: [image] }
                analyze: [loudness]
                export: { to: out, format: jpeg }
              - name: sounds
                ingest: { from: [\(Tool.fixtures)/audio] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                analyze: [loudnes]
                export: { to: out2 }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:15: error: 'loudness' measures audio, but the job takes none (media: image)"),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("drop 'loudness', or add audio to ingest.media"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:10:15: error: unknown analysis 'loudnes'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'loudness'?"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
    }
}
