import Foundation
import MedleyMedia
import XCTest
import MedleyTestSupport

/// FFmpegAudioWriter's encoder thread (issue 18): blocks of every size are copied into a queue and
/// encoded on the writer's own thread. The packets must be those of encoding inside `write`, and a
/// lossless encode must hold exactly the samples given, in order. Read back by ffmpeg.
final class EncoderThreadTests: XCTestCase {
    var work = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-encoder-thread-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    /// A tone and a chirp (left), a softer tone with a beat (right): every frame differs.
    static func sample(_ frame: Int, channel: Int, rate: Int) -> Double {
        let t = Double(frame) / Double(rate)
        return channel == 0
            ? 0.5 * sin(2 * .pi * 440 * t) + 0.2 * sin(2 * .pi * (200 + 400 * t) * t)
            : 0.3 * sin(2 * .pi * 660 * t) * (0.6 + 0.4 * sin(2 * .pi * 3 * t))
    }

    /// Block sizes that straddle the encoder's 1024-frame frames and the queue slots' capacity.
    static let blocks = [1, 1000, 4096, 4460, 9000, 17, 1023, 1025, 12_000, 2]

    /// Writes `seconds` of the signal in the block sizes above and closes the file.
    func write(_ path: String, _ format: FFmpegOutputFormat, seconds: Int, thread: Bool) throws {
        let writer = try FFmpegAudioWriter(path: path, format: format, encoderThread: thread)
        let total = seconds * format.sampleRate, channels = format.channels
        var done = 0, next = 0
        var buffer = [Float]()
        while done < total {
            let count = min(Self.blocks[next % Self.blocks.count], total - done)
            next += 1
            buffer = (0..<count * channels).map { Float(Self.sample(done + $0 / channels, channel: $0 % channels, rate: format.sampleRate)) }
            try buffer.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: count) }
            done += count
        }
        try writer.close()
    }

    /// ffmpeg's per-packet checksums of the first audio stream (its own demuxer, no decoding).
    func packets(_ path: String) throws -> [String] {
        let result = try Peer.must("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    func testAACPacketsAreTheSameWithAndWithoutTheThread() throws {
        let format = FFmpegOutputFormat(muxer: "ipod", codec: "aac", sampleRate: 48000, channels: 2, bitRate: 128_000)
        try write(work + "/inline.m4a", format, seconds: 10, thread: false)
        try write(work + "/thread.m4a", format, seconds: 10, thread: true)
        let inline = try packets(work + "/inline.m4a"), threaded = try packets(work + "/thread.m4a")
        // 480,000 frames are 469 AAC frames of 1024, plus the encoder's priming frame.
        XCTAssertGreaterThanOrEqual(inline.count, 469)
        XCTAssertEqual(threaded.count, inline.count)
        XCTAssertEqual(threaded, inline)
        let probe = try Peer.must("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration",
                                              "-of", "csv=p=0", work + "/thread.m4a"])
        let duration = try XCTUnwrap(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(duration, 10, accuracy: 1024.0 / 48000)
    }

    func testLosslessThroughTheThreadHoldsEverySampleInOrder() throws {
        // ALAC at 16 bits: the encoder is handed round(x · 32768), clamped to the 16-bit range.
        let format = FFmpegOutputFormat(muxer: "ipod", codec: "alac", sampleRate: 44100, channels: 2, bitsPerSample: 16)
        let path = work + "/thread-alac.m4a"
        try write(path, format, seconds: 3, thread: true)
        let decoded = try Peer.must("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"]).data
        let total = 3 * 44100
        XCTAssertEqual(decoded.count, total * 2 * 2)
        var mismatches = 0, firstMismatch = -1
        decoded.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            for index in 0..<min(samples.count, total * 2) {
                // The writer is handed Floats; lrintf rounds ties to even.
                let given = Double(Float(Self.sample(index / 2, channel: index % 2, rate: 44100)))
                let exact = (given * 32768).rounded(.toNearestOrEven)
                let expected = Int16(max(-32768, min(32767, exact)))
                if Int16(littleEndian: samples[index]) != expected {
                    mismatches += 1
                    if firstMismatch < 0 { firstMismatch = index }
                }
            }
        }
        XCTAssertEqual(mismatches, 0, "first mismatch at sample \(firstMismatch)")
    }
}
