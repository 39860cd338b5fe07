/// A polyphase FIR filter bank for a rational rate change of `phases / step` (L / M, reduced):
/// output n = q·L + p is the dot product of phase p's `taps` coefficients with the inputs from
/// q·M + starts[p] on. Which filter fills the bank is the caller's business.
public struct PolyphaseBank: Sendable {
    /// L: outputs per period, one coefficient row each.
    public let phases: Int
    /// M: inputs per period.
    public let step: Int
    /// Coefficients per row, a multiple of 8 (rows are padded with zeros).
    public let taps: Int
    /// Row p holds `coefficients[p·taps ..< (p + 1)·taps]`.
    public let coefficients: [Float]
    /// First input read by row p, relative to the period's first input q·M; may be negative.
    /// Non-decreasing, and no row starts past the next period's first (so the stream can drop
    /// every input before the next output's first).
    public let starts: [Int]
    /// Row p's coefficients up to its last non-zero one: an output only waits for the inputs
    /// these reach (rows are padded to a common width, with zeros where a phase reaches less far).
    public let spans: [Int]

    public init(phases: Int, step: Int, taps: Int, coefficients: [Float], starts: [Int]) {
        precondition(phases > 0 && step > 0 && taps > 0 && taps % 8 == 0, "a bank of whole SIMD8 rows")
        precondition(coefficients.count == phases * taps && starts.count == phases, "one row and one start per phase")
        precondition(zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 } && starts[phases - 1] <= starts[0] + step,
                     "rows start in order within one period")
        self.phases = phases
        self.step = step
        self.taps = taps
        self.coefficients = coefficients
        self.starts = starts
        spans = (0..<phases).map { p in
            let row = coefficients[(p * taps)..<((p + 1) * taps)]
            return (row.lastIndex { $0 != 0 } ?? p * taps) - p * taps + 1
        }
    }
}

/// Streams interleaved float frames through a `PolyphaseBank`. Input is kept per channel
/// (planar) so every output sample is one contiguous dot product; inputs before the first frame
/// and after `finish()` are zeros.
public final class PolyphaseStream {
    public let bank: PolyphaseBank
    public let channels: Int
    /// Output frames made so far.
    public private(set) var produced = 0
    public private(set) var isFinished = false

    /// Frames per plane; plane c starts at `planes + c·capacity`.
    private let capacity: Int
    private let planes: UnsafeMutablePointer<Float>
    private let rows: UnsafeMutablePointer<Float>
    /// Absolute input index of each plane's first frame, and how many frames the planes hold.
    private var origin: Int
    private var filled: Int
    /// The next output's phase p and its period's first input q·M.
    private var phase = 0
    private var periodStart = 0
    /// Room kept free for the zeros `finish()` appends.
    private let tail: Int

    /// `block`: how many input frames may wait unrendered at once.
    public init(bank: PolyphaseBank, channels: Int, block: Int = 8192) {
        precondition(channels > 0)
        self.bank = bank
        self.channels = channels
        tail = bank.taps + 8
        capacity = bank.taps + bank.step + block + tail
        planes = UnsafeMutablePointer<Float>.allocate(capacity: capacity * channels)
        planes.initialize(repeating: 0, count: capacity * channels)
        rows = UnsafeMutablePointer<Float>.allocate(capacity: bank.coefficients.count)
        _ = UnsafeMutableBufferPointer(start: rows, count: bank.coefficients.count).initialize(from: bank.coefficients)
        let first = bank.starts.min() ?? 0
        origin = min(first, 0)
        filled = -origin  // the zeros before input frame 0
    }

    deinit {
        planes.deallocate()
        rows.deallocate()
    }

    /// Takes up to `frames` interleaved frames; returns how many it took (fewer when outputs
    /// waiting to be rendered still hold the room).
    public func append(_ input: UnsafePointer<Float>, frames: Int) -> Int {
        precondition(!isFinished, "append after finish")
        compact()
        let count = min(frames, capacity - tail - filled)
        guard count > 0 else { return 0 }
        let c = channels
        if c == 1 {
            (planes + filled).update(from: input, count: count)
        } else if c == 2 {
            let left = planes + filled, right = planes + capacity + filled
            let source = UnsafeRawPointer(input)
            var i = 0
            while i + 8 <= count {
                let pair = source.loadUnaligned(fromByteOffset: i * 8, as: SIMD16<Float>.self)
                UnsafeMutableRawPointer(left + i).storeBytes(of: pair.evenHalf, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(right + i).storeBytes(of: pair.oddHalf, as: SIMD8<Float>.self)
                i += 8
            }
            while i < count {
                left[i] = input[2 * i]
                right[i] = input[2 * i + 1]
                i += 1
            }
        } else {
            for ch in 0..<c {
                let plane = planes + ch * capacity + filled
                var from = input + ch
                for i in 0..<count {
                    plane[i] = from.pointee
                    from += c
                }
            }
        }
        filled += count
        // A row shorter than the bank's width multiplies the frames after `filled` by zero: keep
        // them zeros, not stale samples that could be infinite.
        for ch in 0..<c { (planes + ch * capacity + filled).update(repeating: 0, count: bank.taps) }
        return count
    }

    /// Ends the input: what follows is zeros, so every remaining output can be rendered.
    public func finish() {
        guard !isFinished else { return }
        compact()
        for ch in 0..<channels { (planes + ch * capacity + filled).update(repeating: 0, count: tail) }
        filled += tail
        isFinished = true
    }

    /// Renders up to `capacity` interleaved output frames, stopping where the input taken so far
    /// runs out. Returns the frames written.
    public func render(into output: UnsafeMutablePointer<Float>, capacity wanted: Int) -> Int {
        let taps = bank.taps, phases = bank.phases, step = bank.step, c = channels
        let planeStride = capacity * 4
        let planes = UnsafeRawPointer(self.planes), rows = UnsafeRawPointer(self.rows)
        let filled = self.filled
        // The clock lives in locals while the loop runs (class properties would be reloaded and
        // access-checked on every frame).
        var phase = self.phase, first = periodStart - origin
        var made = 0
        bank.starts.withUnsafeBufferPointer { starts in bank.spans.withUnsafeBufferPointer { spans in
            while made < wanted {
                let start = first + starts[phase]
                if start + spans[phase] > filled { break }
                let row = rows + phase * taps * 4
                let x = planes + start * 4
                let out = output + made * c
                switch c {
                case 1:
                    out[0] = Self.dot(row, x, taps: taps)
                case 2:
                    let (l, r) = Self.dot2(row, x, x + planeStride, taps: taps)
                    out[0] = l
                    out[1] = r
                default:
                    for ch in 0..<c { out[ch] = Self.dot(row, x + ch * planeStride, taps: taps) }
                }
                phase += 1
                if phase == phases {
                    phase = 0
                    first += step
                }
                made += 1
            }
        } }
        self.phase = phase
        periodStart = first + origin
        produced += made
        return made
    }

    /// Drops the frames no future output reads, moving the rest to the front of each plane.
    private func compact() {
        let needed = periodStart + bank.starts[phase] - origin
        guard needed > 0 else { return }
        let keep = filled - needed
        if keep > 0 {
            for ch in 0..<channels {
                let plane = planes + ch * capacity
                plane.update(from: plane + needed, count: keep)
            }
        }
        origin += needed
        filled = max(keep, 0)
    }

    /// Σ row[k]·x[k] over `taps` floats (a multiple of 8), with four independent accumulators
    /// on long rows so the FMA latency overlaps.
    @inline(__always)
    static func dot(_ row: UnsafeRawPointer, _ x: UnsafeRawPointer, taps: Int) -> Float {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), a2 = SIMD8<Float>(), a3 = SIMD8<Float>()
        let bytes = taps * 4
        var i = 0
        while i + 128 <= bytes {
            a0.addProduct(row.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self),
                          x.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
            a1.addProduct(row.loadUnaligned(fromByteOffset: i + 32, as: SIMD8<Float>.self),
                          x.loadUnaligned(fromByteOffset: i + 32, as: SIMD8<Float>.self))
            a2.addProduct(row.loadUnaligned(fromByteOffset: i + 64, as: SIMD8<Float>.self),
                          x.loadUnaligned(fromByteOffset: i + 64, as: SIMD8<Float>.self))
            a3.addProduct(row.loadUnaligned(fromByteOffset: i + 96, as: SIMD8<Float>.self),
                          x.loadUnaligned(fromByteOffset: i + 96, as: SIMD8<Float>.self))
            i += 128
        }
        while i < bytes {
            a0.addProduct(row.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self),
                          x.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
            i += 32
        }
        return horizontalSum((a0 + a1) + (a2 + a3))
    }

    /// Two channels through the same row: one coefficient load feeds both.
    @inline(__always)
    static func dot2(_ row: UnsafeRawPointer, _ x: UnsafeRawPointer, _ y: UnsafeRawPointer, taps: Int) -> (Float, Float) {
        var a0 = SIMD8<Float>(), a1 = SIMD8<Float>(), b0 = SIMD8<Float>(), b1 = SIMD8<Float>()
        let bytes = taps * 4
        var i = 0
        while i + 64 <= bytes {
            let w0 = row.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self)
            let w1 = row.loadUnaligned(fromByteOffset: i + 32, as: SIMD8<Float>.self)
            a0.addProduct(w0, x.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
            b0.addProduct(w0, y.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
            a1.addProduct(w1, x.loadUnaligned(fromByteOffset: i + 32, as: SIMD8<Float>.self))
            b1.addProduct(w1, y.loadUnaligned(fromByteOffset: i + 32, as: SIMD8<Float>.self))
            i += 64
        }
        if i < bytes {
            let w = row.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self)
            a0.addProduct(w, x.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
            b0.addProduct(w, y.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self))
        }
        return (horizontalSum(a0 + a1), horizontalSum(b0 + b1))
    }

    /// The eight lanes added as a tree (three shuffles and adds, not seven dependent adds).
    @inline(__always)
    static func horizontalSum(_ v: SIMD8<Float>) -> Float {
        let four = v.lowHalf + v.highHalf
        let two = four.lowHalf + four.highHalf
        return two[0] + two[1]
    }
}
