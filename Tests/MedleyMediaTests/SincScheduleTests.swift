import CSamplerate
import Foundation
@testable import MedleyMedia
import MedleyTestSupport
import XCTest

/// The schedule's upsampling run (`SincSchedule.upsample`) against libsamplerate's own clock
/// step, written out here as libsamplerate 0.2.x's `src_sinc.c` does it (`fmod_one`, `lrint`),
/// and the whole schedule against `src_process` on long upsampling streams.
final class SincScheduleTests: XCTestCase {
    /// libsamplerate's step: input_index += increment; rem = fmod_one(input_index);
    /// moved += lrint(input_index - rem); input_index = rem.
    func referenceSteps(_ start: Double, step: Double, frames: Int) -> (index: Double, moved: Int) {
        func fmodOne(_ x: Double) -> Double {
            let r = x - x.rounded(.toNearestOrEven)  // lrint(x) in the default rounding mode
            return r < 0 ? r + 1.0 : r
        }
        var index = start, moved = 0
        for _ in 0..<frames {
            index += step
            let rem = fmodOne(index)
            moved += Int((index - rem).rounded(.toNearestOrEven))
            index = rem
        }
        return (index, moved)
    }

    /// Every upsampling ratio's step (1 / ratio < 1: the schedule takes the run only then; a step
    /// of exactly 1 from the last double below 1 rounds to 2, outside the run's reasoning), from
    /// clock positions that include 0, the ties at ½ and the last double below 1: the same
    /// positions bit for bit and the same moves.
    func testUpsampleStepIsLibsampleratesStep() {
        var steps: [Double] = [0.5, 0.5.nextDown, 0.5.nextUp, 1.0.nextDown, 1.0.nextDown.nextDown, 1e-9, 1.0 / 256]
        for (from, to) in [(44100, 48000), (22050, 48000), (44100, 96000), (8000, 44100), (32000, 48000),
                           (11025, 44100), (48000, 48001)] {
            steps.append(1.0 / (Double(to) / Double(from)))
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            steps.append(Double(seed >> 11) / Double(1 << 53))  // uniform in [0, 1)
        }
        let starts: [Double] = [0, 0.5, 0.5.nextDown, 0.25, 1.0.nextDown, 0.123456789]
        var checked = 0
        for step in steps {
            for start in starts {
                for frames in [1, 2, 7, 1000, 20_000] {
                    var index = start
                    let moved = SincSchedule.upsample(&index, step: step, frames: frames)
                    let expected = referenceSteps(start, step: step, frames: frames)
                    XCTAssertEqual(index.bitPattern, expected.index.bitPattern, "step \(step) from \(start), \(frames) frames")
                    XCTAssertEqual(moved, expected.moved, "step \(step) from \(start), \(frames) frames")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, steps.count * starts.count * 5)
    }

    /// Long upsampling streams (past many runs and buffer refills), 1, 2 and 6 channels, output
    /// room that sometimes cuts a run short: every call takes and makes what `src_process` does.
    func testLongUpsamplingStreamsMatchSrcProcess() throws {
        for (from, to, channels) in [(44100, 48000, 2), (22050, 48000, 1), (8000, 44100, 6), (32000, 48000, 2)] {
            var error: Int32 = 0
            let state = try XCTUnwrap(src_new(Int32(SRC_SINC_FASTEST), Int32(channels), &error))
            defer { src_delete(state) }
            let ratio = Double(to) / Double(from)
            var schedule = try XCTUnwrap(SincSchedule.table(.sincFastest)).map {
                SincSchedule(table: $0, channels: channels, ratio: ratio)
            }
            let total = from * 20  // 20 s
            let input = [Float](repeating: 0.25, count: total * channels)
            var output = [Float](repeating: 0, count: 20_000 * channels)
            var position = 0, call = 0, made = 0
            while true {
                let frames = min(3000 + (call * 977) % 5000, total - position)
                let end = frames < 3000 || position + frames == total
                let room = call % 5 == 0 ? 1 + call % 37 : 20_000
                var data = SRC_DATA()
                let expected: (Int, Int) = input.withUnsafeBufferPointer { x in
                    output.withUnsafeMutableBufferPointer { y in
                        data.data_in = x.baseAddress! + position * channels
                        data.input_frames = frames
                        data.data_out = y.baseAddress!
                        data.output_frames = room
                        data.end_of_input = end ? 1 : 0
                        data.src_ratio = ratio
                        XCTAssertEqual(src_process(state, &data), 0)
                        return (data.input_frames_used, data.output_frames_gen)
                    }
                }
                let actual = try XCTUnwrap(try schedule?.process(frames: frames, capacity: room, end: end))
                XCTAssertEqual(actual.used, expected.0, "\(from) → \(to), \(channels) ch, call \(call)")
                XCTAssertEqual(actual.generated, expected.1, "\(from) → \(to), \(channels) ch, call \(call)")
                if actual.used != expected.0 || actual.generated != expected.1 { break }
                position += expected.0
                made += expected.1
                call += 1
                if end && expected.0 == frames && expected.1 == 0 { break }
                if call > 100_000 { XCTFail("the stream never ends"); break }
            }
            XCTAssertEqual(Double(made), Double(total) * ratio, accuracy: 2, "\(from) → \(to)")
        }
    }
}
