import Foundation
import MedleyKernels
import XCTest

/// The true-peak limiter, checked against values computed here: the input itself (a signal under
/// the ceiling passes bit-exact, only delayed), frame counts, and true peaks found by a reference
/// oversampler written in this file (16× in Double, a 128-tap Hann-windowed sinc per phase —
/// longer, finer and differently windowed than the limiter's 48-tap 4× Kaiser interpolator).
final class TruePeakLimiterTests: XCTestCase {
    /// Pushes `signal` (interleaved) through the limiter in blocks of the given sizes, in turn.
    func limit(_ signal: [Float], channels: Int, rate: Int, ceiling: Float, blocks: [Int]) throws -> [Float] {
        let limiter = TruePeakLimiter(channels: channels, sampleRate: rate, ceiling: ceiling)
        var output: [Float] = []
        var input = signal
        var offset = 0, turn = 0
        let frames = signal.count / channels
        try input.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            while offset < frames {
                let count = min(blocks[turn % blocks.count], frames - offset)
                turn += 1
                try limiter.process(base + offset * channels, count: count) { block, made in
                    output += UnsafeBufferPointer(start: block, count: made * channels)
                }
                offset += count
            }
        }
        try limiter.finish { block, made in output += UnsafeBufferPointer(start: block, count: made * channels) }
        return output
    }

    /// The highest level of `signal` (one channel) at 16 points per sample, by a windowed sinc.
    func referenceTruePeak(_ x: [Float]) -> Double {
        let half = 64, factor = 16
        var peak = x.map { abs(Double($0)) }.max() ?? 0
        for n in 0..<x.count {
            for p in 1..<factor {
                let t = Double(n) + Double(p) / Double(factor)
                var sum = 0.0
                for k in (n - half + 1)...(n + half) where k >= 0 && k < x.count {
                    let d = t - Double(k)
                    let window = 0.5 + 0.5 * cos(Double.pi * d / Double(half))
                    sum += Double(x[k]) * sin(Double.pi * d) / (Double.pi * d) * window
                }
                peak = max(peak, abs(sum))
            }
        }
        return peak
    }

    func testASignalUnderTheCeilingPassesUnchangedAndExactlyAsLong() throws {
        let rate = 48000, frames = 12_345
        // Two channels of a 997 Hz sine at half scale, far under a -1 dBTP ceiling.
        var signal: [Float] = []
        for n in 0..<frames {
            let v = Float(0.5 * sin(2 * Double.pi * 997 * Double(n) / Double(rate)))
            signal += [v, -v]
        }
        for blocks in [[4096], [1], [7, 1000, 3], [20_000]] {
            let out = try limit(signal, channels: 2, rate: rate, ceiling: Float(pow(10, -1.0 / 20)), blocks: blocks)
            XCTAssertEqual(out.count, signal.count, "frames in = frames out with blocks \(blocks)")
            XCTAssertEqual(out, signal, "gain 1 is exact; the delay is compensated (blocks \(blocks))")
        }
    }

    func testAShortStreamComesOutWhole() throws {
        // Fewer frames than the limiter's latency: all of them still come out, at finish.
        let signal: [Float] = [0.9, -0.9, 0.2]
        let out = try limit(signal, channels: 1, rate: 44100, ceiling: 0.5, blocks: [4096])
        XCTAssertEqual(out.count, 3)
        XCTAssertLessThanOrEqual(out.map(abs).max() ?? 1, 0.5)
    }

    func testLoudPeaksAreHeldUnderTheCeilingIncludingInterSamplePeaks() throws {
        let rate = 44100, frames = 8000
        let ceiling = pow(10, -1.0 / 20)
        // A sine at a quarter of the rate with phase π/4: its samples sit at 0.707 of its amplitude,
        // its true peak between them at the full 1.4 (+3 dB over the samples), plus bursts of an
        // 11 kHz tone at full scale.
        var signal: [Float] = []
        for n in 0..<frames {
            let t = Double(n)
            var v = 1.4 * sin(Double.pi / 2 * t + Double.pi / 4)
            if (2000..<2600).contains(n) || (5000..<5100).contains(n) { v = 0.99 * sin(2 * Double.pi * 11000 * t / Double(rate)) }
            signal.append(Float(v * (n < 1000 ? 0.3 : 1)))
        }
        let reference = referenceTruePeak(signal)
        XCTAssertGreaterThan(20 * log10(reference), 2.5, "the test signal's true peak is well over full scale")
        let out = try limit(signal, channels: 1, rate: rate, ceiling: Float(ceiling), blocks: [512, 333])
        XCTAssertEqual(out.count, signal.count)
        let peak = referenceTruePeak(out)
        // 0.05 dB: the limiter sees the signal at 4 points per sample, the reference at 16, and the
        // gain's own (smooth) modulation widens the spectrum a little.
        XCTAssertLessThanOrEqual(20 * log10(peak), -1 + 0.05, "output true peak by the 16× reference")
        // Limiting, not silencing: the loud part keeps most of its level (within 0.5 dB of the ceiling).
        let late = Array(out[6000..<7900]).map { abs(Double($0)) }.max() ?? 0
        XCTAssertGreaterThan(20 * log10(late), -1.5 - 3.1, "sample level of the π/4 sine after limiting")
    }

    func testTheGainChangesSmoothly() throws {
        // A step from quiet to over full scale: the gain must fall over the lookahead, not in one
        // frame. Per-frame gain = out/in on a DC-free square of known sign.
        let rate = 48000, frames = 6000
        let signal: [Float] = (0..<frames).map { n in (n % 2 == 0 ? 1 : -1) * (n < 3000 ? 0.1 : 1.5) }
        let out = try limit(signal, channels: 1, rate: rate, ceiling: 0.5, blocks: [4096])
        let gains = zip(out, signal).map { Double($0 / $1) }
        var largestStep = 0.0
        for n in 1..<gains.count { largestStep = max(largestStep, abs(gains[n] - gains[n - 1])) }
        // The attack spreads the drop from 1 to 1/3 over 240 frames (5 ms): ≈ 0.0028 per frame.
        XCTAssertLessThan(largestStep, 0.01)
        XCTAssertLessThanOrEqual(out.map(abs).max() ?? 1, 0.5 + 1e-6)
    }

    func testNaNAndInfinityDoNotTrap() throws {
        let signal: [Float] = [0.1, .nan, .infinity, -.infinity, 0.2] + Array(repeating: 0.3, count: 500)
        let out = try limit(signal, channels: 1, rate: 8000, ceiling: 0.9, blocks: [3])
        XCTAssertEqual(out.count, signal.count)
    }
}
