import CSamplerate

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

/// A streaming sample-rate converter over interleaved float frames.
public final class Resampler {
    private let state: OpaquePointer
    public let ratio: Double
    public let channels: Int

    public init(quality: ResamplerQuality, channels: Int, from inputRate: Int, to outputRate: Int) throws {
        var error: Int32 = 0
        guard let state = src_new(quality.converter, Int32(channels), &error) else {
            throw MediaError("cannot start the resampler: " + String(cString: src_strerror(error)))
        }
        self.state = state
        self.channels = channels
        ratio = Double(outputRate) / Double(inputRate)
    }

    deinit { src_delete(state) }

    /// Converts as much of `input` as it can into `output`; returns (frames used, frames made).
    /// Pass `end: true` with the last block (and then with empty input until nothing is made).
    public func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>,
                        capacity: Int, end: Bool) throws -> (used: Int, generated: Int) {
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = frames
        data.data_out = output
        data.output_frames = capacity
        data.end_of_input = end ? 1 : 0
        data.src_ratio = ratio
        let error = src_process(state, &data)
        guard error == 0 else { throw MediaError("resampling failed: " + String(cString: src_strerror(error))) }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }
}
