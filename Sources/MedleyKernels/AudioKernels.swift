#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sample kernels over interleaved float frames (−1…1 full scale).
public enum AudioKernels {
    /// Multiplies every sample by `gain`, eight at a time.
    public static func applyGain(_ samples: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        let raw = UnsafeMutableRawPointer(samples)
        var i = 0
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: v * gain, toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            samples[i] *= gain
            i += 1
        }
    }
}

/// Per-channel peak and mean square of a stream, as AVAudioPlayer's metering reports them.
public struct Meter: Sendable, Equatable {
    public private(set) var peak: [Float]
    public private(set) var sumOfSquares: [Double]
    public private(set) var frames: Int = 0

    public init(channels: Int) {
        peak = [Float](repeating: 0, count: channels)
        sumOfSquares = [Double](repeating: 0, count: channels)
    }

    /// Adds `frames` interleaved frames to the tally.
    public mutating func add(_ samples: UnsafePointer<Float>, frames: Int) {
        let channels = peak.count
        if 8 % channels == 0 {
            addVectorised(samples, frames: frames)
            return
        }
        for c in 0..<channels {
            var top: Float = peak[c]
            var sum: Float = 0  // per block in Float (short), accumulated in Double across blocks
            var i = c
            for _ in 0..<frames {
                let v = samples[i]
                top = max(top, abs(v))
                sum += v * v
                i += channels
            }
            peak[c] = top
            sumOfSquares[c] += Double(sum)
        }
        self.frames += frames
    }

    /// For 1, 2, 4 or 8 channels, eight interleaved samples are eight lanes whose channel is
    /// lane % channels: accumulate whole vectors and fold the lanes per channel at the end.
    private mutating func addVectorised(_ samples: UnsafePointer<Float>, frames: Int) {
        let channels = peak.count
        let count = frames * channels
        let raw = UnsafeRawPointer(samples)
        var top = SIMD8<UInt32>()  // |v| as bits: for non-negative floats, integer order is float order
        var squares = SIMD8<Float>(), squares2 = SIMD8<Float>()
        var i = 0
        while i + 16 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let b = raw.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<Float>.self)
            let ma = unsafeBitCast(a, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF
            let mb = unsafeBitCast(b, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF
            top.replace(with: ma, where: ma .> top)
            top.replace(with: mb, where: mb .> top)
            squares.addProduct(a, a)
            squares2.addProduct(b, b)
            i += 16
        }
        squares += squares2
        if i + 8 <= count {
            let a = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let ma = unsafeBitCast(a, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF
            top.replace(with: ma, where: ma .> top)
            squares.addProduct(a, a)
            i += 8
        }
        let peaks = unsafeBitCast(top, to: SIMD8<Float>.self)
        var lanePeak = [Float](repeating: 0, count: channels)
        var laneSquares = [Float](repeating: 0, count: channels)
        for lane in 0..<8 {
            lanePeak[lane % channels] = max(lanePeak[lane % channels], peaks[lane])
            laneSquares[lane % channels] += squares[lane]
        }
        while i < count {  // the tail: fewer than eight samples
            let v = samples[i]
            lanePeak[i % channels] = max(lanePeak[i % channels], abs(v))
            laneSquares[i % channels] += v * v
            i += 1
        }
        for c in 0..<channels {
            peak[c] = max(peak[c], lanePeak[c])
            sumOfSquares[c] += Double(laneSquares[c])
        }
        self.frames += frames
    }

    /// `peakPower(forChannel:)`: 20·log10(peak) in dBFS (−160 for silence, as AVAudioPlayer).
    public func peakPower(channel: Int) -> Double {
        Self.decibels(Double(peak[channel]))
    }

    /// `averagePower(forChannel:)`: the RMS level in dBFS (a full-scale sine reads −3.01).
    public func averagePower(channel: Int) -> Double {
        guard frames > 0 else { return -160 }
        return Self.decibels((sumOfSquares[channel] / Double(frames)).squareRoot())
    }

    static func decibels(_ amplitude: Double) -> Double {
        amplitude > 1e-8 ? 20 * log10(amplitude) : -160
    }
}

/// Maps input channels to output channels with a coefficient matrix: mono ↔ stereo, 5.1 →
/// stereo with ITU-R BS.775 coefficients (centre and surrounds at −3 dB, LFE dropped),
/// normalised so the loudest output cannot clip — the same choices as FFmpeg's default downmix.
public struct ChannelMixer: Sendable {
    /// coefficients[o][i]: weight of input channel i in output channel o.
    public let coefficients: [[Float]]
    public var inputs: Int { coefficients.first?.count ?? 0 }
    public var outputs: Int { coefficients.count }

    public init(coefficients: [[Float]]) { self.coefficients = coefficients }

    /// The standard mix from `inputs` to `outputs` channels (WAVE channel order: FL FR FC LFE BL BR …).
    public static func standard(from inputs: Int, to outputs: Int) -> ChannelMixer {
        var m = [[Float]](repeating: [Float](repeating: 0, count: inputs), count: outputs)
        let h: Float = 0.70710677
        switch (inputs, outputs) {
        case let (i, o) where i == o:
            for c in 0..<i { m[c][c] = 1 }
        case (1, _):
            for o in 0..<min(outputs, 2) { m[o][0] = 1 }   // mono to the front pair
        case (_, 1):
            for i in 0..<inputs { m[0][i] = 1 / Float(inputs) }
        case (6, 2), (5, 2):
            // FL FR FC (LFE) BL BR → L = FL + h·FC + h·BL, R = FR + h·FC + h·BR
            let back = inputs == 6 ? 4 : 3
            m[0][0] = 1; m[0][2] = h; m[0][back] = h
            m[1][1] = 1; m[1][2] = h; m[1][back + 1] = h
            let scale = 1 / (1 + 2 * h)
            m = m.map { $0.map { $0 * scale } }
        default:
            for c in 0..<min(inputs, outputs) { m[c][c] = 1 }
        }
        return ChannelMixer(coefficients: m)
    }

    /// Mixes `frames` interleaved frames from `input` into `output`. The common maps (stereo →
    /// mono, mono → stereo, 5.1 → stereo) have their own loops, written so LLVM vectorises
    /// them; other maps run the general matrix loop.
    public func mix(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        switch (inputs, outputs) {
        case (2, 1): mixStereoToMono(input, frames: frames, into: output)
        case (1, 2): mixMonoToStereo(input, frames: frames, into: output)
        case (6, 2): mixFiveOneToStereo(input, frames: frames, into: output)
        default: mixMatrix(input, frames: frames, into: output)
        }
    }

    private func mixStereoToMono(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        // Eight frames at a time: even lanes are left, odd lanes right.
        let left = coefficients[0][0], right = coefficients[0][1]
        let src = UnsafeRawPointer(input), dst = UnsafeMutableRawPointer(output)
        var f = 0
        while f + 8 <= frames {
            let pair = src.loadUnaligned(fromByteOffset: f * 8, as: SIMD16<Float>.self)
            dst.storeBytes(of: pair.evenHalf * left + pair.oddHalf * right, toByteOffset: f * 4, as: SIMD8<Float>.self)
            f += 8
        }
        while f < frames {
            output[f] = input[2 * f] * left + input[2 * f + 1] * right
            f += 1
        }
    }

    private func mixMonoToStereo(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        let left = coefficients[0][0], right = coefficients[1][0]
        for f in 0..<frames {
            let v = input[f]
            output[2 * f] = v * left
            output[2 * f + 1] = v * right
        }
    }

    private func mixFiveOneToStereo(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        let l = coefficients[0], r = coefficients[1]
        let (l0, l1, l2, l3, l4, l5) = (l[0], l[1], l[2], l[3], l[4], l[5])
        let (r0, r1, r2, r3, r4, r5) = (r[0], r[1], r[2], r[3], r[4], r[5])
        for f in 0..<frames {
            let x = input + 6 * f
            let (a, b, c, d, e, g) = (x[0], x[1], x[2], x[3], x[4], x[5])
            output[2 * f] = a * l0 + b * l1 + c * l2 + d * l3 + e * l4 + g * l5
            output[2 * f + 1] = a * r0 + b * r1 + c * r2 + d * r3 + e * r4 + g * r5
        }
    }

    private func mixMatrix(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        let i = inputs, o = outputs
        let flat = coefficients.flatMap { $0 }
        flat.withUnsafeBufferPointer { weights in
            for f in 0..<frames {
                let source = input + f * i, target = output + f * o
                for out in 0..<o {
                    var sum: Float = 0
                    for channel in 0..<i { sum += weights[out * i + channel] * source[channel] }
                    target[out] = sum
                }
            }
        }
    }
}
