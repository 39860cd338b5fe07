import Foundation

/// A lookahead true-peak limiter: holds every sample and every inter-sample peak (4× oversampled)
/// at or below `ceiling`, with a gain that never changes abruptly — what `normalize: {limit: true}`
/// adds after the gain so the target is reached without clipping.
///
/// How it works, a frame at a time:
/// - Peaks: each frame's level is the largest, over its channels, of the sample and of the three
///   points a quarter, a half and three quarters of the way before it, interpolated by a 4-phase
///   polyphase windowed-sinc filter (`taps` taps per phase, Kaiser window: within 0.02 dB up to
///   0.45 of the sample rate), as BS.1770's true-peak meter oversamples. A frame needs the gain `ceiling / level` (at most 1), and so does
///   the frame before it (the inter-sample peak lies between the two).
/// - Attack: the gain envelope takes the minimum of those gains over the next `lookahead` frames,
///   then a moving average over `lookahead` frames. Each value averaged is at most the gain the
///   frame needs, so their mean is too: no frame passes the ceiling, and the gain falls smoothly
///   over the lookahead before a peak instead of stepping down on it.
/// - Release: the envelope climbs back towards 1 exponentially (`release` seconds), never above the
///   minimum ahead.
/// - Latency: frames come out `latency` frames later than they go in; `finish` hands on the held
///   frames, so exactly as many frames leave as arrive.
public final class TruePeakLimiter: AudioProcessor {
    public let channels: Int
    /// The highest level let through, linear.
    public let ceiling: Float
    /// Frames of lookahead (the attack time).
    public let lookahead: Int
    /// Frames each frame is held back.
    public let latency: Int
    /// Taps per phase of the interpolator.
    public static let taps = 48  // a multiple of 8: `step` reads eight taps at a time

    private let coefficients: [Float]  // 3 phases × taps: the points at 1/4, 2/4, 3/4 between frames
    private let capacity: Int  // frames in the ring, a power of two
    /// Per channel, the last `capacity` frames twice over (a mirrored ring), so any `taps` of them
    /// are contiguous.
    private let ring: UnsafeMutablePointer<Float>
    private var received = 0
    private var previousLevel: Float = 0
    // The minimum of the needed gains over the lookahead: a monotonic queue of (frame, gain).
    private let queueFrame: UnsafeMutablePointer<Int>
    private let queueGain: UnsafeMutablePointer<Float>
    private var queueHead = 0, queueCount = 0
    private let queueCapacity: Int
    // The moving average over the lookahead.
    private let box: UnsafeMutablePointer<Double>
    private var boxSum: Double
    private var boxPosition = 0
    private var envelope = 1.0
    private let releaseStep: Double
    private var output: UnsafeMutablePointer<Float>
    private var outputCapacity: Int
    /// The gain most recently applied, and the lowest so far (for reporting how hard it worked).
    public private(set) var lowestGain: Float = 1

    /// `ceiling` linear (0…1]; `lookahead` and `release` in seconds.
    public init(channels: Int, sampleRate: Int, ceiling: Float, lookahead: Double = 0.005, release: Double = 0.1) {
        self.channels = max(channels, 1)
        self.ceiling = ceiling.isFinite && ceiling > 0 ? min(ceiling, 1) : 1
        let rate = Double(max(sampleRate, 1))
        let lookaheadFrames = (lookahead * rate).isFinite ? min(max(lookahead * rate, 1), 65536.0) : 1
        self.lookahead = Int(lookaheadFrames.rounded())
        latency = Self.taps / 2 + self.lookahead - 1
        let releaseFrames = (release * rate).isFinite ? max(release * rate, 1) : 1
        releaseStep = 1 - exp(-1 / releaseFrames)
        var size = 1
        while size < max(Self.taps, latency + 1) + 1 { size <<= 1 }
        capacity = size
        ring = .allocate(capacity: 2 * size * self.channels)
        ring.initialize(repeating: 0, count: 2 * size * self.channels)
        queueCapacity = self.lookahead + 1
        queueFrame = .allocate(capacity: queueCapacity)
        queueGain = .allocate(capacity: queueCapacity)
        box = .allocate(capacity: self.lookahead)
        box.initialize(repeating: 1, count: self.lookahead)
        boxSum = Double(self.lookahead)
        outputCapacity = 4096
        output = .allocate(capacity: outputCapacity * self.channels)
        coefficients = Self.interpolator()
    }

    deinit {
        ring.deallocate(); queueFrame.deallocate(); queueGain.deallocate(); box.deallocate(); output.deallocate()
    }

    /// The 4× interpolator's three fractional phases: a sinc cut at the input's Nyquist frequency
    /// under a Kaiser window (β = 8), each phase scaled to pass DC at 1.
    static func interpolator() -> [Float] {
        let half = Double(taps / 2), beta = 8.0
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0
            for k in 1..<30 {
                term *= (x / 2) / Double(k)
                sum += term * term
            }
            return sum
        }
        var result: [Float] = []
        for phase in 1...3 {
            var row: [Double] = []
            for k in 0..<taps {
                let d = half - 1 + Double(phase) / 4 - Double(k)
                let sinc = d == 0 ? 1 : sin(Double.pi * d) / (Double.pi * d)
                let ratio = d / half
                let window = besselI0(beta * (max(0, 1 - ratio * ratio)).squareRoot()) / besselI0(beta)
                row.append(sinc * window)
            }
            let sum = row.reduce(0, +)
            result += row.map { Float($0 / sum) }
        }
        return result
    }

    public func process(_ block: UnsafeMutablePointer<Float>, count: Int, next: AudioOutput) throws {
        guard count > 0 else { return }
        if count > outputCapacity {
            output.deallocate()
            outputCapacity = count
            output = .allocate(capacity: count * channels)
        }
        var made = 0
        for frame in 0..<count {
            if step(block + frame * channels, into: output + made * channels) { made += 1 }
        }
        try next(output, made)
    }

    /// Hands on the frames still held: the stream is continued by silence until each has passed.
    public func finish(next: AudioOutput) throws {
        let end = received
        let silence = [Float](repeating: 0, count: channels)
        var made = 0
        try silence.withUnsafeBufferPointer { zero in
            for _ in 0..<latency {
                if made == outputCapacity {
                    try next(output, made)
                    made = 0
                }
                guard let base = zero.baseAddress else { return }
                // Only frames that arrived come out: the silence only pushes them through.
                if step(base, into: output + made * channels, limit: end) { made += 1 }
            }
        }
        try next(output, made)
    }

    /// Takes one input frame; writes the frame `latency` behind it (if any) into `out`.
    private func step(_ frame: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, limit: Int = .max) -> Bool {
        let i = received
        received += 1
        let mask = capacity - 1
        for channel in 0..<channels {
            let lane = ring + channel * 2 * capacity
            lane[i & mask] = frame[channel]
            lane[(i & mask) + capacity] = frame[channel]
        }

        // The level of frame c = i − taps/2 + 1: its sample and the inter-sample points before it.
        let half = Self.taps / 2
        let c = i - half + 1
        guard c >= 0 else { return false }
        var level: Float = 0
        coefficients.withUnsafeBufferPointer { taps in
            guard let phases = taps.baseAddress else { return }
            for channel in 0..<channels {
                let lane = ring + channel * 2 * capacity
                let own = abs(lane[c & mask])
                if !(own <= level) { level = own }  // NaN counts as a peak
                // Frames before the stream are the ring's zeros (it starts zeroed and is larger than taps).
                let window = UnsafeRawPointer(lane + ((c - half) & mask)), rows = UnsafeRawPointer(phases)
                // Eight taps at a time, the three phases from the same loads (a scalar sum is one long
                // chain of dependent adds: this loop was a fifth of a loudness normalize's time).
                var sums = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
                let phaseBytes = Self.taps * MemoryLayout<Float>.stride
                for block in stride(from: 0, to: phaseBytes, by: MemoryLayout<SIMD8<Float>>.stride) {
                    let samples = window.loadUnaligned(fromByteOffset: block, as: SIMD8<Float>.self)
                    sums.0 += rows.loadUnaligned(fromByteOffset: block, as: SIMD8<Float>.self) * samples
                    sums.1 += rows.loadUnaligned(fromByteOffset: phaseBytes + block, as: SIMD8<Float>.self) * samples
                    sums.2 += rows.loadUnaligned(fromByteOffset: 2 * phaseBytes + block, as: SIMD8<Float>.self) * samples
                }
                let first = abs(sums.0.sum()), second = abs(sums.1.sum()), third = abs(sums.2.sum())
                if !(first <= level) { level = first }
                if !(second <= level) { level = second }
                if !(third <= level) { level = third }
            }
        }
        guard c >= 1 else {
            previousLevel = level
            return false
        }
        // Frame j = c − 1 needs a gain for its own peak and for the points between it and frame c.
        let j = c - 1
        let peak = max(previousLevel, level)
        previousLevel = level
        let needed: Float = peak.isNaN || peak == .infinity ? 0 : (peak > ceiling ? ceiling / peak : 1)
        while queueCount > 0, queueGain[(queueHead + queueCount - 1) % queueCapacity] >= needed { queueCount -= 1 }
        queueFrame[(queueHead + queueCount) % queueCapacity] = j
        queueGain[(queueHead + queueCount) % queueCapacity] = needed
        queueCount += 1
        // The envelope at m = j − lookahead + 1: the least gain any of frames m…j needs.
        let m = j - lookahead + 1
        while queueCount > 1, queueFrame[queueHead] < m {
            queueHead = (queueHead + 1) % queueCapacity
            queueCount -= 1
        }
        let least = Double(queueGain[queueHead])
        envelope = min(least, envelope + (1 - envelope) * releaseStep)
        boxSum += envelope - box[boxPosition]
        box[boxPosition] = envelope
        boxPosition = boxPosition + 1 == lookahead ? 0 : boxPosition + 1
        guard m >= 0, m < limit else { return false }
        // The mean of the envelope over m − lookahead + 1 … m, never above what frame m needs.
        let gain = Float(boxSum / Double(lookahead))
        for channel in 0..<channels { out[channel] = ring[channel * 2 * capacity + (m & mask)] * gain }
        lowestGain = min(lowestGain, gain)
        return true
    }
}
