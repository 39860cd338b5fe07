import Foundation
import XCTest

/// What the audio run tests ask of the peers: sox's and ffmpeg's decodes of a file, sox-made sources.
extension EndToEndCase {
    /// `medley run` of one job (`job`) over `src` into `out` with these transcode settings and export name:
    /// its result and manifest lines.
    /// `again`: over the last run's outputs (else into an empty folder).
    func runTranscode(_ settings: String, name: String?, job: String, again: Bool = false) throws -> (result: Tool.Result, records: [[String: Any]]) {
        if !again { try? FileManager.default.removeItem(atPath: work + "/out") }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: \(job)
                ingest: { from: [src] }
                transcode: { \(settings) }
                export: { to: out\(name.map { ", name: \"\($0)\"" } ?? "") }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        let manifest = (try? String(contentsOfFile: work + "/out/.medley/manifest-\(job).jsonl", encoding: .utf8)) ?? ""
        let records = try manifest.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (result, records)
    }

    /// Every sample as sox decodes it (32-bit float, interleaved).
    func soxSamples(_ path: String) throws -> [Float] {
        let result = try Tool.run("sox", [path, "-t", "f32", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.data.withUnsafeBytes { bytes in
            (0..<bytes.count / 4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
    }

    /// Frames ffmpeg decodes from `path` after `filters` (2 channels of 16-bit samples).
    func ffmpegFrames(_ path: String, _ arguments: [String] = []) throws -> Int {
        let result = try Tool.run("ffmpeg", ["-v", "error"] + arguments + ["-f", "s16le", "-ac", "2", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.data.count / 4
    }

    /// sox with these arguments, in its repeatable mode (-R: a fixed seed, so the noise a test makes is the
    /// same every run).
    func sox(_ arguments: [String]) throws {
        let made = try Tool.run("sox", ["-R"] + arguments)
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// 50 s of stereo 16-bit 44.1 kHz noise under a sweep (so every frame differs), from sox.
    func makeSource(_ path: String, seconds: Int = 50) throws {
        try sox(["-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", "\(seconds)", "pinknoise", "synth", "\(seconds)", "sine", "mix",
                 "100-4000", "vol", "0.4"])
    }
}
