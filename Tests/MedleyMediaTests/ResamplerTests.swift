import CSamplerate
import MedleyMedia
import MedleyTestSupport
import XCTest

/// `Resampler` against libsamplerate's `src_process` called here through its C API: the same
/// converter, the same input and the same sequence of calls. Expected samples and frame counts
/// come from libsamplerate itself, never from the resampler.
final class ResamplerTests: XCTestCase {
    static let rates = [(44100, 48000), (48000, 44100), (44100, 96000), (96000, 44100),
                        (22050, 44100), (8000, 44100), (48000, 16000)]
    static let qualities: [(ResamplerQuality, Int32)] = [(.sincFastest, Int32(SRC_SINC_FASTEST)),
                                                         (.sincMedium, Int32(SRC_SINC_MEDIUM_QUALITY)),
                                                         (.sincBest, Int32(SRC_SINC_BEST_QUALITY))]

    /// Everything a stream of calls produced: the samples and each call's (used, generated).
    struct Run: Equatable {
        var samples: [Float] = []
        var calls: [[Int]] = []
        var frames: Int { calls.reduce(0) { $0 + $1[1] } }
    }

    /// A different sine per channel plus uniform noise from an LCG, peaking below 0.9.
    func signal(frames: Int, channels: Int, rate: Int) -> [Float] {
        var seed: UInt32 = 12345
        var x = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Float(seed >> 8) / Float(1 << 24) - 0.5
                let tone = sin(2 * Double.pi * Double(440 + 331 * c) * Double(f) / Double(rate))
                x[f * channels + c] = Float(0.5 * tone) + 0.7 * noise
            }
        }
        return x
    }

    /// Streams `input` the way AudioStage does: blocks of `block` frames, each offered until it is
    /// used up; the block that comes up short carries `end` and is offered again until nothing
    /// more is made. `capacity` may vary by call number to squeeze the output.
    func stream(_ input: [Float], channels: Int, ratio: Double, block: Int = 4096,
                capacity: (Int) -> Int = { _ in 0 },
                _ process: (UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>, Int, Bool) throws -> (Int, Int))
        rethrows -> Run {
        let total = input.count / channels
        let room = Int((Double(block) * ratio).rounded(.up)) + 64
        var out = [Float](repeating: 0, count: room * channels)
        var run = Run()
        var position = 0
        try input.withUnsafeBufferPointer { source in
            while true {
                let read = min(block, total - position)
                let end = read < block
                var offset = 0
                repeat {
                    let limit = capacity(run.calls.count)
                    let (used, made) = try process(source.baseAddress! + (position + offset) * channels, read - offset,
                                                   &out, limit > 0 ? limit : room, end)
                    run.calls.append([used, made])
                    run.samples += out[..<(made * channels)]
                    offset += used
                    if end && made == 0 && offset >= read { break }
                    XCTAssertLessThan(run.calls.count, 100_000, "the stream never ends")
                    if run.calls.count >= 100_000 { return }
                } while offset < read || end
                position += read
                if end { break }
            }
        }
        return run
    }

    /// libsamplerate through its C API.
    func reference(_ converter: Int32, _ input: [Float], channels: Int, from: Int, to: Int, block: Int = 4096,
                   capacity: @escaping (Int) -> Int = { _ in 0 }) -> Run {
        var error: Int32 = 0
        let state = src_new(converter, Int32(channels), &error)!
        defer { src_delete(state) }
        let ratio = Double(to) / Double(from)
        return stream(input, channels: channels, ratio: ratio, block: block, capacity: capacity) { x, frames, y, room, end in
            var data = SRC_DATA()
            data.data_in = x
            data.input_frames = frames
            data.data_out = y
            data.output_frames = room
            data.end_of_input = end ? 1 : 0
            data.src_ratio = ratio
            XCTAssertEqual(src_process(state, &data), 0)
            return (data.input_frames_used, data.output_frames_gen)
        }
    }

    func resampled(_ resampler: Resampler, _ input: [Float], block: Int = 4096,
                   capacity: @escaping (Int) -> Int = { _ in 0 }) throws -> Run {
        try stream(input, channels: resampler.channels, ratio: resampler.ratio, block: block, capacity: capacity) {
            try resampler.process($0, frames: $1, into: $2, capacity: $3, end: $4)
        }
    }

    /// Largest |difference| and the error energy relative to the reference's, in dB.
    func difference(_ a: [Float], _ b: [Float]) -> (max: Float, decibels: Double) {
        var largest: Float = 0, error = 0.0, energy = 0.0
        for (x, y) in zip(a, b) {
            largest = max(largest, abs(x - y))
            error += Double(x - y) * Double(x - y)
            energy += Double(x) * Double(x)
        }
        return (largest, 10 * log10(max(error, 1e-300) / energy))
    }

    /// What one case measured, kept until the assertions run on the test's own thread.
    struct Outcome {
        var label = ""
        var isPolyphase = false
        var expected = Run(), actual = Run()
        var largest: Float = 0
        var decibels = 0.0
    }

    /// Runs `cases` on every core; each builds its own resampler and libsamplerate state.
    func outcomes(_ cases: [(Int, Int, ResamplerQuality, Int32, Int)],
                  seconds: (ResamplerQuality, Int) -> Double) -> [Outcome] {
        final class Box: @unchecked Sendable { var outcomes: [Outcome] = [] }
        let box = Box()
        box.outcomes = Array(repeating: Outcome(), count: cases.count)
        DispatchQueue.concurrentPerform(iterations: cases.count) { i in
            let (from, to, quality, converter, channels) = cases[i]
            var outcome = Outcome()
            outcome.label = "\(from) → \(to) \(quality) \(channels) ch"
            let input = signal(frames: Int(Double(from) * seconds(quality, channels)), channels: channels, rate: from)
            if let resampler = try? Resampler(quality: quality, channels: channels, from: from, to: to),
               let actual = try? resampled(resampler, input) {
                outcome.isPolyphase = resampler.isPolyphase
                outcome.actual = actual
            }
            outcome.expected = reference(converter, input, channels: channels, from: from, to: to)
            (outcome.largest, outcome.decibels) = difference(outcome.expected.samples, outcome.actual.samples)
            box.outcomes[i] = outcome  // distinct indices of a pre-sized array
        }
        return box.outcomes
    }

    /// Every listed rate pair, converter and channel count over 2 s of input (1 s for six
    /// channels, half that for sinc best, whose debug-build filtering is slow): identical frame
    /// counts call by call, samples within 1e-5 of libsamplerate's. 1e-5 is about 170 float ulps at this level, far
    /// above float rounding in a dot product (~1e-7) and far below any filter difference (a
    /// phase off by one table step moves samples by ~1e-3).
    func testPolyphaseMatchesLibsamplerate() throws {
        let cases = Self.rates.flatMap { from, to in
            Self.qualities.flatMap { quality, converter in [1, 2, 6].map { (from, to, quality, converter, $0) } }
        }
        var worst: Float = 0, worstDecibels = -400.0
        for outcome in outcomes(cases, seconds: { ($1 == 6 ? 1 : 2) * ($0 == .sincBest ? 0.5 : 1) }) {
            XCTAssertTrue(outcome.isPolyphase, outcome.label)
            XCTAssertEqual(outcome.actual.frames, outcome.expected.frames, outcome.label)
            XCTAssertEqual(outcome.actual.calls, outcome.expected.calls, "every call takes and makes the same: " + outcome.label)
            XCTAssertEqual(outcome.actual.samples.count, outcome.expected.samples.count, outcome.label)
            XCTAssertLessThanOrEqual(outcome.largest, 1e-5, outcome.label)
            worst = max(worst, outcome.largest)
            worstDecibels = max(worstDecibels, outcome.decibels)
        }
        print("polyphase vs libsamplerate over \(cases.count) cases: max |difference| \(worst), "
              + "worst error energy \(String(format: "%.1f", worstDecibels)) dB")
    }

    /// Where the stream ends: lengths on and off the ties where libsamplerate's floating-point
    /// clock decides whether the last frame is made (whole multiples of the input period), empty
    /// and one-frame inputs, and lengths that end on a block boundary (the end arrives alone).
    func testFrameCountsAtTheEndMatchLibsamplerate() throws {
        for (from, to) in Self.rates {
            let step = from / gcd(from, to)
            let lengths = [0, 1, 2, 100, 4095, 4096, 8192, step, 3 * step, 40 * step - 1, 40 * step, 40 * step + 1,
                           from / 2, from, from + 1]
            for channels in [1, 2] {
                for frames in lengths {
                    let input = signal(frames: frames, channels: channels, rate: from)
                    let resampler = try Resampler(quality: .sincFastest, channels: channels, from: from, to: to)
                    let expected = reference(Int32(SRC_SINC_FASTEST), input, channels: channels, from: from, to: to)
                    let actual = try resampled(resampler, input)
                    XCTAssertEqual(actual.calls, expected.calls, "\(from) → \(to), \(channels) ch, \(frames) frames")
                }
            }
        }
    }

    /// Uneven blocks, output room as small as one frame, and the whole input in one call:
    /// libsamplerate takes less input when its output is full, and the resampler must do exactly
    /// the same. Blocks of one input period
    /// plus one frame (148 at 44.1 → 48 kHz) make successive calls stop at every output phase in
    /// turn, including the whole-frame positions where libsamplerate's clock runs a hair behind
    /// and it makes the frame with one input less in hand (sinc fastest reaches exactly that far).
    func testAwkwardCallsMatchLibsamplerate() throws {
        for (from, to, channels) in [(44100, 48000, 2), (48000, 44100, 1), (8000, 44100, 6)] {
            let input = signal(frames: 24_000, channels: channels, rate: from)
            let step = from / gcd(from, to)
            let patterns: [(Int, (Int) -> Int, ResamplerQuality, Int32)] = [
                (1000, { $0 % 3 == 0 ? 1 : 0 }, .sincMedium, Int32(SRC_SINC_MEDIUM_QUALITY)),
                (333, { 7 + $0 % 50 }, .sincMedium, Int32(SRC_SINC_MEDIUM_QUALITY)),
                (step + 1, { _ in 0 }, .sincFastest, Int32(SRC_SINC_FASTEST)),
                (step + 1, { _ in 0 }, .sincMedium, Int32(SRC_SINC_MEDIUM_QUALITY)),
                (9000, { _ in 0 }, .sincFastest, Int32(SRC_SINC_FASTEST)),
                (50_000, { _ in 0 }, .sincFastest, Int32(SRC_SINC_FASTEST)),  // the whole input in one call
            ]
            for (block, capacity, quality, converter) in patterns {
                let label = "\(from) → \(to) \(quality) in blocks of \(block)"
                let resampler = try Resampler(quality: quality, channels: channels, from: from, to: to)
                XCTAssertTrue(resampler.isPolyphase, label)
                let expected = reference(converter, input, channels: channels, from: from, to: to,
                                         block: block, capacity: capacity)
                let actual = try resampled(resampler, input, block: block, capacity: capacity)
                XCTAssertEqual(actual.calls, expected.calls, label)
                XCTAssertLessThanOrEqual(difference(expected.samples, actual.samples).max, 1e-5, label)
            }
        }
    }

    /// The linear converter and ratios with a long period (44100 → 44101: L = 44101) stay on
    /// plain libsamplerate and give its output exactly.
    func testFallbackIsPlainLibsamplerate() throws {
        for (quality, converter, from, to) in [(ResamplerQuality.linear, Int32(SRC_LINEAR), 44100, 48000),
                                               (.sincFastest, Int32(SRC_SINC_FASTEST), 44100, 44101),
                                               (.sincMedium, Int32(SRC_SINC_MEDIUM_QUALITY), 44100, 47999)] {
            let input = signal(frames: 30_000, channels: 2, rate: from)
            let resampler = try Resampler(quality: quality, channels: 2, from: from, to: to)
            XCTAssertFalse(resampler.isPolyphase, "\(quality) \(from) → \(to)")
            let expected = reference(converter, input, channels: 2, from: from, to: to)
            let actual = try resampled(resampler, input)
            XCTAssertEqual(actual, expected, "\(quality) \(from) → \(to)")
            XCTAssertGreaterThan(actual.frames, 30_000 * to / from - 2)
        }
    }

    /// The reference engine is libsamplerate even where a bank exists.
    func testReferenceEngineIsLibsamplerate() throws {
        let input = signal(frames: 10_000, channels: 2, rate: 44100)
        let resampler = try Resampler(quality: .sincFastest, channels: 2, from: 44100, to: 48000, engine: .libsamplerate)
        XCTAssertFalse(resampler.isPolyphase)
        XCTAssertEqual(try resampled(resampler, input), reference(Int32(SRC_SINC_FASTEST), input, channels: 2, from: 44100, to: 48000))
    }

    /// Many resamplers built at once on many threads share one capture and agree with each other.
    func testConcurrentConstructionSharesTheBank() throws {
        let input = signal(frames: 9000, channels: 2, rate: 44100)
        let expected = reference(Int32(SRC_SINC_BEST_QUALITY), input, channels: 2, from: 32000, to: 44100)
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var runs: [Run] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let resampler = try? Resampler(quality: .sincBest, channels: 2, from: 32000, to: 44100),
                  let run = try? self.resampled(resampler, input) else { return }
            XCTAssertTrue(resampler.isPolyphase)
            results.lock.lock()
            results.runs.append(run)
            results.lock.unlock()
        }
        XCTAssertEqual(results.runs.count, 8)
        for run in results.runs {
            XCTAssertEqual(run.calls, expected.calls)
            XCTAssertLessThanOrEqual(difference(expected.samples, run.samples).max, 1e-5)
        }
    }

    func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
