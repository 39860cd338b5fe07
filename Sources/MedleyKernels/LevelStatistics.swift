import Foundation

/// The levels ACX (Audible) checks audiobook files by, per channel, as the ACX Check plug-in for
/// Audacity measures them: the RMS of the whole stream and the noise floor, the RMS of the quietest
/// 500 ms window (non-overlapping windows from the start), both unweighted (no A-weighting), in
/// dBFS where a full-scale square wave is 0 dB (a full-scale sine reads −3 dB).
public struct LevelStatistics: Sendable {
    public let channels: Int
    /// Frames per noise-floor window (500 ms).
    public let windowFrames: Int
    private var total: [Double]
    private var window: [Double]
    private var quietest: [Double]?
    private var inWindow = 0
    public private(set) var frames = 0

    public init(channels: Int, sampleRate: Int) {
        self.channels = max(channels, 1)
        windowFrames = max(sampleRate / 2, 1)
        total = Array(repeating: 0, count: self.channels)
        window = total
    }

    /// Adds `count` interleaved frames.
    public mutating func add(_ block: UnsafePointer<Float>, frames count: Int) {
        var index = 0
        for _ in 0..<max(count, 0) {
            for channel in 0..<channels {
                let sample = Double(block[index])
                // A NaN or infinite sample would poison every sum after it: it counts as full scale.
                let square = sample.isFinite ? sample * sample : 1
                window[channel] += square
                index += 1
            }
            inWindow += 1
            if inWindow == windowFrames { closeWindow() }
        }
        frames += max(count, 0)
    }

    private mutating func closeWindow() {
        for channel in 0..<channels { total[channel] += window[channel] }
        if let quietest {
            self.quietest = zip(quietest, window).map { min($0, $1) }
        } else {
            quietest = window
        }
        window = Array(repeating: 0, count: channels)
        inWindow = 0
    }

    /// The RMS of each channel over the whole stream, dBFS; nil for digital silence.
    public var rms: [Double?] {
        guard frames > 0 else { return Array(repeating: nil, count: channels) }
        return (0..<channels).map { Self.decibels(meanSquare: (total[$0] + window[$0]) / Double(frames)) }
    }

    /// The RMS of each channel's quietest 500 ms window, dBFS (a stream shorter than one window is
    /// its own window); nil for digital silence.
    public var noiseFloor: [Double?] {
        if let quietest { return quietest.map { Self.decibels(meanSquare: $0 / Double(windowFrames)) } }
        guard inWindow > 0 else { return Array(repeating: nil, count: channels) }
        return window.map { Self.decibels(meanSquare: $0 / Double(inWindow)) }
    }

    /// 10·log10 of a mean square; nil for 0.
    static func decibels(meanSquare: Double) -> Double? {
        meanSquare > 0 && meanSquare.isFinite ? 10 * log10(meanSquare) : nil
    }
}
