/// libsamplerate's sinc converter (0.2.x) with the filtering left out: for each `src_process`
/// call, how many input frames it takes and how many output frames it makes. It replays the
/// converter's buffer bookkeeping and its floating-point clock because the stream's length
/// depends on both: whether the last frame is made is a comparison of `buffer offset + fraction
/// + 1/ratio` against the end offset, so the clock's drift and the rounding at the buffer's
/// offset decide ties, and the offset depends on how the input arrived.
struct SincSchedule {
    /// One half of a converter's filter table (`coeff_half_len`) and its entries per zero crossing.
    struct Table: Hashable {
        let halfLength: Int
        let increment: Int
    }

    /// The tables of libsamplerate 0.2.x (`fastest_coeffs.h`, `mid_qual_coeffs.h`,
    /// `high_qual_coeffs.h`); nil for the linear converter.
    static func table(_ quality: ResamplerQuality) -> Table? {
        switch quality {
        case .linear: return nil
        case .sincFastest: return Table(halfLength: 2462, increment: 128)
        case .sincMedium: return Table(halfLength: 22436, increment: 491)
        case .sincBest: return Table(halfLength: 340_237, increment: 2381)
        }
    }

    let channels: Int
    /// Input frames the converter keeps on each side of the current one (its reach).
    let reach: Int

    private let ratio: Double
    /// Buffer positions in floats, as the converter counts them.
    private let half: Int
    private let length: Int
    private var current = 0
    private var end = 0
    private var realEnd = -1
    /// The fractional input position, carried from call to call.
    private var position = 0.0

    init(table: Table, channels: Int, ratio: Double) {
        self.channels = channels
        self.ratio = ratio
        let crossings = (Double(table.halfLength) + 2.0) / Double(table.increment)
        var count = crossings
        if ratio < 1 { count /= ratio }  // the filter widens when it also has to band-limit
        reach = Self.lrint(count) + 1
        half = channels * reach
        length = max(3 * Self.lrint(crossings * 256 + 1), 4096) * channels + 1  // 256: SRC_MAX_RATIO
    }

    /// What `src_process` does with `frames` input frames and room for `capacity` output frames:
    /// the frames it takes and makes, and whether the input's end became final in this call
    /// (from then on the converter reads zeros after the last frame).
    mutating func process(frames: Int, capacity: Int, end endOfInput: Bool) throws
        -> (used: Int, generated: Int, finished: Bool) {
        let c = channels
        let inCount = max(frames, 0) * c, outCount = max(capacity, 0) * c  // src_process reads negatives as 0
        var inUsed = 0, outGen = 0
        var finished = false
        let step = 1.0 / ratio
        let terminate = 1.0 / ratio + 1e-20

        var index = position
        var rem = Self.fmodOne(index)
        current = wrap(current + c * Self.lrint(index - rem))
        index = rem

        while outGen < outCount {
            var inHand = wrap(end - current + length)
            if inHand <= half {
                finished = try prepare(inCount: inCount, inUsed: &inUsed, endOfInput: endOfInput) || finished
                inHand = wrap(end - current + length)
                if inHand <= half { break }
            }
            if step < 1, realEnd < 0 {
                // Upsampling, end not yet in sight: a run of frames that cannot reach either check.
                // Each frame moves `current` by at most one frame, so `inHand` stays above `half`.
                let run = min((outCount - outGen) / c, (inHand - half - 1) / c)
                if run > 0 {
                    let moved = Self.upsample(&index, step: step, frames: run)
                    outGen += run * c
                    current = wrap(current + c * moved)
                    continue
                }
            }
            if realEnd >= 0 {
                // Mono compares with >, the multichannel paths with >= (as libsamplerate 0.2.x does).
                let reached = Double(current) + index + terminate
                if c == 1 ? reached > Double(realEnd) : reached >= Double(realEnd) { break }
            }
            outGen += c
            index += step
            rem = Self.fmodOne(index)
            current = wrap(current + c * Self.lrint(index - rem))
            index = rem
        }
        position = index
        return (inUsed / c, outGen / c, finished)
    }

    /// `frames` steps of the clock when 0 ≤ `step` < 1 and 0 ≤ `index` < 1; returns the input frames
    /// it moved by. The same values as the general step (`fmodOne` and `lrint`), bit for bit:
    /// x = index + step lies in [0, 2) (rounded too: at most 2 − 2⁻⁵²; a step of 1 could round to 2), where `fmodOne(x)` is x below 1 and x − 1 from 1 on (both
    /// exact: Sterbenz's lemma for x ≥ 1/2, and x − round(x) + 1 gives x back below 1), and
    /// `lrint(x − fmodOne(x))` is 0 or 1 — without the two roundings on the clock's critical path.
    @inline(__always)
    static func upsample(_ index: inout Double, step: Double, frames: Int) -> Int {
        var x = index, moved = 0
        for _ in 0..<frames {
            x += step
            let over = x >= 1.0
            x = over ? x - 1.0 : x
            moved &+= over ? 1 : 0
        }
        index = x
        return moved
    }

    /// Loads input into the (imaginary) buffer; true when it fixed the end of the input.
    private mutating func prepare(inCount: Int, inUsed: inout Int, endOfInput: Bool) throws -> Bool {
        guard realEnd < 0 else { return false }
        let c = channels
        var len: Int
        if current == 0 {
            len = length - 2 * half
            current = half
            end = half
        } else if end + half + c < length {
            len = max(length - current - half, 0)
        } else {
            len = end - current  // the converter moves what it holds back to the buffer's start
            current = half
            end = current + len
            len = max(length - current - half, 0)
        }
        len = min(inCount - inUsed, len)
        len -= len % c
        guard len >= 0, end + len <= length else { throw MediaError(.medley, "resample", "resampling failed: bad buffer length") }
        end += len
        inUsed += len
        guard inUsed == inCount, end - current < 2 * half, endOfInput else { return false }
        if length - end < half + 5 {
            len = end - current
            current = half
            end = current + len
        }
        realEnd = end
        len = half + 5
        if end + len > length { len = length - end }
        end += len
        return true
    }

    /// `x % length` for 0 ≤ x < 2·length, without a division per frame.
    @inline(__always)
    private func wrap(_ x: Int) -> Int { x >= length ? x - length : x }

    @inline(__always)
    static func lrint(_ x: Double) -> Int { Int(x.rounded(.toNearestOrEven)) }

    /// libsamplerate's `fmod_one`: x minus its nearest integer, moved into [0, 1).
    @inline(__always)
    static func fmodOne(_ x: Double) -> Double {
        let r = x - x.rounded(.toNearestOrEven)
        return r < 0 ? r + 1.0 : r
    }
}
