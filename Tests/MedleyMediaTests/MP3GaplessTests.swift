import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// MP3 lengths as FFmpeg decodes them: a LAME tag (LAME's encoder, FFmpeg's libmp3lame) names
/// the encoder's delay and padding, which FFmpeg drops with the decoder's 529 samples, so a
/// 2.000 s source reads 2.000 s. The expected counts are ffmpeg's: `ffmpeg -i x.mp3 -f s16le -`
/// bytes / (2 · channels); and the stated lengths of the sources made here.
final class MP3GaplessTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-gapless-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// A sine of `seconds` at `rate` Hz and `channels` channels as WAV.
    func source(_ name: String, seconds: String, rate: Int, channels: Int) throws -> String {
        let path = folder + "/" + name + ".wav"
        try Peer.must("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=\(seconds)",
                                 "-ac", String(channels), path])
        return path
    }

    /// The frames ffmpeg decodes from `path`.
    func ffmpegFrames(_ path: String, channels: Int) throws -> Int {
        try Peer.must("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-"]).data.count / (2 * channels)
    }

    func testA2SecondLAMEFileReads2Seconds() throws {
        let wav = try source("two", seconds: "2", rate: 44100, channels: 2)
        var made = [folder + "/libmp3lame.mp3"]
        try Peer.must("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "libmp3lame", "-b:a", "128k", made[0]])
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/lame") {
            made.append(folder + "/lame.mp3")
            try Peer.must("/usr/bin/lame", ["--quiet", wav, made[1]])
        }
        for path in made {
            let reader = try FFmpegAudioReader(path: path)
            XCTAssertEqual(reader.info.frames, 88200, path)
            XCTAssertEqual(reader.info.duration, 2.0, accuracy: 1e-9, path)
            XCTAssertEqual(try ffmpegFrames(path, channels: 2), 88200, "ffmpeg decodes the source's length: \(path)")
            // The decode hands out what ffmpeg decodes.
            let meter = try reader.meterToEnd()
            XCTAssertEqual(meter.frames, 88200, path)
        }
    }

    /// Every MPEG version and channel count, VBR with a Xing/LAME tag, CBR with an Info tag and
    /// without one (`-write_xing 0`, LAME's `-t`): the length within one sample of ffmpeg's count.
    func testLengthsMatchFFmpegsDecodedCount() throws {
        var cases: [(String, Int)] = []
        for rate in [8000, 22050, 32000, 44100, 48000] {
            for channels in [1, 2] {
                let wav = try source("s\(rate)-\(channels)", seconds: "1.2345", rate: rate, channels: channels)
                let base = folder + "/\(rate)-\(channels)"
                try Peer.must("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "libmp3lame", "-q:a", "5", base + "-vbr.mp3"])
                try Peer.must("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0", base + "-noxing.mp3"])
                cases += [(base + "-vbr.mp3", channels), (base + "-noxing.mp3", channels)]
                if FileManager.default.isExecutableFile(atPath: "/usr/bin/lame") {
                    try Peer.must("/usr/bin/lame", ["--quiet", "-b", "64", wav, base + "-lame-cbr.mp3"])
                    try Peer.must("/usr/bin/lame", ["--quiet", "-V", "4", "-t", wav, base + "-lame-notag.mp3"])
                    cases += [(base + "-lame-cbr.mp3", channels), (base + "-lame-notag.mp3", channels)]
                }
            }
        }
        for (path, channels) in cases {
            let expected = try ffmpegFrames(path, channels: channels)
            let frames = try FFmpegAudioReader(path: path).info.frames
            XCTAssertLessThanOrEqual(abs(frames - expected), 1, "\(path): \(frames) frames, ffmpeg decodes \(expected)")
        }
    }

    /// A file cut short of the count its Xing header states: ffmpeg decodes the frames that are
    /// there, and the padding is not cut from them.
    func testAFileShorterThanItsHeaderSays() throws {
        let wav = try source("one", seconds: "1", rate: 44100, channels: 1)
        let whole = folder + "/whole.mp3"
        try Peer.must("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "libmp3lame", "-b:a", "128k", whole])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder + "/cut.mp3"
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        for path in [cut] {
            let expected = try ffmpegFrames(path, channels: 1)
            let frames = try FFmpegAudioReader(path: path).info.frames
            XCTAssertLessThanOrEqual(abs(frames - expected), 1, "\(path): \(frames) frames, ffmpeg decodes \(expected)")
        }
    }

    /// The MP3s of the real-world corpus (the test data cache: $MEDLEY_TEST_DATA, else
    /// ~/.cache/medley-tests; fixtures/realworld/make-audio.sh), when it has any.
    func testRealWorldMP3sMatchFFmpeg() throws {
        let environment = ProcessInfo.processInfo.environment
        let root = environment["MEDLEY_TEST_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache") + "/medley-tests"
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw XCTSkip("no real-world corpus") }
        let mp3s = walker.compactMap { $0 as? String }.filter { $0.lowercased().hasSuffix(".mp3") }.map { root + "/" + $0 }
        if mp3s.isEmpty { throw XCTSkip("the real-world corpus has no MP3") }
        for path in mp3s {
            let channels = try FFmpegAudioReader(path: path).info.channels
            let expected = try ffmpegFrames(path, channels: channels)
            let frames = try FFmpegAudioReader(path: path).info.frames
            XCTAssertLessThanOrEqual(abs(frames - expected), 1, "\(path): \(frames) frames, ffmpeg decodes \(expected)")
        }
    }
}
