import Foundation
import MedleyKernels
import XCTest

/// Trims, fades and the sound extent pushed through an `AudioChain` in blocks of uneven sizes
/// (block edges anywhere, including inside a fade and at a cut), each frame checked against the
/// formula written here: a cut keeps frames start..<end; a fade-in multiplies frame n by g(n/N),
/// a fade-out frame k by g((L − k)/M), with g as SoX documents its fade types (t, l, h).
final class TrimFadeProcessorTests: XCTestCase {
    /// Blocks of these sizes, cycled: 1 frame, a whole 4096-frame block, odd sizes between.
    let sizes = [1, 4096, 7, 3000, 4095, 13, 5000]

    /// Pushes `input` (interleaved, `channels`) through `steps` in blocks cycling `sizes`.
    func run(_ input: [Float], channels: Int, steps: [AudioProcessor]) throws -> [Float] {
        var output: [Float] = []
        let chain = AudioChain(steps) { block, count in output += Array(UnsafeBufferPointer(start: block, count: count * channels)) }
        var samples = input
        var frame = 0, turn = 0
        let frames = input.count / channels
        try samples.withUnsafeMutableBufferPointer { buffer in
            while frame < frames {
                let count = min(sizes[turn % sizes.count], frames - frame)
                try chain.push(buffer.baseAddress! + frame * channels, count: count)
                frame += count
                turn += 1
            }
        }
        try chain.finish()
        return output
    }

    func testTrimKeepsExactlyTheFramesBetweenItsCuts() throws {
        let channels = 2, frames = 20_000
        let input = (0..<(frames * channels)).map { Float($0) }  // each sample names its own index
        for (start, end) in [(0, frames), (4095, 4097), (1, 19_999), (8192, 12_288), (12_345, 20_000), (5000, 5000)] {
            let output = try run(input, channels: channels, steps: [TrimProcessor(start: start, end: end, channels: channels)])
            XCTAssertEqual(output, (start * channels..<end * channels).map { Float($0) }, "cut \(start)..<\(end)")
        }
    }

    func testFadeGainsAreTheCurveFormulasAtEveryFrame() throws {
        let length = 13_000, fadeIn = 4800, fadeOut = 6000, channels = 3
        let input = [Float](repeating: 0.5, count: length * channels)
        // The curves as SoX's fade.c defines them, written out here.
        let formulas: [(FadeCurve, (Double) -> Double)] = [
            (.linear, { $0 }),
            (.log, { pow(0.1, (1 - $0) * 5) }),
            (.sCurve, { (1 - cos($0 * Double.pi)) / 2 }),
        ]
        for (curve, g) in formulas {
            let fade = FadeProcessor(fadeIn: fadeIn, fadeOut: fadeOut, length: length, curve: curve, channels: channels)
            let output = try run(input, channels: channels, steps: [fade])
            XCTAssertEqual(output.count, input.count)
            for k in 0..<length {
                var expected = 0.5
                if k < fadeIn { expected *= g(Double(k) / Double(fadeIn)) }
                if k >= length - fadeOut { expected *= g(Double(length - k) / Double(fadeOut)) }
                for c in 0..<channels {
                    // The gain is applied as a Float: one rounding of a number ≤ 0.5 (2^-25 · 2).
                    XCTAssertEqual(Double(output[k * channels + c]), expected, accuracy: 6e-8, "\(curve) frame \(k)")
                }
            }
            // The ends as SoX places them: a silent first frame, full level at the fade-out's first frame.
            XCTAssertEqual(output[0], curve == .log ? Float(0.5e-5) : 0, accuracy: 1e-9)
            XCTAssertEqual(output[(length - fadeOut) * channels], 0.5)
        }
    }

    func testTrimThenFadeCountsTheFadeFromTheCut() throws {
        let frames = 10_000, start = 4000, end = 9000
        let input = [Float](repeating: 1, count: frames)
        let output = try run(input, channels: 1, steps: [
            TrimProcessor(start: start, end: end, channels: 1),
            FadeProcessor(fadeIn: 100, fadeOut: 200, length: end - start, curve: .linear, channels: 1),
        ])
        XCTAssertEqual(output.count, end - start)
        XCTAssertEqual(output[0], 0)
        XCTAssertEqual(output[50], 0.5)
        XCTAssertEqual(output[100], 1)
        XCTAssertEqual(output[end - start - 200], 1)
        XCTAssertEqual(output[end - start - 1], Float(1.0 / 200), accuracy: 1e-7)
    }

    func testSoundExtentFindsTheFirstAndLastLoudFrameInAnyChannel() {
        let channels = 2, frames = 30_000, threshold: Float = 0.01
        var samples = [Float](repeating: 0.005, count: frames * channels)
        samples[8191 * channels + 1] = -0.02   // channel 1, the last frame of block 2
        samples[12_000 * channels] = 0.5
        samples[20_480 * channels + 1] = 0.011 // the first frame of block 6
        samples[25_000 * channels] = .nan      // NaN is not sound
        samples[26_000 * channels] = threshold // equal is not above
        for blockSize in [1, 4096, 777, frames] {
            var extent = SoundExtent(threshold: threshold, channels: channels)
            samples.withUnsafeBufferPointer { buffer in
                var frame = 0
                while frame < frames {
                    let count = min(blockSize, frames - frame)
                    extent.add(buffer.baseAddress! + frame * channels, frames: count)
                    frame += count
                }
            }
            XCTAssertEqual(extent.first, 8191, "blocks of \(blockSize)")
            XCTAssertEqual(extent.last, 20_480, "blocks of \(blockSize)")
            XCTAssertEqual(extent.frames, frames)
        }
        var quiet = SoundExtent(threshold: threshold, channels: 1)
        let silence = [Float](repeating: 0.001, count: 100)
        silence.withUnsafeBufferPointer { quiet.add($0.baseAddress!, frames: 100) }
        XCTAssertNil(quiet.first)
        XCTAssertNil(quiet.last)
        // A single loud frame is both the first and the last.
        var one = SoundExtent(threshold: threshold, channels: 1)
        var single = [Float](repeating: 0, count: 100)
        single[37] = 1
        single.withUnsafeBufferPointer { one.add($0.baseAddress!, frames: 100) }
        XCTAssertEqual(one.first, 37)
        XCTAssertEqual(one.last, 37)
    }
}
