#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The true peak of a stream of interleaved frames (ITU-R BS.1770-4, Annex 2): the signal
/// oversampled 4× (2× from 96 kHz, not at all from 192 kHz) by a polyphase windowed-sinc
/// interpolator, and the highest magnitude of the result, per channel.
///
/// The interpolator is a 49-tap sinc with its cut-off at the input's Nyquist frequency,
/// h[j] = sinc((j − 24)/L) · ½(1 − cos(2πj/48)) for L the oversampling factor (a Hann window) —
/// the design libebur128 measures with — run as L phases of ⌈49/L⌉ taps: output sample n·L + p is
/// Σₖ h[p + L·k] · x[n − k]. Eight outputs of a phase are computed at once (SIMD), so this costs
/// a few cycles a sample where libebur128's scalar interpolator costs most of its measuring time.
/// After the last frame, the interpolator's tail is run over zeros, so a peak in the final
/// samples counts whole.
public final class TruePeakMeter {
    public let channels: Int
    /// The oversampling factor: 4, 2 or 1.
    public let factor: Int
    /// Taps per phase: 13 at 4×, 25 at 2×.
    let phaseTaps: Int
    /// `phases[p · phaseTaps + k]` = h[p + factor·k].
    private let phases: UnsafeMutablePointer<Float>
    /// Per channel, the last `phaseTaps − 1` samples, then room for one block, planar.
    private var planar: UnsafeMutablePointer<Float>
    private var capacity: Int
    private var peaks: [Float]

    public init(channels: Int, sampleRate: Int) {
        self.channels = max(1, channels)
        factor = sampleRate < 96000 ? 4 : sampleRate < 192_000 ? 2 : 1
        phaseTaps = Self.phaseTaps(factor: factor)
        let design = Self.design(factor: factor).flatMap { $0 }
        phases = .allocate(capacity: design.count)
        phases.initialize(from: design, count: design.count)
        capacity = 4096
        planar = .allocate(capacity: self.channels * (phaseTaps - 1 + capacity))
        planar.initialize(repeating: 0, count: self.channels * (phaseTaps - 1 + capacity))
        peaks = [Float](repeating: 0, count: self.channels)
    }

    deinit {
        planar.deallocate()
        phases.deallocate()
    }

    /// The interpolator's length.
    static let taps = 49

    /// Taps per phase for `factor` (the 49 taps dealt round the phases).
    static func phaseTaps(factor: Int) -> Int { factor > 1 ? (taps + factor - 1) / factor : 1 }

    /// The polyphase coefficients of the 49-tap Hann-windowed sinc for `factor` (one phase of a
    /// single 1 when there is no oversampling).
    static func design(factor: Int) -> [[Float]] {
        let length = Self.phaseTaps(factor: factor)
        guard factor > 1 else { return [[1]] }
        var phases = [[Float]](repeating: [Float](repeating: 0, count: length), count: factor)
        for j in 0..<taps {
            let m = Double(j) - Double(taps - 1) / 2
            let x = m * Double.pi / Double(factor)
            let sinc = abs(m) < 1e-12 ? 1 : sin(x) / x
            let window = 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(taps - 1)))
            phases[j % factor][j / factor] = Float(sinc * window)
        }
        return phases
    }

    /// Adds `frames` interleaved frames.
    public func add(_ samples: UnsafePointer<Float>, frames: Int) {
        var offset = 0
        while offset < frames {
            let count = min(capacity, frames - offset)
            addBlock(samples + offset * channels, frames: count)
            offset += count
        }
    }

    /// The highest true peak of any channel so far (linear), counting the interpolator's tail as
    /// if the stream ended here.
    public var peak: Float {
        var highest = peaks.max() ?? 0
        let history = phaseTaps - 1, stride = history + capacity
        for c in 0..<channels {
            // The outputs that still depend on the last samples: the history followed by zeros.
            var tail = [Float](repeating: 0, count: 2 * history)
            for i in 0..<history { tail[i] = planar[c * stride + i] }
            for n in history..<(2 * history) {
                for p in 0..<factor {
                    var sum: Float = 0
                    for k in 0..<phaseTaps { sum += phases[p * phaseTaps + k] * tail[n - k] }
                    highest = max(highest, abs(sum))
                }
            }
        }
        return highest
    }

    private func addBlock(_ samples: UnsafePointer<Float>, frames: Int) {
        let history = phaseTaps - 1, stride = history + capacity
        for c in 0..<channels {
            let line = planar + c * stride
            for i in 0..<frames { line[history + i] = samples[i * channels + c] }
            peaks[c] = max(peaks[c], interpolatedPeak(line, frames: frames))
            // Keep the last samples for the next block.
            for i in 0..<history { line[i] = line[frames + i] }
        }
    }

    /// The highest |output| of every phase for inputs `line[history ..< history + frames]`, each
    /// reading back `phaseTaps − 1` samples.
    private func interpolatedPeak(_ line: UnsafeMutablePointer<Float>, frames: Int) -> Float {
        let history = phaseTaps - 1
        var highest = SIMD8<Float>(repeating: 0)
        var scalarHighest: Float = 0
        let raw = UnsafeRawPointer(line)
        for p in 0..<factor {
            let phase = phases + p * phaseTaps
            var n = 0
            while n + 8 <= frames {
                var sum = SIMD8<Float>(repeating: 0)
                for k in 0..<phaseTaps {
                    let x = raw.loadUnaligned(fromByteOffset: (history + n - k) * 4, as: SIMD8<Float>.self)
                    sum += phase[k] * x
                }
                let magnitude = sum.replacing(with: -sum, where: sum .< 0)
                highest.replace(with: magnitude, where: magnitude .> highest)
                n += 8
            }
            while n < frames {
                var sum: Float = 0
                for k in 0..<phaseTaps { sum += phase[k] * line[history + n - k] }
                scalarHighest = max(scalarHighest, abs(sum))
                n += 1
            }
        }
        return max(highest.max(), scalarHighest)
    }
}
