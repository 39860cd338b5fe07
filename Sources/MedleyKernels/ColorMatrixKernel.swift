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

    public init(matrix: ColorMatrix, transfer: Transfer) {
        self.matrix = matrix
        self.transfer = transfer
        let unit = Float(Self.unit)
        var tables = [SIMD4<Int32>](repeating: .zero, count: 3 * 256)
        for k in 0..<3 {
            for v in 0..<256 {
                let linear = transfer.decode(Float(v) / 255)
                var lanes = SIMD4<Int32>.zero
                for c in 0..<3 {
                    var value = matrix.rows[c][k] * linear
                    if k == 0 { value += matrix.bias[c] }
                    // Held to ±2²⁸ so three lanes and the bias sum without overflow; NaN counts as 0. Output
                    // is clamped to 0…unit anyway, so nothing beyond that range can show.
                    let scaled = (value * unit).rounded()
                    lanes[c] = scaled > -268_435_456 ? (scaled < 268_435_456 ? Int32(scaled) : 268_435_456)
                        : (scaled.isNaN ? 0 : -268_435_456)
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

    @inline(__always)
    private static func loop8(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ width: Int,
                              stride: Int, _ t: UnsafePointer<SIMD4<Int32>>, _ e: UnsafePointer<UInt8>,
                              alpha: Bool) {
        let low = SIMD4<Int32>(repeating: 0)
        let high = SIMD4<Int32>(repeating: Int32(unit))
        var s = src
        var d = dst
        for _ in 0..<width {
            var sum = t[Int(s[0])] &+ t[256 &+ Int(s[1])]
            sum &+= t[512 &+ Int(s[2])]
            sum = sum.clamped(lowerBound: low, upperBound: high)
            d[0] = e[Int(sum.x)]
            d[1] = e[Int(sum.y)]
            d[2] = e[Int(sum.z)]
            if alpha { d[3] = s[3] }
            s += stride
            d += stride
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
