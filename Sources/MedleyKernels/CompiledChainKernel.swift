/// A run of colour matrices and per-channel curves compiled into table lookups for 8-bit rows, so a
/// chain of any length costs about one colour matrix.
///
/// Core Image concatenates kernels; here the chain is split at its matrices,
/// `[curves₀] M₁ [curves₁] M₂ … [curvesₙ]`, and each piece becomes a table:
/// - the input table (exact, 256 entries per input channel) holds `M₁`'s column k times curves₀ of
///   decode(v), as ColorMatrixKernel's tables do, so one pixel's value is three loads and two adds;
/// - each later `[curvesᵢ] Mᵢ₊₁` is, per channel, a table over the previous stage's value range
///   (known exactly from the tables' sums, values outside 0…1 included: nothing is clamped between
///   steps, as in the float path) of `Mᵢ₊₁`'s column times the curves, read with linear
///   interpolation; trailing curves are the same with the identity matrix;
/// - the result is clamped and encoded with the transfer's 8-bit encode table, as PointChainKernel does.
/// Curves are sampled by running the operations themselves on a block of grid values, so the tables
/// hold the float path's own maths. Operations after the first that is neither a matrix nor a
/// channel-wise curve (posterize, vignettes, hue…) run in float on the stage's values ("the tail").
///
/// `compile` checks the tables against the float path on a fixed sample of inputs (every grey, every
/// value of each channel alone and over white, a 16³ lattice and pseudo-random pixels) and refuses a
/// chain that differs by more than one step anywhere in it, trying a finer grid first; the caller then
/// keeps PointChainKernel. 16-bit and float rows always use PointChainKernel.
public final class CompiledChainKernel: RowKernel {
    /// One table entry of a stage: the value at a grid point and the difference to the next one.
    struct Entry {
        var base: SIMD4<Float>
        var step: SIMD4<Float>
    }

    /// `[curvesᵢ] Mᵢ₊₁` as three tables of `cells + 1` entries (channel k's at `k · (cells + 1)`).
    struct Stage {
        let entries: [Entry]
        let low: SIMD4<Float>
        let scale: SIMD4<Float>
        let cells: Int
    }

    /// `input[k * 256 + v]`: M₁'s column k times curves₀(decode(v / 255)), M₁'s bias in channel 0's table.
    private let input: [SIMD4<Float>]
    private let stages: [Stage]
    private let tail: [PointOperation]
    private let tables: TransferTables
    private let floatPath: PointChainKernel
    public let imageWidth: Int
    public let imageHeight: Int

    /// Grid sizes tried in turn (cells per channel and stage): the first is small enough for L1/L2.
    static let gridSizes = [1024, 16384]
    /// Pixels per block of the row loop.
    static let blockSize = 256
    /// Stage ranges wider than this (in working units) are refused: a grid over them is too coarse.
    static let widestRange: Float = 4096

    /// The compiled kernel for `operations` (in application order), or nil when the chain has no
    /// matrices or curves to compile, or its tables would not stay within one 8-bit step of the float path.
    public static func compile(_ operations: [PointOperation], transfer: Transfer,
                               imageWidth: Int, imageHeight: Int) -> CompiledChainKernel? {
        var groups: [(curves: [PointOperation], matrix: ColorMatrix?)] = []
        var pending: [PointOperation] = []
        var index = 0
        while index < operations.count {
            let operation = operations[index]
            if let matrix = operation as? ColorMatrixOperation {
                groups.append((pending, matrix.matrix))
                pending = []
            } else if operation.isChannelwise {
                pending.append(operation)
            } else {
                break
            }
            index += 1
        }
        if !pending.isEmpty { groups.append((pending, nil)) }
        guard !groups.isEmpty else { return nil }
        let tail = Array(operations[index...])
        let floatPath = PointChainKernel(operations: operations, transfer: transfer,
                                         imageWidth: imageWidth, imageHeight: imageHeight)
        for cells in gridSizes {
            guard let kernel = CompiledChainKernel(groups: groups, tail: tail, cells: cells, transfer: transfer,
                                                   floatPath: floatPath, imageWidth: imageWidth,
                                                   imageHeight: imageHeight) else { return nil }
            if kernel.largestDifference(from: floatPath) <= 1 { return kernel }
        }
        return nil
    }

    private init?(groups: [(curves: [PointOperation], matrix: ColorMatrix?)], tail: [PointOperation], cells: Int,
                  transfer: Transfer, floatPath: PointChainKernel, imageWidth: Int, imageHeight: Int) {
        let tables = TransferTables.of(transfer)
        self.tables = tables
        self.tail = tail
        self.floatPath = floatPath
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight

        let decoded = tables.decode8
        let first = Self.sample(groups[0].curves, red: decoded, green: decoded, blue: decoded,
                                imageWidth: imageWidth, imageHeight: imageHeight)
        input = Self.columns(of: groups[0].matrix, times: first)
        var low = SIMD4<Float>.zero, high = SIMD4<Float>.zero
        for k in 0..<3 {
            let table = input[(k * 256)..<(k * 256 + 256)]
            low += table.reduce(SIMD4(repeating: .infinity)) { pointwiseMin($0, $1) }
            high += table.reduce(SIMD4(repeating: -.infinity)) { pointwiseMax($0, $1) }
        }

        var stages: [Stage] = []
        for group in groups.dropFirst() {
            low.w = 0
            high.w = 0
            for c in 0..<3 {
                // Also false for NaN and infinite bounds (∞ − ∞).
                guard high[c] - low[c] <= Self.widestRange, low[c].isFinite else { return nil }
            }
            var grids: [[Float]] = []
            for c in 0..<3 {
                grids.append((0...cells).map { j in
                    j == cells ? high[c] : low[c] + (high[c] - low[c]) * Float(j) / Float(cells)
                })
            }
            let curved = Self.sample(group.curves, red: grids[0], green: grids[1], blue: grids[2],
                                     imageWidth: imageWidth, imageHeight: imageHeight)
            let values = Self.columns(of: group.matrix, times: curved)
            var entries = [Entry](repeating: Entry(base: .zero, step: .zero), count: 3 * (cells + 1))
            var nextLow = SIMD4<Float>.zero, nextHigh = SIMD4<Float>.zero
            for k in 0..<3 {
                var channelLow = SIMD4<Float>(repeating: .infinity), channelHigh = SIMD4<Float>(repeating: -.infinity)
                for j in 0...cells {
                    let value = values[k * (cells + 1) + j]
                    let next = j < cells ? values[k * (cells + 1) + j + 1] : value
                    entries[k * (cells + 1) + j] = Entry(base: value, step: next - value)
                    channelLow = pointwiseMin(channelLow, value)
                    channelHigh = pointwiseMax(channelHigh, value)
                }
                nextLow += channelLow
                nextHigh += channelHigh
            }
            var scale = SIMD4<Float>.zero
            for c in 0..<3 where high[c] > low[c] { scale[c] = Float(cells) / (high[c] - low[c]) }
            stages.append(Stage(entries: entries, low: low, scale: scale, cells: cells))
            low = nextLow
            high = nextHigh
        }
        self.stages = stages
    }

    /// The curves run on three planes of values (the float path's own maths), as red, green and blue.
    private static func sample(_ curves: [PointOperation], red: [Float], green: [Float], blue: [Float],
                               imageWidth: Int, imageHeight: Int) -> [[Float]] {
        let count = red.count
        let padded = (count + 7) & ~7
        if curves.isEmpty { return [red, green, blue] }
        let r = UnsafeMutablePointer<Float>.allocate(capacity: 4 * padded)
        defer { r.deallocate() }
        let g = r + padded, b = r + 2 * padded, a = r + 3 * padded
        for i in 0..<padded {
            r[i] = i < count ? red[i] : 0
            g[i] = i < count ? green[i] : 0
            b[i] = i < count ? blue[i] : 0
            a[i] = 1
        }
        let block = PixelBlock(red: r, green: g, blue: b, alpha: a, count: count, x: 0, y: 0,
                               imageWidth: imageWidth, imageHeight: imageHeight)
        for curve in curves { curve.apply(block) }
        return [Array(UnsafeBufferPointer(start: r, count: count)), Array(UnsafeBufferPointer(start: g, count: count)),
                Array(UnsafeBufferPointer(start: b, count: count))]
    }

    /// Per channel k and sample j: the matrix's column k times channel k's value j (the identity's
    /// column when there is no matrix), with the bias added to channel 0's entries.
    private static func columns(of matrix: ColorMatrix?, times values: [[Float]]) -> [SIMD4<Float>] {
        let count = values[0].count
        var result = [SIMD4<Float>](repeating: .zero, count: 3 * count)
        for k in 0..<3 {
            var column = SIMD4<Float>.zero
            var bias = SIMD4<Float>.zero
            if let matrix {
                column = SIMD4(matrix.rows[0][k], matrix.rows[1][k], matrix.rows[2][k], 0)
                if k == 0 { bias = SIMD4(matrix.bias.x, matrix.bias.y, matrix.bias.z, 0) }
            } else {
                column[k] = 1
            }
            for j in 0..<count { result[k * count + j] = column * values[k][j] + bias }
        }
        return result
    }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes sampleBytes: Int, outputBytes: Int, x: Int, y: Int) {
        guard sampleBytes == 1, outputBytes == 1, bands == 3 || bands == 4 else {
            floatPath.apply(row: input, to: output, width: width, bands: bands, inputBytes: sampleBytes,
                            outputBytes: outputBytes, x: x, y: y)
            return
        }
        let src = input.assumingMemoryBound(to: UInt8.self)
        let dst = output.assumingMemoryBound(to: UInt8.self)
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: Self.blockSize)
        defer { values.deallocate() }
        let planes = tail.isEmpty ? nil : UnsafeMutablePointer<Float>.allocate(capacity: 4 * Self.blockSize)
        defer { planes?.deallocate() }
        var start = 0
        while start < width {
            let count = min(Self.blockSize, width - start)
            let s = src + start * bands, d = dst + start * bands
            if bands == 3 { lookUpInput(s, values, count: count, stride: 3) } else { lookUpInput(s, values, count: count, stride: 4) }
            for stage in stages {
                stage.entries.withUnsafeBufferPointer { entries in
                    Self.run(entries.baseAddress!, low: stage.low, scale: stage.scale, cells: stage.cells, values, count: count)
                }
            }
            if let planes {
                runTail(values, planes, s, d, count: count, bands: bands, x: x + start, y: y)
            } else if bands == 3 {
                encode(values, s, d, count: count, stride: 3, alpha: false)
            } else {
                encode(values, s, d, count: count, stride: 4, alpha: true)
            }
            start += count
        }
    }

    @inline(__always)
    private func lookUpInput(_ s: UnsafePointer<UInt8>, _ values: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
                             stride: Int) {
        input.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            var p = s
            for i in 0..<count {
                values[i] = t[Int(p[0])] + t[256 &+ Int(p[1])] + t[512 &+ Int(p[2])]
                p += stride
            }
        }
    }

    /// One stage in place: each channel's grid position (clamped, NaN to 0), two entries' interpolation, summed.
    @inline(__always)
    private static func run(_ entries: UnsafePointer<Entry>, low: SIMD4<Float>, scale: SIMD4<Float>, cells: Int,
                            _ values: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let top = SIMD4<Float>(repeating: Float(cells))
        let green = entries + (cells + 1), blue = entries + 2 * (cells + 1)
        for i in 0..<count {
            var t = (values[i] - low) * scale
            t.replace(with: 0, where: .!(t .> 0))
            t.replace(with: top, where: t .> top)
            let r = Int(t.x), g = Int(t.y), b = Int(t.z)
            let er = entries[r], eg = green[g], eb = blue[b]
            var v = er.base + er.step * (t.x - Float(r))
            v += eg.base + eg.step * (t.y - Float(g))
            v += eb.base + eb.step * (t.z - Float(b))
            values[i] = v
        }
    }

    @inline(__always)
    private func encode(_ values: UnsafeMutablePointer<SIMD4<Float>>, _ s: UnsafePointer<UInt8>,
                        _ d: UnsafeMutablePointer<UInt8>, count: Int, stride: Int, alpha: Bool) {
        tables.encode8.withUnsafeBufferPointer { table in
            let e = table.baseAddress!
            var p = d, q = s
            for i in 0..<count {
                var v = values[i]
                v.replace(with: 0, where: .!(v .> 0))
                v.replace(with: 1, where: v .> 1)
                v *= 65536
                p[0] = e[Int(v.x)]
                p[1] = e[Int(v.y)]
                p[2] = e[Int(v.z)]
                if alpha { p[3] = q[3] }
                p += stride
                q += stride
            }
        }
    }

    /// The operations after the compiled part, in float on the stage's values, packed as PointChainKernel packs.
    private func runTail(_ values: UnsafeMutablePointer<SIMD4<Float>>, _ planes: UnsafeMutablePointer<Float>,
                         _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int, bands: Int,
                         x: Int, y: Int) {
        let size = Self.blockSize
        let r = planes, g = planes + size, b = planes + 2 * size, a = planes + 3 * size
        for i in 0..<count {
            r[i] = values[i].x
            g[i] = values[i].y
            b[i] = values[i].z
            a[i] = bands == 4 ? Float(s[i &* 4 &+ 3]) * (1 / 255) : 1
        }
        let block = PixelBlock(red: r, green: g, blue: b, alpha: a, count: count, x: x, y: y,
                               imageWidth: imageWidth, imageHeight: imageHeight)
        for i in count..<block.paddedCount { r[i] = 0; g[i] = 0; b[i] = 0; a[i] = 1 }
        for operation in tail { operation.apply(block) }
        tables.encode8.withUnsafeBufferPointer { table in
            let e = table.baseAddress!
            @inline(__always) func index(_ v: Float) -> Int { Int(v.clampedToUnit * 65536) }
            for i in 0..<count {
                let p = d + i &* bands
                p[0] = e[index(r[i])]
                p[1] = e[index(g[i])]
                p[2] = e[index(b[i])]
                if bands == 4 { p[3] = UInt8(a[i].clampedToUnit * 255 + 0.5) }
            }
        }
    }

    /// The largest difference in 8-bit steps from the float path over a fixed sample of RGB inputs.
    func largestDifference(from floatPath: PointChainKernel) -> Int {
        let pixels = Self.verificationSample
        var compiled = [UInt8](repeating: 0, count: pixels.count)
        var reference = [UInt8](repeating: 0, count: pixels.count)
        let width = pixels.count / 3
        pixels.withUnsafeBytes { src in
            compiled.withUnsafeMutableBytes { dst in
                apply(row: src.baseAddress!, to: dst.baseAddress!, width: width, bands: 3, sampleBytes: 1)
            }
            reference.withUnsafeMutableBytes { dst in
                floatPath.apply(row: src.baseAddress!, to: dst.baseAddress!, width: width, bands: 3, sampleBytes: 1)
            }
        }
        var largest = 0
        for i in 0..<pixels.count { largest = max(largest, abs(Int(compiled[i]) - Int(reference[i]))) }
        return largest
    }

    /// Every grey; every value of each channel alone, over black and over white; a 16³ lattice
    /// (steps of 17); and 4,096 pseudo-random pixels (xorshift, fixed seed) — as one RGB row.
    static let verificationSample: [UInt8] = {
        var pixels: [UInt8] = []
        for v in 0..<256 { let b = UInt8(v); pixels += [b, b, b] }
        for channel in 0..<3 {
            for background: UInt8 in [0, 255] {
                for v in 0..<256 {
                    var pixel = [background, background, background]
                    pixel[channel] = UInt8(v)
                    pixels += pixel
                }
            }
        }
        for r in stride(from: 0, through: 255, by: 17) {
            for g in stride(from: 0, through: 255, by: 17) {
                for b in stride(from: 0, through: 255, by: 17) { pixels += [UInt8(r), UInt8(g), UInt8(b)] }
            }
        }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<(4096 * 3) {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            pixels.append(UInt8(truncatingIfNeeded: state >> 24))
        }
        return pixels
    }()
}
