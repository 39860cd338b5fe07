#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shape of a fade: the gain g(x) at the share x ∈ [0, 1] of the fade done (x = 0: silent
/// end, x = 1: full level). Each is one of SoX's `fade` types, so `sox … fade TYPE` is a reference.
public enum FadeCurve: String, Sendable, CaseIterable {
    /// g = x (SoX's `t`, triangular).
    case linear
    /// g = 10^(−5·(1 − x)): a ramp linear in decibels from −100 dB to 0 dB (SoX's `l`, logarithmic).
    case log
    /// g = (1 − cos(π·x)) / 2: a half cosine, smooth at both ends (SoX's `h`, half sine).
    case sCurve

    /// The gain at share `x` of the fade, `x` clamped to [0, 1].
    public func gain(_ x: Double) -> Double {
        let t = x.isNaN ? 0 : min(1, max(0, x))
        switch self {
        case .linear: return t
        case .log: return exp(-5 * (1 - t) * 2.302585092994046)
        case .sCurve: return (1 - cos(Double.pi * t)) / 2
        }
    }
}

/// A fade-in over the stream's first `fadeIn` frames and a fade-out over the last `fadeOut` of
/// its `length` frames, by absolute frame position (counted as frames reach this step), so block
/// edges do not matter. As SoX counts: frame n of the fade-in (0 ≤ n < fadeIn) is multiplied by
/// g(n / fadeIn) — the first is silent, the fade ends just below full level; frame k of the
/// fade-out (length − fadeOut ≤ k < length) by g((length − k) / fadeOut) — full level at its
/// start, g(1 / fadeOut) at the last frame. Where the two would overlap, both apply (the caller
/// shortens them so that they do not). With a fade-out, frames past `length` are silenced (gain 0).
public final class FadeProcessor: AudioProcessor {
    public let fadeIn: Int
    public let fadeOut: Int
    public let length: Int
    public let curve: FadeCurve
    private let channels: Int
    private var position = 0

    public init(fadeIn: Int, fadeOut: Int, length: Int, curve: FadeCurve, channels: Int) {
        self.length = max(0, length)
        self.fadeIn = min(max(0, fadeIn), self.length)
        self.fadeOut = min(max(0, fadeOut), self.length)
        self.curve = curve
        self.channels = max(1, channels)
    }

    /// The gain of frame `k`.
    public func gain(at k: Int) -> Double {
        var g = 1.0
        if k < fadeIn { g *= curve.gain(Double(k) / Double(fadeIn)) }
        if fadeOut > 0, k >= length - fadeOut { g *= k >= length ? 0 : curve.gain(Double(length - k) / Double(fadeOut)) }
        return g
    }

    public func process(_ block: UnsafeMutablePointer<Float>, count: Int, next: AudioOutput) throws {
        let from = position
        position += count
        // Only frames inside a fade are touched: the head [0, fadeIn) and the tail from length − fadeOut.
        let tail = fadeOut > 0 ? length - fadeOut : Int.max
        var k = from
        while k < min(from + count, fadeIn) { scale(block, frame: k - from, by: gain(at: k)); k += 1 }
        k = max(k, tail)
        while k < from + count { scale(block, frame: k - from, by: gain(at: k)); k += 1 }
        try next(block, count)
    }

    public func finish(next: AudioOutput) throws {}

    private func scale(_ block: UnsafeMutablePointer<Float>, frame: Int, by gain: Double) {
        let g = Float(gain), base = frame * channels
        for c in 0..<channels { block[base + c] *= g }
    }
}
