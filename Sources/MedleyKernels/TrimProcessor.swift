/// Where sound starts and ends in a stream of interleaved frames: the first and last frame in
/// which any channel's sample exceeds `threshold` in magnitude (|x| > threshold; a NaN sample is
/// silence), and the frames seen. Fed block by block; positions are absolute frame numbers.
public struct SoundExtent: Sendable, Equatable {
    /// Linear level a sample must exceed to be sound.
    public let threshold: Float
    public let channels: Int
    /// The first and last frame with sound; nil while none has been seen.
    public private(set) var first: Int?
    public private(set) var last: Int?
    /// Frames seen so far.
    public private(set) var frames = 0

    public init(threshold: Float, channels: Int) {
        self.threshold = threshold
        self.channels = max(1, channels)
    }

    /// Adds `count` frames. Only the block's ends are scanned once sound has been found: forward
    /// for the first loud frame (once per stream), backward for the last (stops at the first hit).
    public mutating func add(_ block: UnsafePointer<Float>, frames count: Int) {
        guard count > 0 else { return }
        func loud(_ frame: Int) -> Bool {
            let base = frame * channels
            for c in 0..<channels where abs(block[base + c]) > threshold { return true }
            return false
        }
        var lowest = 0
        if first == nil {
            var frame = 0
            while frame < count, !loud(frame) { frame += 1 }
            if frame == count { frames += count; return }
            first = frames + frame
            lowest = frame
        }
        var frame = count - 1
        while frame > lowest, !loud(frame) { frame -= 1 }
        if frame > lowest || loud(lowest) { last = frames + frame }
        frames += count
    }
}

/// A cut by absolute frame position: hands on only the frames in `start..<end` of the stream
/// (counted from the stream's first frame as it reaches this step), wherever the blocks' edges fall.
public final class TrimProcessor: AudioProcessor {
    public let start: Int
    public let end: Int
    private let channels: Int
    /// Frames taken so far (kept or not): what the stream held up to here.
    public private(set) var received = 0

    public init(start: Int, end: Int, channels: Int) {
        self.start = max(0, start)
        self.end = max(self.start, end)
        self.channels = max(1, channels)
    }

    public func process(_ block: UnsafeMutablePointer<Float>, count: Int, next: AudioOutput) throws {
        let from = received
        received += count
        let low = max(from, start), high = min(from + count, end)
        guard low < high else { return }
        try next(block + (low - from) * channels, high - low)
    }

    public func finish(next: AudioOutput) throws {}
}
