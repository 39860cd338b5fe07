import Foundation
import XCTest

/// A source rate the output codec cannot carry (a 96 kHz system sound to MP3, 192 kHz to AAC):
/// without AVSampleRateKey the output takes the nearest rate the codec has, with a warning —
/// never the encoder's bare "Invalid argument". Rates and lengths are ffprobe's.
final class TranscodeRateTests: EndToEndCase {
    func transcode(rate: Int, settings: String, ext: String) throws -> (Tool.Result, [String: Any]) {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let source = work + "/in/tone-\(rate).wav"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "\(rate)", "-c", "1", source, "synth", "1", "sine", "1000", "gain", "-6"]).status, 0)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: rates
                ingest: { from: [in] }
                transcode: { \(settings) }
                export: { to: out, name: "{stem}.\(ext)" }
            """)
        let result = try Tool.medley(["run", path])
        let manifest = (try? String(contentsOfFile: work + "/out/.medley/manifest-rates.jsonl", encoding: .utf8)) ?? ""
        let record = try XCTUnwrap(manifest.split(separator: "\n").first.flatMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }, result.stderr)
        return (result, record)
    }

    func ffprobe(_ path: String, _ entry: String) throws -> String {
        try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", entry,
                                 "-of", "default=noprint_wrappers=1:nokey=1", path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testA96kHzSourceToMP3IsWrittenAt48kHzWithAWarning() throws {
        let (result, record) = try transcode(rate: 96000, settings: "AVFormatIDKey: kAudioFormatMPEGLayer3", ext: "mp3")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(record["status"] as? String, "succeeded", "\(record)")
        let warnings = (record["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("MP3 cannot hold 96000 Hz: resampled to 48000 Hz") }, "\(warnings)")
        let output = work + "/out/tone-96000.mp3"
        XCTAssertEqual(try ffprobe(output, "stream=sample_rate"), "48000")
        // One second of sound, give or take the encoder's delay and padding (two 1152-sample frames).
        XCTAssertEqual(try XCTUnwrap(Double(try ffprobe(output, "format=duration"))), 1.0, accuracy: 2 * 1152 / 48000.0)
    }

    func testA192kHzSourceToAACIsWrittenAt96kHzWithAWarning() throws {
        let (result, record) = try transcode(rate: 192000, settings: "AVFormatIDKey: kAudioFormatMPEG4AAC", ext: "m4a")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = (record["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("AAC cannot hold 192000 Hz: resampled to 96000 Hz") }, "\(warnings)")
        XCTAssertEqual(try ffprobe(work + "/out/tone-192000.m4a", "stream=sample_rate"), "96000")
    }

    func testAnMP3RateNoFrameHeaderCanSayIsAValidationError() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: rates
                ingest: { from: [.] }
                transcode: { AVFormatIDKey: kAudioFormatMPEGLayer3, AVSampleRateKey: 96000 }
                export: { to: out, name: "{stem}.mp3" }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:74: error: MP3 cannot be encoded at 96000 Hz"), result.stderr)
    }
}
