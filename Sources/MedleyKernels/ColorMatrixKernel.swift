/// Applies a `ColorMatrix` in a working space (`Transfer`) to 8- or 16-bit RGB(A) rows.
///
/// 8-bit rows never touch floating point per pixel. Because the matrix is linear,
/// `out_c = encode(Σ_k M[c][k] · decode(in_k) + bias_c)` splits into one table per input
/// channel: `table_k[v]` holds the three products `M[·][k] · decode(v)` in 16.16 fixed
/// point, so a pixel is three 16-byte table loads, two vector adds, a clamp and three
/// lookups in a 65,537-entry encode table (fine enough that the steep start of the sRGB
/// curve stays within half a step of 8-bit output). 16-bit rows go through floats.
public final class ColorMatrixKernel: RowKernel {
    public let matrix: ColorMatrix
    public let transfer: Transfer

    /// Fixed-point scale of the 8-bit path: 1.0 in working space is `unit`.
    static let unitShift = 16
    static let unit = 1 << unitShift

    /// `channelTables[k * 256 + v]` = (M[0][k], M[1][k], M[2][k]) · decode(v/255) · unit,
    /// with the bias folded into channel 0's table. The fourth lane is unused.
    private let channelTables: [SIMD4<Int32>]
    /// The transfer function's shared tables (8-bit encode, 16-bit decode).
    private let tables: TransferTables

    public convenience init(matrix: ColorMatrix, transfer: Transfer) {
        self.init(matrix: matrix, transfer: transfer, decoded: nil)
    }

    /// `decoded[k][v]`, when given, replaces `transfer.decode(v / 255)` as input channel k's value of
    /// 8-bit sample v: per-channel curves before the matrix (CompiledChainKernel) fold into the tables.
    /// The 16-bit path ignores it and must not be used with it.
    init(matrix: ColorMatrix, transfer: Transfer, decoded: [[Float]]?) {
        self.matrix = matrix
        self.transfer = transfer
        let unit = Float(Self.unit)
        var tables = [SIMD4<Int32>](repeating: .zero, count: 3 * 256)
        for k in 0..<3 {
            for v in 0..<256 {
                let linear = decoded?[k][v] ?? transfer.decode(Float(v) / 255)
                var lanes = SIMD4<Int32>.zero
                for c in 0..<3 {
                    var value = matrix.rows[c][k] * linear
                    if k == 0 { value += matrix.bias[c] }
                    // Clamped to ±2^28 (±4096 in working units, far past what any output can show)
                    // so three entries add without overflow; NaN (from ∞ · 0) counts as 0.
                    let fixed = value * unit
                    lanes[c] = fixed > -268_435_456 ? (fixed < 268_435_456 ? Int32(fixed.rounded()) : 268_435_456) : (fixed.isNaN ? 0 : -268_435_456)
                }
                tables[k * 256 + v] = lanes
            }
        }
        channelTables = tables
        self.tables = TransferTables.of(transfer)
    }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes sampleBytes: Int, outputBytes: Int, x: Int, y: Int) {
        precondition(bands == 3 || bands == 4, "colour matrix rows are RGB or RGBA")
        precondition(sampleBytes == outputBytes && sampleBytes <= 2, "colour matrix rows are 8- or 16-bit in and out")
        if sampleBytes == 1 {
            apply8(input.assumingMemoryBound(to: UInt8.self),
                   output.assumingMemoryBound(to: UInt8.self), width: width, bands: bands)
        } else {
            apply16(input.assumingMemoryBound(to: UInt16.self),
                    output.assumingMemoryBound(to: UInt16.self), width: width, bands: bands)
        }
    }

    private func apply8(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
                        width: Int, bands: Int) {
        channelTables.withUnsafeBufferPointer { tables in
            self.tables.encode8.withUnsafeBufferPointer { encode in
                // Separate loops for RGB and RGBA keep the per-pixel path free of branches.
                if bands == 3 {
                    Self.loop8(src, dst, width, stride: 3, tables.baseAddress!, encode.baseAddress!, alpha: false)
                } else {
                    Self.loop8(src, dst, width, stride: 4, tables.baseAddress!, encode.baseAddress!, alpha: true)
                }
            }
        }
    }

    /// Pixels per block of `loop8`: its scratch holds one block's encode-table indices.
    static let block = 64

    /// The row in blocks of 64 pixels, each in two passes. The first sums the three channel
    /// tables per pixel and packs two pixels' sums to unsigned 16 bits at a time (`vpackusdw`),
    /// which is also the clamp to the encode table's range (0…65535 encodes as 0…65536 would),
    /// into a scratch buffer; the second reads those indices back and looks the output up.
    /// Two passes keep the optimiser from turning the scratch into per-lane extracts and scalar
    /// clamps, which cost more than the stores and loads they replace.
    @inline(__always)
    private static func loop8(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                              stride: Int, _ t: UnsafePointer<SIMD4<Int32>>, _ e: UnsafePointer<UInt8>,
                              alpha: Bool) {
        let low = SIMD8<Int32>(repeating: 0)
        let high = SIMD8<Int32>(repeating: 65535)
        @inline(__always) func sum(_ p: UnsafePointer<UInt8>) -> SIMD4<Int32> {
            t[Int(p[0])] &+ t[256 &+ Int(p[1])] &+ t[512 &+ Int(p[2])]
        }
        @inline(__always) func packed(_ a: SIMD4<Int32>, _ b: SIMD4<Int32>) -> SIMD8<UInt16> {
            SIMD8<UInt16>(truncatingIfNeeded: SIMD8(lowHalf: a, highHalf: b).clamped(lowerBound: low, upperBound: high))
        }
        // Eight bytes (four UInt16 lanes) per pixel, plus room for the odd pixel's 16-byte store.
        withUnsafeTemporaryAllocation(byteCount: block * 8 + 16, alignment: 16) { scratch in
            let indices = scratch.baseAddress!
            var s = src
            var d = dst
            var left = width
            while left > 0 {
                let n = min(left, block)
                var i = 0
                while i &+ 1 < n {
                    let p = s + i &* stride
                    indices.storeBytes(of: packed(sum(p), sum(p + stride)), toByteOffset: i &* 8, as: SIMD8<UInt16>.self)
                    i &+= 2
                }
                if i < n {
                    indices.storeBytes(of: packed(sum(s + i &* stride), .zero), toByteOffset: i &* 8, as: SIMD8<UInt16>.self)
                }
                for i in 0..<n {
                    let o = i &* stride
                    let lane = i &* 8
                    d[o] = e[Int(indices.load(fromByteOffset: lane, as: UInt16.self))]
                    d[o &+ 1] = e[Int(indices.load(fromByteOffset: lane &+ 2, as: UInt16.self))]
                    d[o &+ 2] = e[Int(indices.load(fromByteOffset: lane &+ 4, as: UInt16.self))]
                    if alpha { d[o &+ 3] = s[o &+ 3] }
                }
                s += n &* stride
                d += n &* stride
                left &-= n
            }
        }
    }

    private func apply16(_ src: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<UInt16>,
                         width: Int, bands: Int) {
        self.tables.decode16.withUnsafeBufferPointer { decode in
            let r0 = matrix.rows[0], r1 = matrix.rows[1], r2 = matrix.rows[2]
            let bias = matrix.bias
            for x in 0..<width {
                let p = x * bands
                let rgb = SIMD3(decode[Int(src[p])], decode[Int(src[p + 1])], decode[Int(src[p + 2])])
                let out = SIMD3((r0 * rgb).sum(), (r1 * rgb).sum(), (r2 * rgb).sum()) + bias
                dst[p] = UInt16((transfer.encode(out.x) * 65535).rounded())
                dst[p + 1] = UInt16((transfer.encode(out.y) * 65535).rounded())
                dst[p + 2] = UInt16((transfer.encode(out.z) * 65535).rounded())
                if bands == 4 { dst[p + 3] = src[p + 3] }
            }
        }
    }
}
