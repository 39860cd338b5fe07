import CSamplerate
import MedleyKernels

/// libsamplerate's converters, as AVSampleRateConverterAudioQualityKey picks them.
public enum ResamplerQuality: Sendable {
    case linear, sincFastest, sincMedium, sincBest

    var converter: Int32 {
        switch self {
        case .linear: return Int32(SRC_LINEAR)
        case .sincFastest: return Int32(SRC_SINC_FASTEST)
        case .sincMedium: return Int32(SRC_SINC_MEDIUM_QUALITY)
        case .sincBest: return Int32(SRC_SINC_BEST_QUALITY)
        }
    }
}

/// How a `Resampler` computes its output.
public enum ResamplerEngine: Sendable {
    /// libsamplerate's sinc filter captured into a polyphase bank when the rate ratio is a small
    /// fraction (44.1 ↔ 48 kHz and the like); plain `src_process` otherwise.
    case automatic
    /// Always `src_process` (the reference the polyphase path is checked against).
    case libsamplerate
}

/// A streaming sample-rate converter over interleaved float frames. Either engine takes and
/// makes the same number of frames per call as `src_process` would, and the same samples
/// within float rounding.
public final class Resampler {
    public let ratio: Double
    public let channels: Int
    /// True when a captured polyphase bank does the filtering.
    public var isPolyphase: Bool { stream != nil }

    private let state: OpaquePointer?
    private let stream: PolyphaseStream?
    private var schedule: SincSchedule?

    /// libsamplerate's `quality` converter from `inputRate` to `outputRate` Hz for `channels`
    /// interleaved channels; `engine` picks how it is computed.
    public convenience init(quality: ResamplerQuality, channels: Int, from inputRate: Int, to outputRate: Int,
                            engine: ResamplerEngine = .automatic) throws {
        // libsamplerate converts within 1:256 and 256:1; a header's rate (1 Hz, say) can ask for anything, and
        // the caller sizes its output by the ratio.
        guard inputRate > 0, outputRate > 0, channels > 0,
              Double(outputRate) <= 256 * Double(inputRate), Double(inputRate) <= 256 * Double(outputRate) else {
            throw MediaError(.libsamplerate, "resample", "cannot resample \(inputRate) Hz to \(outputRate) Hz: libsamplerate converts at most 256:1", cause: .unsupported)
        }
        let ratio = Double(outputRate) / Double(inputRate)
        if engine == .automatic, channels > 0,
           let found = PolyphaseBanks.bank(quality: quality, from: inputRate, to: outputRate, channels: channels) {
            self.init(bank: found.bank, table: found.table, channels: channels, ratio: ratio)
        } else {
            var error: Int32 = 0
            guard let state = src_new(quality.converter, Int32(channels), &error) else {
                throw MediaError(.libsamplerate, "start", "cannot start the resampler: " + String(cString: src_strerror(error)), cause: .library(code: error))
            }
            self.init(state: state, channels: channels, ratio: ratio)
        }
    }

    /// A polyphase resampler over a given bank (also how a freshly captured bank is checked).
    init(bank: PolyphaseBank, table: SincSchedule.Table, channels: Int, ratio: Double) {
        self.channels = channels
        self.ratio = ratio
        schedule = SincSchedule(table: table, channels: channels, ratio: ratio)
        stream = PolyphaseStream(bank: bank, channels: channels)
        state = nil
    }

    private init(state: OpaquePointer, channels: Int, ratio: Double) {
        self.channels = channels
        self.ratio = ratio
        self.state = state
        stream = nil
        schedule = nil
    }

    deinit {
        if let state { src_delete(state) }
    }

    /// Converts as much of `input` as it can into `output`; returns (frames used, frames made).
    /// Pass `end: true` with the last block (and then with empty input until nothing is made).
    public func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>,
                        capacity: Int, end: Bool) throws -> (used: Int, generated: Int) {
        if let stream {
            // libsamplerate's own bookkeeping says what this call takes and makes; the bank makes
            // it, taking the input in as room allows (a call may carry more than the stream holds).
            let (used, made, finished) = try schedule!.process(frames: frames, capacity: capacity, end: end)
            var taken = 0, rendered = 0
            while taken < used || rendered < made {
                let took = taken < used ? stream.append(input + taken * channels, frames: used - taken) : 0
                taken += took
                if taken == used && finished { stream.finish() }
                let count = stream.render(into: output + rendered * channels, capacity: made - rendered)
                rendered += count
                if took == 0 && count == 0 {
                    throw MediaError(.medley, "resample", "resampling failed: the polyphase filter is short of input")
                }
            }
            if finished { stream.finish() }
            return (used, made)
        }
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = frames
        data.data_out = output
        data.output_frames = capacity
        data.end_of_input = end ? 1 : 0
        data.src_ratio = ratio
        let error = src_process(state, &data)
        guard error == 0 else { throw MediaError(.libsamplerate, "resample", "resampling failed: " + String(cString: src_strerror(error)), cause: .library(code: error)) }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }
}
