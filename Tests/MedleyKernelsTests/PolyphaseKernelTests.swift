import MedleyKernels
import XCTest

/// The polyphase stream against y[n] = Σ_k c[n mod L][k] · x[⌊n / L⌋·M + start[n mod L] + k],
/// summed here in Double with zeros outside the input.
final class PolyphaseKernelTests: XCTestCase {
    func testStreamIsThePolyphaseSum() {
        // L = 3 outputs per M = 2 inputs, 16 taps per row; row 1 is shorter (ends in zeros).
        let phases = 3, step = 2, taps = 16
        var coefficients = (0..<(phases * taps)).map { Float(sin(Double($0) * 0.7)) }
        for k in 10..<taps { coefficients[taps + k] = 0 }
        let starts = [-7, -7, -6]
        let bank = PolyphaseBank(phases: phases, step: step, taps: taps, coefficients: coefficients, starts: starts)
        XCTAssertEqual(bank.spans, [16, 10, 16])

        for channels in [1, 2, 3] {
            let frames = 501
            let input = (0..<(frames * channels)).map { Float(cos(Double($0) * 0.37)) }
            let stream = PolyphaseStream(bank: bank, channels: channels, block: 64)
            var output: [Float] = []
            var taken = 0
            var chunk = 1
            var out = [Float](repeating: .nan, count: 1000 * channels)
            // Uneven appends and renders; the end arrives once everything is taken.
            while taken < frames || !stream.isFinished {
                if taken < frames {
                    let count = min(chunk, frames - taken)
                    taken += input.withUnsafeBufferPointer { stream.append($0.baseAddress! + taken * channels, frames: count) }
                    chunk = chunk * 3 % 97 + 1
                } else {
                    stream.finish()
                }
                let made = stream.render(into: &out, capacity: 1 + output.count % 23)
                output += out[..<(made * channels)]
            }
            while true {
                let made = stream.render(into: &out, capacity: 50)
                if made == 0 { break }
                output += out[..<(made * channels)]
                if output.count > 1000 * channels { break }
            }
            // After the end the input continues with zeros, so at least L/M outputs per input frame.
            XCTAssertGreaterThanOrEqual(output.count / channels, frames * phases / step, "\(channels) ch")

            for n in 0..<(output.count / channels) {
                let p = n % phases, base = n / phases * step + starts[p]
                for c in 0..<channels {
                    var sum = 0.0
                    for k in 0..<taps where (0..<frames).contains(base + k) {
                        sum += Double(coefficients[p * taps + k]) * Double(input[(base + k) * channels + c])
                    }
                    XCTAssertEqual(Double(output[n * channels + c]), sum, accuracy: 1e-5, "n \(n) channel \(c) of \(channels)")
                }
            }
        }
    }
}
