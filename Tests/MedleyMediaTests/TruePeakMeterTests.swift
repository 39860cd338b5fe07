import CEbur128
import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// `LoudnessMeter`'s true peak (MedleyKernels' SIMD interpolator) against libebur128's own
/// `EBUR128_MODE_TRUE_PEAK`, called here through its C API on the same samples, and against the
/// formula of a signal whose inter-sample peak is known.
final class TruePeakMeterTests: XCTestCase {
    /// libebur128's true peak of interleaved `samples`, fed in blocks of `block` frames.
    func reference(_ samples: [Float], channels: Int, rate: Int, block: Int = 4096) throws -> Double {
        let mode = EBUR128_MODE_TRUE_PEAK.rawValue
        var state: UnsafeMutablePointer<ebur128_state>? = try XCTUnwrap(ebur128_init(UInt32(channels), UInt(rate), Int32(bitPattern: mode)))
        defer { ebur128_destroy(&state) }
        let frames = samples.count / channels
        samples.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < frames {
                let count = min(block, frames - offset)
                _ = ebur128_add_frames_float(state, buffer.baseAddress! + offset * channels, count)
                offset += count
            }
        }
        var highest = 0.0
        for c in 0..<channels {
            var peak = 0.0
            _ = ebur128_true_peak(state, UInt32(c), &peak)
            highest = max(highest, peak)
        }
        return highest
    }

    /// Medley's true peak of the same samples, fed in blocks of `block` frames.
    func medley(_ samples: [Float], channels: Int, rate: Int, block: Int = 4096) throws -> Double {
        let meter = try LoudnessMeter(channels: channels, sampleRate: rate)
        let frames = samples.count / channels
        try samples.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < frames {
                let count = min(block, frames - offset)
                try meter.add(buffer.baseAddress! + offset * channels, frames: count)
                offset += count
            }
        }
        return try meter.measurement().truePeak
    }

    /// Noise and tones near Nyquist, where inter-sample peaks are largest.
    func signal(frames: Int, channels: Int, rate: Int, seed start: UInt32) -> [Float] {
        var seed = start
        var x = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Float(seed >> 8) / Float(1 << 24) - 0.5
                let tone = sin(2 * Double.pi * (Double(rate) * 0.23 + Double(97 * c)) * Double(f) / Double(rate) + 0.3)
                x[f * channels + c] = Float(0.6 * tone) + 0.5 * noise
            }
        }
        return x
    }

    func testAgreesWithLibebur128AtEveryRateAndChannelCount() throws {
        for (rate, channels, block) in [(44100, 2, 4096), (48000, 1, 1000), (48000, 6, 333), (96000, 2, 4096), (22050, 2, 7),
                                        (192_000, 2, 4096)] {
            let samples = signal(frames: rate / 2, channels: channels, rate: rate, seed: UInt32(rate + channels))
            let expected = try reference(samples, channels: channels, rate: rate, block: block)
            let measured = try medley(samples, channels: channels, rate: rate, block: block)
            // Same filter design; float summation order differs, and Medley also runs the
            // interpolator's tail past the last frame (libebur128 stops at it): 0.01 dB.
            XCTAssertEqual(20 * log10(measured), 20 * log10(expected), accuracy: 0.01, "\(rate) Hz × \(channels), blocks of \(block)")
        }
    }

    func testAQuarterRateSineAt45DegreesPeaksBetweenItsSamples() throws {
        // x[n] = A·sin(πn/2 + π/4): every sample is ±A·cos(45°), the waveform reaches ±A between them.
        let rate = 48000, amplitude = 0.5
        let samples = (0..<rate).map { Float(amplitude * sin(Double.pi * Double($0) / 2 + Double.pi / 4)) }
        let measurement = try {
            let meter = try LoudnessMeter(channels: 1, sampleRate: rate)
            try samples.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frames: samples.count) }
            return try meter.measurement()
        }()
        XCTAssertEqual(measurement.samplePeak, amplitude * cos(Double.pi / 4), accuracy: 1e-6)
        // A 49-tap interpolator's ripple at fs/4 is within a few tenths of a dB (BS.1770-4 allows
        // the true-peak meter 0.3 dB of under-read at this frequency).
        XCTAssertEqual(20 * log10(measurement.truePeak), 20 * log10(amplitude), accuracy: 0.3)
        XCTAssertGreaterThan(measurement.truePeak, measurement.samplePeak * 1.3)
    }

    func testAPeakInTheLastSamplesCountsWhole() throws {
        // An impulse at the very end: its interpolated neighbourhood lies after the stream.
        var samples = [Float](repeating: 0, count: 48000)
        samples[samples.count - 1] = 0.8
        let meter = try LoudnessMeter(channels: 1, sampleRate: 48000)
        try samples.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frames: samples.count) }
        // The interpolator's centre tap is 1 (sinc(0) · window(centre)): the impulse itself.
        XCTAssertEqual(try meter.measurement().truePeak, 0.8, accuracy: 1e-6)
    }
}
