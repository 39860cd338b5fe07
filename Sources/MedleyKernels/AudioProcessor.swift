/// Where a processor hands on the frames it produced: `count` interleaved frames at `block`,
/// valid only during the call.
public typealias AudioOutput = (_ block: UnsafeMutablePointer<Float>, _ count: Int) throws -> Void

/// One step of the audio stage's streaming path after decode, mix and resample (a trim, a gain, a
/// limiter, a fade): it takes blocks of interleaved frames and hands blocks on, at once or later —
/// a step that looks ahead holds frames back and hands them on as more arrive, the rest at `finish`.
/// A step may change samples in place, and may hand on fewer frames than it took (a trim), but
/// never more than it took in all.
public protocol AudioProcessor: AnyObject {
    /// Takes `count` frames of `block`, which it may change, and passes what it produces to `next`.
    func process(_ block: UnsafeMutablePointer<Float>, count: Int, next: AudioOutput) throws
    /// The stream has ended: passes every frame still held back.
    func finish(next: AudioOutput) throws
}

/// A fixed gain: every sample multiplied by `gain`.
public final class GainProcessor: AudioProcessor {
    public let gain: Float
    private let channels: Int

    public init(gain: Float, channels: Int) {
        self.gain = gain
        self.channels = channels
    }

    public func process(_ block: UnsafeMutablePointer<Float>, count: Int, next: AudioOutput) throws {
        AudioKernels.applyGain(block, count: count * channels, gain: gain)
        try next(block, count)
    }

    public func finish(next: AudioOutput) throws {}
}

/// A chain of processors: frames pushed in go through each in turn and come out at `output`.
public final class AudioChain {
    private let steps: [AudioProcessor]
    private let output: AudioOutput

    public init(_ steps: [AudioProcessor], output: @escaping AudioOutput) {
        self.steps = steps
        self.output = output
    }

    /// Pushes `count` frames (which the steps may change) through the chain.
    public func push(_ block: UnsafeMutablePointer<Float>, count: Int) throws {
        guard count > 0 else { return }
        try push(block, count, from: 0)
    }

    /// Ends the stream: each step, first to last, hands on what it held back.
    public func finish() throws {
        for index in steps.indices {
            try steps[index].finish { block, count in try push(block, count, from: index + 1) }
        }
    }

    /// Depth is the chain's length, fixed by the job's settings (a handful of steps).
    private func push(_ block: UnsafeMutablePointer<Float>, _ count: Int, from index: Int) throws {
        guard count > 0 else { return }
        guard index < steps.count else { return try output(block, count) }
        try steps[index].process(block, count: count) { produced, made in try push(produced, made, from: index + 1) }
    }
}
