import Foundation
import XCTest

/// Loudness as delivered: AAC, MP3 and Opus outputs of a loudness normalize, decoded and measured
/// by ffmpeg's `ebur128=peak=true` (never Medley's meter), reach the target within 0.5 LU with
/// their true peak at or under the ceiling, on a loud master whose true peak is over 0 dBTP.
final class DeliveredLoudnessRunTests: EndToEndCase {
    func run(_ transcode: String, ext: String) throws -> [String: Any] {
        try? FileManager.default.removeItem(atPath: work + "/out")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: n
                ingest: { from: [src] }
                transcode: { \(transcode) }
                export: { to: out, name: "{stem}.\(ext)" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let manifest = (try? String(contentsOfFile: work + "/out/.medley/manifest-n.jsonl", encoding: .utf8)) ?? ""
        let line = try XCTUnwrap(manifest.split(separator: "\n").first)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A loud master: a plucked chord over pink noise, brought to a 0 dBFS sample peak by sox, so
    /// its true peak (between samples) is over 0 dBTP, as a mastered track's is.
    func makeMaster() throws -> (integrated: Double, truePeak: Double) {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let path = work + "/src/master.wav"
        let made = try Tool.run("sox", ["-R", "-n", "-r", "44100", "-c", "2", "-b", "16", path,
                                        "synth", "12", "pluck", "110", "pluck", "165", "pinknoise", "tremolo", "3", "60",
                                        "highpass", "40", "overdrive", "10", "gain", "-n", "0"])
        XCTAssertEqual(made.status, 0, made.stderr)
        return try EBUR128.summary([path])
    }

    func testLossyOutputsMeetTargetAndCeilingAsDelivered() throws {
        let master = try makeMaster()
        XCTAssertGreaterThan(master.truePeak, 0, "the master the test needs peaks over 0 dBTP")
        for (format, ext) in [("kAudioFormatMPEG4AAC", "m4a"), ("kAudioFormatMPEGLayer3", "mp3"), ("kAudioFormatOpus", "ogg")] {
            for (preset, target) in [("podcast", -16.0), ("streaming", -14.0)] {
                let record = try run("AVFormatIDKey: \(format), AVEncoderBitRateKey: 128000, normalize: \(preset)", ext: ext)
                let measured = try EBUR128.summary([work + "/out/master.\(ext)"])
                XCTAssertEqual(measured.integrated, target, accuracy: 0.5, "\(preset) .\(ext)")
                XCTAssertLessThanOrEqual(measured.truePeak, -1, "\(preset) .\(ext)")
                let normalization = try XCTUnwrap(record["normalization"] as? [String: Any])
                let delivered = try XCTUnwrap(normalization["delivered"] as? [String: Any], "\(normalization)")
                // The manifest's delivered figures are what ffmpeg measures of the file (two meters: 0.2).
                XCTAssertEqual(delivered["integrated"] as? Double ?? 0, measured.integrated, accuracy: 0.2, "\(preset) .\(ext)")
                XCTAssertEqual(delivered["truePeak"] as? Double ?? 0, measured.truePeak, accuracy: 0.2, "\(preset) .\(ext)")
                XCTAssertLessThanOrEqual(delivered["encodes"] as? Int ?? 0, 3)
            }
        }
    }

    /// Real music mastered loud (frozen-bubble-data's Vorbis track, scripts/test-data.sh): the 30 s from
    /// 1:00, whose true peak ffmpeg measures over 0 dBTP, into AAC and Opus at `podcast` and MP3 at
    /// `streaming`, each measured as delivered by ffmpeg's ebur128.
    func testRealMusicPeakingOverZeroMeetsTargetAndCeilingAsDelivered() throws {
        let track = Tool.testData + "/loud-music/frozen-mainzik-2p.ogg"
        guard FileManager.default.fileExists(atPath: track) else {
            return XCTFail("missing test data \(track): run scripts/test-data.sh")
        }
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: track, toPath: work + "/src/track.ogg")
        // Float samples: a 16-bit excerpt would clip the very peaks the test is about.
        let excerpt = try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-ss", "60", "-t", "30", "-i", work + "/src/track.ogg",
                                              "-c:a", "pcm_f32le", work + "/excerpt.wav"])
        XCTAssertEqual(excerpt.status, 0, excerpt.stderr)
        XCTAssertGreaterThan(try EBUR128.summary([work + "/excerpt.wav"]).truePeak, 0, "the excerpt the test needs peaks over 0 dBTP")
        let jobs: [(format: String, ext: String, preset: String, target: Double)] = [
            ("kAudioFormatMPEG4AAC", "m4a", "podcast", -16), ("kAudioFormatMPEGLayer3", "mp3", "streaming", -14),
            ("kAudioFormatOpus", "ogg", "podcast", -16),
        ]
        for job in jobs {
            let record = try run("AVFormatIDKey: \(job.format), AVEncoderBitRateKey: 128000, cut: { from: 60, duration: 30 }, "
                                 + "normalize: \(job.preset)", ext: job.ext)
            let measured = try EBUR128.summary([work + "/out/track.\(job.ext)"])
            XCTAssertEqual(measured.integrated, job.target, accuracy: 0.5, ".\(job.ext)")
            XCTAssertLessThanOrEqual(measured.truePeak, -1, ".\(job.ext)")
            let normalization = try XCTUnwrap(record["normalization"] as? [String: Any])
            XCTAssertNotNil(normalization["delivered"] as? [String: Any], "\(normalization)")
        }
    }

    func testWithoutTheLimiterTheCeilingHoldsAndTheMissedTargetIsSaid() throws {
        _ = try makeMaster()
        let record = try run("AVFormatIDKey: kAudioFormatMPEG4AAC, normalize: { preset: streaming, limit: false }", ext: "m4a")
        let measured = try EBUR128.summary([work + "/out/master.m4a"])
        XCTAssertLessThanOrEqual(measured.truePeak, -1)
        let warnings = record["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.hasPrefix("delivered at ") && $0.contains("not the -14.0 LUFS target") }, "\(warnings)")
    }
}
