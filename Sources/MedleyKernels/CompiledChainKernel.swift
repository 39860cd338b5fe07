/// A run of colour matrices and per-channel curves compiled into table lookups for 8-bit rows, so a
/// chain of any length costs about one colour matrix.
///
/// Core Image concatenates kernels; here the chain is split at its matrices,
/// `[curves₀] M₁ [curves₁] M₂ … [curvesₙ]`, and each piece becomes a table:
/// - the input table (256 entries per input channel, in float) holds `M₁`'s column k times curves₀ of
///   decode(v), as ColorMatrixKernel's tables do, so one pixel's value is three loads and two adds
///   per channel;
/// - each later `[curvesᵢ] Mᵢ₊₁` is one table per channel of the curves sampled on a grid of cells
///   that are spaced like floats: a value's cell is the top bits of its magnitude's bit pattern (its
///   exponent and first `mantissaBits` of mantissa), so every cell is at most 2⁻¹⁰ of its value wide —
///   fine near black, where a gamma below 1 is steep, and over the whole range the previous stage can
///   reach (known from the tables' sums; values outside 0…1 included: nothing is clamped between steps,
///   as in the float path). Negative values have cells of their own. Then `Mᵢ₊₁` is three multiply-adds;
///   trailing curves are the same with the identity matrix;
/// - the result is clamped and encoded with the transfer's 8-bit encode table, as PointChainKernel does.
/// The row loop works on blocks of three planes (red, green, blue floats), each step a plain loop
/// over a plane that LLVM vectorises (cells, matrix, encode indices) or a run of table loads.
/// Curves are sampled by running the operations themselves on the cells' centres, so the tables
/// hold the float path's own maths. Operations after the first that is neither a matrix nor a
/// channel-wise curve (posterize, vignettes, hue…) run in float on the stage's values ("the tail").
///
/// `compile` checks the tables against the float path on a fixed sample of inputs (every grey, every
/// value of each channel alone and over white, a 16³ lattice and pseudo-random pixels) and refuses a
/// chain that differs by more than one step anywhere in it; the caller then keeps PointChainKernel.
/// 16-bit and float rows always use PointChainKernel.
public final class CompiledChainKernel: RowKernel {
    /// `[curvesᵢ] Mᵢ₊₁`: the curves of each channel on the cells of `CellGrid`, then the matrix.
    struct Stage {
        /// Channel k's curve at cell j is `curves[k * grid.cells + j]`.
        let curves: [Float]
        let grid: CellGrid
        /// The matrix's columns (the identity's when the chain ends in curves) and its bias.
        let columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
        let bias: SIMD4<Float>
    }

    /// Cells spaced like floats: magnitudes from 2^lowestExponent up to 2^highestExponent, each octave
    /// in 2^mantissaBits cells; smaller magnitudes share the first cell, and when the range has
    /// negative values they have a second set of cells after the first.
    struct CellGrid {
        static let mantissaBits: UInt32 = 10
        static let lowestExponent = -20
        /// The bit pattern of 2^lowestExponent shifted down to a cell number.
        let origin: UInt32
        /// Cells for one sign.
        let cellsPerSign: UInt32
        let hasNegatives: Bool
        var cells: Int { Int(cellsPerSign) * (hasNegatives ? 2 : 1) }

        init(largestMagnitude: Float, hasNegatives: Bool) {
            let shift = 23 - Self.mantissaBits
            origin = Float(sign: .plus, exponent: Self.lowestExponent, significand: 1).bitPattern >> shift
            var top = Self.lowestExponent + 1
            while top < 13, Float(sign: .plus, exponent: top, significand: 1) <= largestMagnitude { top += 1 }
            cellsPerSign = UInt32(top - Self.lowestExponent) << Self.mantissaBits
            self.hasNegatives = hasNegatives
        }

        /// The value at the centre of cell `j`.
        func centre(_ j: Int) -> Float {
            let shift = 23 - Self.mantissaBits
            let perSign = Int(cellsPerSign)
            let negative = j >= perSign
            let within = UInt32(negative ? j - perSign : j)
            let magnitude = Float(bitPattern: ((origin + within) << shift) | (1 << (shift - 1)))
            return negative ? -magnitude : magnitude
        }

        /// The cell of a value; NaN and ∞ fall in the last cell of their sign. Scalar on purpose:
        /// the generic SIMD integer operations compiled to far slower code here.
        @inline(__always)
        func cell(of value: Float) -> Int {
            let bits = value.bitPattern
            let magnitude = (bits & 0x7FFF_FFFF) &>> (23 - Self.mantissaBits)
            // Below the origin: the first cell (the subtraction would wrap).
            var cell = magnitude > origin ? magnitude &- origin : 0
            cell = cell < cellsPerSign ? cell : cellsPerSign &- 1
            return Int(cell &+ (bits &>> 31) &* negativeOffset)
        }

        /// Where negative values' cells start (0 when the range has none: a stray −0 or a rounding
        /// just below 0 then reads the cell of its magnitude).
        var negativeOffset: UInt32 { hasNegatives ? cellsPerSign : 0 }
    }

    /// `input[(c * 3 + k) * 256 + v]`: output channel c of M₁'s column k times curves₀(decode(v / 255)),
    /// M₁'s bias in channel 0's tables — planar, so a block's three planes are looked up by plain loops.
    /// Empty when `single` runs the chain.
    let input: [Float]
    let stages: [Stage]
    let tail: [PointOperation]
    private let tables: TransferTables
    private let floatPath: PointChainKernel
    /// A chain that is only `[curves₀] M₁` is ColorMatrixKernel's 8-bit loop over curved tables.
    private let single: ColorMatrixKernel?
    public let imageWidth: Int
    public let imageHeight: Int

    /// Pixels per block of the row loop.
    static let blockSize = 256
    /// Stage values larger than this are refused (the grid stops at 2¹³).
    static let largestMagnitude: Float = 4096

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
        guard let kernel = CompiledChainKernel(groups: groups, tail: tail, transfer: transfer, floatPath: floatPath,
                                               imageWidth: imageWidth, imageHeight: imageHeight),
              kernel.largestDifference(from: floatPath) <= 1 else { return nil }
        return kernel
    }

    private init?(groups: [(curves: [PointOperation], matrix: ColorMatrix?)], tail: [PointOperation],
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
        single = groups.count == 1 && tail.isEmpty && first.allSatisfy { $0.count == 256 }
            ? ColorMatrixKernel(matrix: groups[0].matrix ?? .identity, transfer: transfer, decoded: first) : nil
        guard single == nil else {
            input = []
            stages = []
            return
        }
        let (firstColumns, firstBias) = Self.columns(of: groups[0].matrix)
        var inputTable = [SIMD4<Float>](repeating: .zero, count: 3 * 256)
        for k in 0..<3 {
            let column = k == 0 ? firstColumns.0 : (k == 1 ? firstColumns.1 : firstColumns.2)
            for v in 0..<256 {
                inputTable[k * 256 + v] = Self.finite(column * first[k][v] + (k == 0 ? firstBias : .zero))
            }
        }
        var planar = [Float](repeating: 0, count: 9 * 256)
        for c in 0..<3 {
            for j in 0..<(3 * 256) { planar[c * 3 * 256 + j] = inputTable[j][c] }
        }
        input = planar
        guard var (low, high) = Self.range(inputTable, count: 256) else { return nil }

        var stages: [Stage] = []
        for group in groups.dropFirst() {
            let largest = max(-low.min(), high.max())
            guard largest <= Self.largestMagnitude else { return nil }
            let grid = CellGrid(largestMagnitude: largest, hasNegatives: low.min() < 0)
            let centres = (0..<grid.cells).map(grid.centre)
            let curved = Self.sample(group.curves, red: centres, green: centres, blue: centres,
                                     imageWidth: imageWidth, imageHeight: imageHeight)
            let (columns, bias) = Self.columns(of: group.matrix)
            let lowCells = SIMD3(grid.cell(of: low.x), grid.cell(of: low.y), grid.cell(of: low.z))
            let highCells = SIMD3(grid.cell(of: high.x), grid.cell(of: high.y), grid.cell(of: high.z))
            let curves = (curved[0] + curved[1] + curved[2]).map { Self.finite(SIMD4(repeating: $0)).x }
            stages.append(Stage(curves: curves, grid: grid, columns: Self.finite(columns), bias: Self.finite(bias)))
            // Next stage's range: per channel of the output, the sum over inputs of each input's extremes.
            var nextLow = bias, nextHigh = bias
            for k in 0..<3 {
                let column = k == 0 ? columns.0 : (k == 1 ? columns.1 : columns.2)
                var least = SIMD4<Float>(repeating: .infinity), most = SIMD4<Float>(repeating: -.infinity)
                for j in 0..<grid.cells where Self.reachable(j, centres[j], low[k], high[k], lowCells[k], highCells[k]) {
                    let value = column * curved[k][j]
                    least = pointwiseMin(least, value)
                    most = pointwiseMax(most, value)
                }
                guard least.x.isFinite, most.x.isFinite else { return nil }
                nextLow += least
                nextHigh += most
            }
            nextLow.w = 0
            nextHigh.w = 0
            guard nextLow.min().isFinite, nextHigh.max().isFinite else { return nil }
            (low, high) = (nextLow, nextHigh)
        }
        self.stages = stages
    }

    /// Table values bounded to ±4096 (far past what any output can show), NaN (from ∞ · 0) as 0, so
    /// every sum the row loop makes is finite and its clamps need not look for NaN.
    private static func finite(_ value: SIMD4<Float>) -> SIMD4<Float> {
        var result = value
        for c in 0..<4 { result[c] = value[c].isNaN ? 0 : min(max(value[c], -largestMagnitude), largestMagnitude) }
        return result
    }

    private static func finite(_ columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>))
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (finite(columns.0), finite(columns.1), finite(columns.2))
    }

    /// Whether cell `j` (centred on `centre`) can hold one of channel k's values, which lie in
    /// low…high: its centre does, or it is the cell of one of the ends.
    private static func reachable(_ j: Int, _ centre: Float, _ low: Float, _ high: Float,
                                  _ lowCell: Int, _ highCell: Int) -> Bool {
        (centre >= low && centre <= high) || j == lowCell || j == highCell
    }

    /// The smallest and largest sum of one entry per channel table, or nil if any is not finite.
    private static func range(_ entries: [SIMD4<Float>], count: Int) -> (SIMD4<Float>, SIMD4<Float>)? {
        var low = SIMD4<Float>.zero, high = SIMD4<Float>.zero
        for k in 0..<3 {
            let table = entries[(k * count)..<(k * count + count)]
            low += table.reduce(SIMD4(repeating: .infinity)) { pointwiseMin($0, $1) }
            high += table.reduce(SIMD4(repeating: -.infinity)) { pointwiseMax($0, $1) }
        }
        low.w = 0
        high.w = 0
        guard low.min().isFinite, high.max().isFinite else { return nil }
        return (low, high)
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
        for i in 0..<count {
            r[i] = red[i]
            g[i] = green[i]
            b[i] = blue[i]
            a[i] = 1
        }
        let block = PixelBlock(red: r, green: g, blue: b, alpha: a, count: count, x: 0, y: 0,
                               imageWidth: imageWidth, imageHeight: imageHeight)
        PlanarPixels.clearPadding(block)
        for curve in curves { curve.apply(block) }
        return [Array(UnsafeBufferPointer(start: r, count: count)), Array(UnsafeBufferPointer(start: g, count: count)),
                Array(UnsafeBufferPointer(start: b, count: count))]
    }

    /// The matrix's three columns (lane 3 zero) and bias; the identity's when there is no matrix.
    private static func columns(of matrix: ColorMatrix?) -> ((SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), SIMD4<Float>) {
        guard let matrix else { return ((SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0)), .zero) }
        func column(_ k: Int) -> SIMD4<Float> { SIMD4(matrix.rows[0][k], matrix.rows[1][k], matrix.rows[2][k], 0) }
        return ((column(0), column(1), column(2)), SIMD4(matrix.bias.x, matrix.bias.y, matrix.bias.z, 0))
    }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes sampleBytes: Int, outputBytes: Int, x: Int, y: Int) {
        guard sampleBytes == 1, outputBytes == 1, bands == 3 || bands == 4 else {
            floatPath.apply(row: input, to: output, width: width, bands: bands, inputBytes: sampleBytes,
                            outputBytes: outputBytes, x: x, y: y)
            return
        }
        if let single {
            single.apply(row: input, to: output, width: width, bands: bands, inputBytes: 1, outputBytes: 1, x: x, y: y)
            return
        }
        let src = input.assumingMemoryBound(to: UInt8.self)
        let dst = output.assumingMemoryBound(to: UInt8.self)
        let size = Self.blockSize
        // Four planes (red, green, blue, and alpha for the tail) and three planes of table indices.
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 4 * size)
        defer { planes.deallocate() }
        let indices = UnsafeMutablePointer<UInt32>.allocate(capacity: 3 * size)
        defer { indices.deallocate() }
        let r = planes, g = planes + size, b = planes + 2 * size
        self.input.withUnsafeBufferPointer { inputTable in
            tables.encode8.withUnsafeBufferPointer { encodeTable in
                let t = inputTable.baseAddress!, e = encodeTable.baseAddress!
                var start = 0
                while start < width {
                    let count = min(size, width - start)
                    let s = src + start * bands, d = dst + start * bands
                    if bands == 3 {
                        Self.lookUpInput(t, s, r, g, b, count: count, stride: 3)
                    } else {
                        Self.lookUpInput(t, s, r, g, b, count: count, stride: 4)
                    }
                    for stage in stages {
                        stage.curves.withUnsafeBufferPointer { curves in
                            Self.run(curves.baseAddress!, stage, r, g, b, indices, count: count)
                        }
                    }
                    if !tail.isEmpty {
                        runTail(planes, s, d, e, count: count, bands: bands, x: x + start, y: y)
                    } else if bands == 3 {
                        Self.encode(r, g, b, indices, e, s, d, count: count, stride: 3, alpha: false)
                    } else {
                        Self.encode(r, g, b, indices, e, s, d, count: count, stride: 4, alpha: true)
                    }
                    start += count
                }
            }
        }
    }

    /// Input channel k of each pixel through the planar input tables into the three planes; the
    /// adds in the order of the former SIMD4 sum, `(t₀ + t₁) + t₂`, so the values are the same.
    @inline(__always)
    private static func lookUpInput(_ t: UnsafePointer<Float>, _ s: UnsafePointer<UInt8>,
                                    _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                    _ b: UnsafeMutablePointer<Float>, count: Int, stride: Int) {
        let tr = t, tg = t + 768, tb = t + 1536
        for i in 0..<count {
            let p = s + i &* stride
            let v0 = Int(p[0]), v1 = 256 &+ Int(p[1]), v2 = 512 &+ Int(p[2])
            r[i] = (tr[v0] + tr[v1]) + tr[v2]
            g[i] = (tg[v0] + tg[v1]) + tg[v2]
            b[i] = (tb[v0] + tb[v1]) + tb[v2]
        }
    }

    /// The cell of every value of a plane (`CellGrid.cell(of:)` as plain unsigned arithmetic, which
    /// vectorises: below the origin the first cell, past the last cell the last, negatives offset).
    @inline(__always)
    private static func cells(_ plane: UnsafePointer<Float>, _ indices: UnsafeMutablePointer<UInt32>, count: Int,
                              grid: CellGrid, table: UInt32) {
        let origin = grid.origin, last = grid.cellsPerSign &- 1, negative = grid.negativeOffset
        for i in 0..<count {
            let bits = plane[i].bitPattern
            let magnitude = (bits & 0x7FFF_FFFF) &>> (23 - CellGrid.mantissaBits)
            let cell = min(max(magnitude, origin) &- origin, last)
            indices[i] = cell &+ (bits &>> 31) &* negative &+ table
        }
    }

    /// One stage in place on the planes: each channel's cells, its curve values, then the matrix —
    /// lane by lane the operations of the former `c0 * r + c1 * g + c2 * b + bias` in SIMD4, in the
    /// same order (Swift does not contract them into fused multiply-adds), so the values are the same.
    @inline(__always)
    private static func run(_ curves: UnsafePointer<Float>, _ stage: Stage,
                            _ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                            _ b: UnsafeMutablePointer<Float>, _ indices: UnsafeMutablePointer<UInt32>, count: Int) {
        let grid = stage.grid
        let cells = UInt32(grid.cells)
        let size = blockSize
        Self.cells(r, indices, count: count, grid: grid, table: 0)
        Self.cells(g, indices + size, count: count, grid: grid, table: cells)
        Self.cells(b, indices + 2 * size, count: count, grid: grid, table: 2 &* cells)
        let ir = indices, ig = indices + size, ib = indices + 2 * size
        for i in 0..<count {
            r[i] = curves[Int(ir[i])]
            g[i] = curves[Int(ig[i])]
            b[i] = curves[Int(ib[i])]
        }
        let (c0, c1, c2) = stage.columns
        let bias = stage.bias
        let m00 = c0.x, m01 = c1.x, m02 = c2.x, b0 = bias.x
        let m10 = c0.y, m11 = c1.y, m12 = c2.y, b1 = bias.y
        let m20 = c0.z, m21 = c1.z, m22 = c2.z, b2 = bias.z
        for i in 0..<count {
            let x = r[i], y = g[i], z = b[i]
            r[i] = ((m00 * x + m01 * y) + m02 * z) + b0
            g[i] = ((m10 * x + m11 * y) + m12 * z) + b1
            b[i] = ((m20 * x + m21 * y) + m22 * z) + b2
        }
    }

    /// The encode table's index of every value (clampedToUnit · 65536, truncated), then the interleaved store.
    @inline(__always)
    private static func encode(_ r: UnsafePointer<Float>, _ g: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                               _ indices: UnsafeMutablePointer<UInt32>, _ e: UnsafePointer<UInt8>,
                               _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>,
                               count: Int, stride: Int, alpha: Bool) {
        let size = blockSize
        let ir = indices, ig = indices + size, ib = indices + 2 * size
        @inline(__always) func scale(_ plane: UnsafePointer<Float>, _ index: UnsafeMutablePointer<UInt32>) {
            for i in 0..<count {
                let v = plane[i] * 65536
                index[i] = truncated(v > 0 ? (v < 65536 ? v : 65536) : 0)  // NaN would read entry 0
            }
        }
        scale(r, ir)
        scale(g, ig)
        scale(b, ib)
        for i in 0..<count {
            let p = d + i &* stride
            p[0] = e[Int(ir[i])]
            p[1] = e[Int(ig[i])]
            p[2] = e[Int(ib[i])]
            if alpha { p[3] = s[i &* stride &+ 3] }
        }
    }

    /// ⌊x⌋ for 0 ≤ x ≤ 2²² (what `UInt32(x)` gives) without the conversion's range check, which keeps
    /// the loop from vectorising: x + 2²³ rounds x to the nearest integer in the low mantissa bits;
    /// one less when that rounded up.
    @inline(__always)
    static func truncated(_ x: Float) -> UInt32 {
        let shifted = x + 8_388_608
        let rounded = shifted.bitPattern &- (8_388_608 as Float).bitPattern
        return shifted - 8_388_608 > x ? rounded &- 1 : rounded
    }

    /// The operations after the compiled part, in float on the stage's planes, packed as PointChainKernel packs.
    private func runTail(_ planes: UnsafeMutablePointer<Float>, _ s: UnsafePointer<UInt8>,
                         _ d: UnsafeMutablePointer<UInt8>, _ e: UnsafePointer<UInt8>, count: Int, bands: Int,
                         x: Int, y: Int) {
        let size = Self.blockSize
        let block = PixelBlock(red: planes, green: planes + size, blue: planes + 2 * size, alpha: planes + 3 * size,
                               count: count, x: x, y: y, imageWidth: imageWidth, imageHeight: imageHeight)
        let a = block.alpha
        for i in 0..<count { a[i] = bands == 4 ? Float(s[i &* 4 &+ 3]) * (1 / 255) : 1 }
        PlanarPixels.clearPadding(block)
        for operation in tail { operation.apply(block) }
        PlanarPixels.pack8(block, d, bands: bands, encode: e)
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
