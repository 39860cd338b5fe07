import CEbur128
import Foundation
import MedleyKernels

/// What EBU R128 (ITU-R BS.1770-4) says of a stream: integrated loudness, loudness range and peaks.
public struct LoudnessMeasurement: Sendable, Equatable, Codable {
    /// Integrated (gated) loudness in LUFS; nil when no 400 ms block is above the absolute gate
    /// (−70 LUFS): silence has no loudness.
    public var integrated: Double?
    /// Loudness range in LU (EBU Tech 3342); 0 for a stream too short or too quiet to have one.
    public var range: Double
    /// The highest sample, linear (1 = full scale), over every channel.
    public var samplePeak: Double
    /// The highest inter-sample peak, linear, from libebur128's 4× oversampling (2× at 96 kHz and up).
    public var truePeak: Double
    /// Frames measured.
    public var frames: Int

    public init(integrated: Double?, range: Double, samplePeak: Double, truePeak: Double, frames: Int) {
        self.integrated = integrated
        self.range = range
        self.samplePeak = samplePeak
        self.truePeak = truePeak
        self.frames = frames
    }

    /// The sample peak in dBFS; nil for digital silence.
    public var samplePeakDecibels: Double? { Self.decibels(samplePeak) }
    /// The true peak in dBTP; nil for digital silence.
    public var truePeakDecibels: Double? { Self.decibels(truePeak) }

    /// 20·log10 of a linear level; nil for 0 (or anything not positive and finite).
    public static func decibels(_ linear: Double) -> Double? {
        guard linear > 0, linear.isFinite else { return nil }
        return 20 * log10(linear)
    }
}

/// Measures loudness with libebur128 as frames stream past: integrated loudness, loudness range,
/// sample peak and true peak. Feed it the signal as written (after mixing and resampling).
///
/// Channels are weighted as BS.1770 says for FFmpeg's default layout of each count: L, R, C at
/// 1, LFE not counted, surround and back channels at 1.41 (+1.5 dB). Mono counts once, as
/// ffmpeg's `ebur128` filter does by default.
public final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    public let channels: Int
    public let sampleRate: Int
    public private(set) var frames = 0

    /// What to measure besides integrated loudness and the sample peak.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Loudness range (short-term 3 s windows kept for the whole stream).
        public static let range = Options(rawValue: 1)
        /// True peak (4× oversampled: the costliest part).
        public static let truePeak = Options(rawValue: 2)
        public static let all: Options = [.range, .truePeak]
    }

    public init(channels: Int, sampleRate: Int, options: Options = .all) throws {
        guard (1...64).contains(channels), (8000...768_000).contains(sampleRate) else {
            throw MediaError(.libebur128, "measure", "cannot measure loudness of \(channels) channels at \(sampleRate) Hz", cause: .unsupported)
        }
        var mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_SAMPLE_PEAK.rawValue
        if options.contains(.range) { mode |= EBUR128_MODE_LRA.rawValue }
        // True peak: MedleyKernels' SIMD interpolator (libebur128's design; its scalar one costs
        // three quarters of its measuring time).
        if options.contains(.truePeak) { truePeakMeter = TruePeakMeter(channels: channels, sampleRate: sampleRate) }
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), Int32(bitPattern: mode)) else {
            throw MediaError(.libebur128, "measure", "libebur128 cannot measure \(channels) channels at \(sampleRate) Hz", cause: .unsupported)
        }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
        self.options = options
        for (index, role) in Self.roles(channels: channels).enumerated() {
            _ = ebur128_set_channel(state, UInt32(index), Int32(bitPattern: role.rawValue))
        }
    }

    private let options: Options
    private var truePeakMeter: TruePeakMeter?

    deinit { ebur128_destroy(&state) }

    /// The BS.1770 weight of each channel of FFmpeg's default layout for `channels`.
    static func roles(channels: Int) -> [channel] {
        switch channels {
        case 1: return [EBUR128_CENTER]
        case 2: return [EBUR128_LEFT, EBUR128_RIGHT]
        case 3: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER]  // 3.0
        case 4: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_LEFT_SURROUND]  // 4.0: back centre
        case 5: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case 6: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case 7: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND,
                        EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]  // 6.1
        case 8: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND,
                        EBUR128_RIGHT_SURROUND, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]  // 7.1
        default:
            // Beyond 7.1 there is no standard layout: the first two as front, the rest at 1.
            return (0..<channels).map { $0 == 0 ? EBUR128_LEFT : $0 == 1 ? EBUR128_RIGHT : EBUR128_CENTER }
        }
    }

    /// Adds `frames` interleaved float frames.
    public func add(_ samples: UnsafePointer<Float>, frames count: Int) throws {
        guard count > 0, let state else { return }
        let result = ebur128_add_frames_float(state, samples, count)
        guard result == EBUR128_SUCCESS.rawValue else { throw MediaError(.libebur128, "measure", "libebur128 failed to measure (error \(result))", cause: .library(code: Int32(clamping: result))) }
        truePeakMeter?.add(samples, frames: count)
        frames += count
    }

    /// What was measured so far.
    public func measurement() throws -> LoudnessMeasurement {
        guard let state else { throw MediaError(.libebur128, "measure", "the loudness meter is closed") }
        var integrated = -Double.infinity
        _ = ebur128_loudness_global(state, &integrated)
        var range = 0.0
        if options.contains(.range) { _ = ebur128_loudness_range(state, &range) }
        var samplePeak = 0.0
        for channel in 0..<channels {
            var peak = 0.0
            if ebur128_sample_peak(state, UInt32(channel), &peak) == EBUR128_SUCCESS.rawValue { samplePeak = max(samplePeak, peak) }
        }
        let truePeak = truePeakMeter.map { Double($0.peak) } ?? samplePeak
        return LoudnessMeasurement(integrated: integrated.isFinite ? integrated : nil, range: range.isFinite ? range : 0,
                                   samplePeak: samplePeak, truePeak: max(truePeak, samplePeak), frames: frames)
    }

    /// The integrated loudness of several streams measured as one (their gating blocks pooled, as
    /// if the streams were played one after another): an album's loudness. nil when silent.
    /// The streams may differ in rate and channels: blocks are pooled by their loudness.
    public static func integrated(of meters: [LoudnessMeter]) -> Double? {
        var states = meters.compactMap(\.state).map { Optional($0) }
        guard !states.isEmpty else { return nil }
        var loudness = -Double.infinity
        let result = states.withUnsafeMutableBufferPointer { ebur128_loudness_global_multiple($0.baseAddress, $0.count, &loudness) }
        guard result == EBUR128_SUCCESS.rawValue, loudness.isFinite else { return nil }
        return loudness
    }

    /// The loudness range of several streams measured as one (an album's), in LU.
    public static func range(of meters: [LoudnessMeter]) -> Double {
        var states = meters.filter { $0.options.contains(.range) }.compactMap(\.state).map { Optional($0) }
        guard !states.isEmpty else { return 0 }
        var range = 0.0
        let result = states.withUnsafeMutableBufferPointer { ebur128_loudness_range_multiple($0.baseAddress, $0.count, &range) }
        return result == EBUR128_SUCCESS.rawValue && range.isFinite ? range : 0
    }
}

extension AudioSource {
    /// Decodes the rest of the stream and measures it at its own rate and channels (`medley probe
    /// --loudness`): what the file holds, before any transcode.
    public func loudnessToEnd(options: LoudnessMeter.Options = .all) throws -> LoudnessMeasurement {
        let channels = info.channels, frames = 4096
        let meter = try LoudnessMeter(channels: channels, sampleRate: info.sampleRate, options: options)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * channels)
        defer { buffer.deallocate() }
        while true {
            let read = try read(into: buffer, frames: frames)
            try meter.add(buffer, frames: read)
            if read < frames { return try meter.measurement() }
        }
    }
}
