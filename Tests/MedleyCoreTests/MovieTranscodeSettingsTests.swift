import Foundation
import MedleyCore
import MedleyMedia
import XCTest

/// A movie's own `transcode:` settings as the pipeline reader takes them (docs/movies.md): presets as
/// names for settings, each key's values and refusals at their FILE:LINE:COL (counted by hand).
final class MovieTranscodeSettingsTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-movie-settings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func job(_ transcode: String, name: String = "{stem}.mp4") throws -> Job {
        let pipeline = try PipelineReader.parse("""
            version: 1
            jobs:
              - name: movies
                ingest: { from: [in], media: [movie] }
                transcode: \(transcode)
                export: { to: out, name: "\(name)" }
            """, file: "p.yaml", directory: folder, overrides: [])
        return try XCTUnwrap(pipeline.jobs.first)
    }

    func diagnostics(_ transcode: String, name: String = "{stem}.mp4") -> [String] {
        do {
            _ = try job(transcode, name: name)
            return []
        } catch let failure as ValidationFailure {
            return failure.diagnostics.map(\.description)
        } catch {
            return ["unexpected: \(error)"]
        }
    }

    func testAPresetIsANameForSettingsAndKeysBesideItOverrideIt() throws {
        let medium = try XCTUnwrap(try job("{ videoQuality: typeMedium, videoCodec: h265, speed: slow }").transcode?.movie)
        XCTAssertEqual(medium.encoding.codec, .hevc)
        XCTAssertEqual(medium.encoding.boxWidth, 1280)
        XCTAssertEqual(medium.encoding.boxHeight, 720)
        XCTAssertEqual(medium.encoding.maxBitRate, 5_000_000)
        XCTAssertEqual(medium.encoding.crf, 28, "HEVC's own default: the preset's CRF is x264's")
        XCTAssertEqual(medium.encoding.x264Preset, "slow")
        let h264 = try XCTUnwrap(try job("{ videoQuality: typeLow, crf: 20 }").transcode?.movie)
        XCTAssertEqual(h264.encoding.crf, 20)
        XCTAssertEqual(try job("{ videoQuality: typeLow, fps: 24 }").transcode?.movie?.encoding.crf, 28)
        XCTAssertNil(try job("{ videoQuality: typeLow }").transcode?.movie, "a preset alone is as it was")
    }

    func testEachKeysValues() throws {
        let own = try XCTUnwrap(try job("""
            { videoCodec: av1, crf: 40, speed: 5, maxHeight: 480, fps: 29.97, keyframeEvery: 2s,
                            audio: { AVFormatIDKey: kAudioFormatOpus, AVEncoderBitRateKey: 96000, AVNumberOfChannelsKey: 1 } }
            """, name: "{stem}.webm").transcode?.movie)
        XCTAssertEqual(own.encoding.codec, .av1)
        XCTAssertEqual(own.encoding.crf, 40)
        XCTAssertEqual(own.encoding.x264Preset, "5")
        XCTAssertEqual(own.encoding.boxHeight, 480)
        XCTAssertEqual(own.encoding.boxWidth, 1 << 20)
        XCTAssertFalse(own.encoding.upscale)
        XCTAssertEqual(own.encoding.frameRate, MovieFrameRate(numerator: 30000, denominator: 1001))
        XCTAssertEqual(own.encoding.keyframeSeconds, 2)
        XCTAssertEqual(own.encoding.audio, .encode(codec: .opus, bitRate: 96000, sampleRate: nil, channels: 1))
        XCTAssertEqual(try job("{ videoCodec: vp9, keyframeEvery: 48f, audio: copy }", name: "{stem}.mkv").transcode?.movie?.encoding.keyframeInterval, 48)
        let remux = try XCTUnwrap(try job("{ videoCodec: copy }", name: "{stem}.mkv").transcode?.movie)
        XCTAssertTrue(remux.remux)
        XCTAssertEqual(remux.encoding.audio, .copy)
        XCTAssertEqual(MovieFrameRate("25fps"), MovieFrameRate(numerator: 25, denominator: 1))
        XCTAssertEqual(MovieFrameRate("24000/1001"), MovieFrameRate(numerator: 24000, denominator: 1001))
        XCTAssertNil(MovieFrameRate("0"))
        XCTAssertNil(MovieFrameRate("500"))
        // Out of range before any conversion to Int (1e300 · 1.001 as an Int would trap).
        XCTAssertNil(MovieFrameRate("1e300"))
        XCTAssertNil(MovieFrameRate("-1e300"))
        XCTAssertNil(MovieFrameRate("nan"))
        XCTAssertEqual(MovieFrameRate("29.97"), MovieFrameRate(numerator: 30000, denominator: 1001))
        // A soundtrack job: audio settings only, no movie settings.
        let sound = try XCTUnwrap(try job("{ AVFormatIDKey: copy }", name: "{stem}.{ext}").transcode)
        XCTAssertTrue(sound.copyAudio)
        XCTAssertNil(sound.movie)
        XCTAssertTrue(sound.setsAudio)
    }

    func testContainersAndContradictionsAreRefusedWhereTheyAre() {
        // Line 6 is the export; its name's value starts at column 30 (`{stem}.webm` quoted).
        XCTAssertEqual(diagnostics("{ videoCodec: h264 }", name: "{stem}.webm"), [
            "p.yaml:6:30: error: .webm cannot hold h264; name the output .mkv or .mov or .mp4, or use videoCodec: av1 or vp9",
        ].map { $0 })
        XCTAssertEqual(diagnostics("{ videoCodec: vp9 }", name: "{stem}.webm").count, 1, "AAC sound cannot go in WebM")
        XCTAssertTrue(diagnostics("{ videoCodec: vp9 }", name: "{stem}.webm").first?.contains("kAudioFormatOpus") == true)
        XCTAssertEqual(diagnostics("{ videoCodec: av1, audio: { AVFormatIDKey: kAudioFormatOpus } }", name: "{stem}.webm"), [])
        XCTAssertEqual(diagnostics("{ videoCodec: hevc }", name: "{stem}.{ext}"), [], "a template extension is checked per item")
        let problems = diagnostics("{ videoCodec: x265, crf: 70, fps: fast, keyframeEvery: 2 minutes, audio: aac }")
        XCTAssertEqual(problems.count, 5, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("crf must be a whole number in 0…51, not '70'") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("p.yaml:5:30: error: unknown videoCodec 'x265'") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("fps is a frame rate from 1 to 240") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("keyframeEvery is seconds") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("audio takes 'copy' or AVAudioRecorder settings, not 'aac'") }, "\(problems)")
        // The picture copied, the sound re-encoded: its codec against the container as for a re-encode.
        XCTAssertEqual(diagnostics("{ videoCodec: copy, audio: { AVFormatIDKey: kAudioFormatOpus } }", name: "{stem}.mkv"), [])
        XCTAssertTrue(diagnostics("{ videoCodec: copy, audio: { AVFormatIDKey: kAudioFormatOpus } }", name: "{stem}.mov")
            .contains { $0.contains(".mov cannot hold opus sound") })
        XCTAssertTrue(diagnostics("{ videoCodec: hevc, crf: 60 }").contains { $0.contains("crf must be a whole number in 0…51") })
        XCTAssertTrue(diagnostics("{ videoCodec: h264, speed: 3 }").contains { $0.contains("unknown speed '3' for h264") })
        XCTAssertTrue(diagnostics("{ AVFormatIDKey: copy, AVSampleRateKey: 44100 }", name: "{stem}.{ext}")
            .contains { $0.contains("AVFormatIDKey: copy keeps the stream as it is") })
    }
}
