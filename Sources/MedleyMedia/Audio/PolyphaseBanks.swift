import CSamplerate
import Foundation
import MedleyKernels

/// Polyphase banks captured from libsamplerate's own sinc converters. For a constant ratio
/// out/in = L/M (reduced) the converter is linear and periodic: output n = q·L + p weighs the
/// inputs around q·M + ⌊p·M/L⌋ with a filter that depends only on p. Running the converter over
/// isolated unit impulses therefore prints every coefficient of every phase, and the bank
/// reproduces its output with plain dot products instead of per-sample table interpolation.
/// Banks are made once per process for each (converter, L, M) and shared by every thread.
enum PolyphaseBanks {
    /// Longest period (output frames) and step (input frames) a bank is made for.
    static let maxPhases = 2048
    static let maxStep = 4096
    /// Largest bank, in bytes of coefficients.
    static let maxBytes = 8 << 20
    /// Longest impulse run the capture may feed libsamplerate, in frames.
    static let maxCaptureFrames = 1 << 21

    private struct Key: Hashable {
        let quality: ResamplerQuality
        let phases: Int
        let step: Int
    }

    private struct Checked: Hashable {
        let key: Key
        let channels: Int
    }

    /// nil records a ratio or converter the polyphase path does not take.
    private struct Entry {
        let bank: PolyphaseBank?
    }

    private static let lock = NSLock()
    private static var banks: [Key: Entry] = [:]
    private static var checked: [Checked: Bool] = [:]

    /// The bank and libsamplerate table for this conversion, or nil when plain libsamplerate must
    /// run it (the linear converter, ratios with a long period, a capture that failed its check).
    static func bank(quality: ResamplerQuality, from inputRate: Int, to outputRate: Int, channels: Int)
        -> (bank: PolyphaseBank, table: SincSchedule.Table)? {
        guard let table = SincSchedule.table(quality), inputRate > 0, outputRate > 0 else { return nil }
        let divisor = gcd(inputRate, outputRate)
        let phases = outputRate / divisor, step = inputRate / divisor
        guard phases <= maxPhases, step <= maxStep else { return nil }
        let ratio = Double(outputRate) / Double(inputRate)
        guard ratio >= 1.0 / 256, ratio <= 256 else { return nil }  // libsamplerate's own limits
        let key = Key(quality: quality, phases: phases, step: step)

        lock.lock()
        defer { lock.unlock() }
        let entry: Entry
        if let known = banks[key] {
            entry = known
        } else {
            entry = Entry(bank: capture(quality: quality, table: table, phases: phases, step: step, ratio: ratio))
            banks[key] = entry
        }
        guard let bank = entry.bank else { return nil }
        let check = Checked(key: key, channels: channels)
        if checked[check] == nil {
            checked[check] = agrees(bank: bank, table: table, quality: quality, channels: channels,
                                    from: inputRate, to: outputRate)
        }
        return checked[check] == true ? (bank, table) : nil
    }

    /// Runs libsamplerate (mono) over M unit impulses spaced S ≡ 1 (mod M) frames apart, wider
    /// than the filter, so impulse i sits at input phase i mod M and each output sees at most
    /// one impulse: output n near impulse j is the coefficient of input j in phase n mod L.
    static func capture(quality: ResamplerQuality, table: SincSchedule.Table, phases: Int, step: Int,
                        ratio: Double) -> PolyphaseBank? {
        let reach = SincSchedule(table: table, channels: 1, ratio: ratio).reach
        let width = 2 * reach + 3  // offsets −(reach + 1) … reach + 1 around ⌊n·M/L⌋
        guard phases * width * 4 <= maxBytes else { return nil }
        var spacing = 2 * reach + 8
        spacing += ((1 - spacing % step) % step + step) % step
        let lead = reach + step + 8  // every phase's first tap lands after input 0
        let frames = lead + step * spacing + reach + 8
        guard frames <= maxCaptureFrames else { return nil }

        var input = [Float](repeating: 0, count: frames)
        for i in 0..<step { input[lead + i * spacing] = 1 }
        guard let response = run(quality: quality, ratio: ratio, input: input) else { return nil }

        var rows = [Float](repeating: 0, count: phases * width)
        var seen = [Bool](repeating: false, count: phases * width)
        for (n, value) in response.enumerated() {
            let p = n % phases
            let centre = (n / phases) * step + (p * step) / phases
            let i = (centre - lead + spacing / 2).floorDivided(by: spacing)
            let offset = lead + i * spacing - centre
            guard (0..<step).contains(i), abs(offset) <= reach + 1 else {
                if value != 0 { return nil }  // the filter reaches further than assumed
                continue
            }
            rows[p * width + offset + reach + 1] = value
            seen[p * width + offset + reach + 1] = true
        }
        guard !seen.contains(false) else { return nil }

        // Trim to the widest non-zero span and pad each row at the front to whole SIMD8 vectors,
        // so the rows end where libsamplerate's filter ends (the input it must have in hand).
        var first = width, last = -1
        for p in 0..<phases {
            for k in 0..<width where rows[p * width + k] != 0 {
                first = min(first, k)
                last = max(last, k)
            }
        }
        guard last >= first else { return nil }
        let taps = (last - first + 1 + 7) / 8 * 8
        guard phases * taps * 4 <= maxBytes else { return nil }
        let pad = taps - (last - first + 1)
        var coefficients = [Float](repeating: 0, count: phases * taps)
        var starts = [Int](repeating: 0, count: phases)
        for p in 0..<phases {
            for k in first...last { coefficients[p * taps + pad + k - first] = rows[p * width + k] }
            starts[p] = (p * step) / phases + (first - reach - 1) - pad
        }
        return PolyphaseBank(phases: phases, step: step, taps: taps, coefficients: coefficients, starts: starts)
    }

    /// libsamplerate's mono output for all of `input`.
    private static func run(quality: ResamplerQuality, ratio: Double, input: [Float]) -> [Float]? {
        var error: Int32 = 0
        guard let state = src_new(quality.converter, 1, &error) else { return nil }
        defer { src_delete(state) }
        var output = [Float](repeating: 0, count: Int(Double(input.count) * ratio) + 64)
        var used = 0, made = 0
        let ok = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> Bool in
                while true {
                    var data = SRC_DATA()
                    data.data_in = source.baseAddress! + used
                    data.input_frames = input.count - used
                    data.data_out = target.baseAddress! + made
                    data.output_frames = target.count - made
                    data.end_of_input = 1
                    data.src_ratio = ratio
                    guard src_process(state, &data) == 0 else { return false }
                    used += data.input_frames_used
                    made += data.output_frames_gen
                    if data.output_frames_gen == 0 && used == input.count { return true }
                    if made == target.count { return false }
                }
            }
        }
        return ok ? Array(output[..<made]) : nil
    }

    /// Feeds the same pseudo-random stream to libsamplerate and to the bank in uneven blocks
    /// with uneven room for output: every call must take and make the same frame counts and the
    /// samples must agree. Guards against a libsamplerate whose tables or bookkeeping differ
    /// from the ones `SincSchedule` replays.
    static func agrees(bank: PolyphaseBank, table: SincSchedule.Table, quality: ResamplerQuality, channels: Int,
                       from inputRate: Int, to outputRate: Int) -> Bool {
        guard let reference = try? Resampler(quality: quality, channels: channels, from: inputRate, to: outputRate,
                                             engine: .libsamplerate) else { return false }
        let ratio = reference.ratio
        let candidate = Resampler(bank: bank, table: table, channels: channels, ratio: ratio)
        let frames = 8000
        var seed: UInt32 = 0x2545_F491
        let input = (0..<frames * channels).map { _ -> Float in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Float(seed >> 8) / Float(1 << 24) - 0.5
        }
        let blocks = [4096, 1500, 37, 4096, 2999]
        let room = Int(Double(4096) * ratio) + 64
        var expected = [Float](repeating: 0, count: room * channels)
        var actual = [Float](repeating: 0, count: room * channels)
        var offset = 0, call = 0
        return input.withUnsafeBufferPointer { source -> Bool in
            while true {
                let count = min(blocks[call % blocks.count], frames - offset)
                let end = offset + count == frames
                let capacity = call % 4 == 3 ? 61 : room
                call += 1
                let pointer = source.baseAddress! + offset * channels
                guard let a = try? reference.process(pointer, frames: count, into: &expected, capacity: capacity, end: end),
                      let b = try? candidate.process(pointer, frames: count, into: &actual, capacity: capacity, end: end),
                      a == b else { return false }
                for i in 0..<b.generated * channels where abs(expected[i] - actual[i]) > 1e-4 { return false }
                offset += b.used
                if end && b.generated == 0 && offset == frames { return true }
                if call > 10_000 { return false }
            }
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

private extension Int {
    func floorDivided(by d: Int) -> Int {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
