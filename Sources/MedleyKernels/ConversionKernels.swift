/// Stored 8/16-bit samples → float working-space samples (alpha 0…1), for graphs with
/// neighbourhood, geometry or compositing steps, which run on floats between one decode and one
/// encode.
public struct DecodeKernel: RowKernel {
    public let tables: TransferTables
    public init(transfer: Transfer) { tables = TransferTables.of(transfer) }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes: Int, outputBytes: Int, x: Int, y: Int) {
        precondition(outputBytes == 4 && (inputBytes == 1 || inputBytes == 2), "decode: 8/16-bit in, float out")
        let out = output.assumingMemoryBound(to: Float.self)
        let hasAlpha = bands == 2 || bands == 4
        let colour = hasAlpha ? bands - 1 : bands
        if inputBytes == 1 {
            let src = input.assumingMemoryBound(to: UInt8.self)
            tables.decode8.withUnsafeBufferPointer { table in
                let t = table.baseAddress!
                if bands == 3 {
                    // The common case: no per-sample branches, so the loop pipelines.
                    for i in 0..<width * 3 { out[i] = t[Int(src[i])] }
                    return
                }
                for p in 0..<width {
                    let base = p * bands
                    for c in 0..<colour { out[base + c] = t[Int(src[base + c])] }
                    if hasAlpha { out[base + colour] = Float(src[base + colour]) * (1 / 255) }
                }
            }
        } else {
            let src = input.assumingMemoryBound(to: UInt16.self)
            tables.decode16.withUnsafeBufferPointer { table in
                let t = table.baseAddress!
                for p in 0..<width {
                    let base = p * bands
                    for c in 0..<colour { out[base + c] = t[Int(src[base + c])] }
                    if hasAlpha { out[base + colour] = Float(src[base + colour]) * (1 / 65535) }
                }
            }
        }
    }
}

/// Float working-space samples → stored 8/16-bit samples, clamping to the 0…1 range.
public struct EncodeKernel: RowKernel {
    public let transfer: Transfer
    public let tables: TransferTables
    public init(transfer: Transfer) {
        self.transfer = transfer
        tables = TransferTables.of(transfer)
    }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes: Int, outputBytes: Int, x: Int, y: Int) {
        precondition(inputBytes == 4 && (outputBytes == 1 || outputBytes == 2), "encode: float in, 8/16-bit out")
        let src = input.assumingMemoryBound(to: Float.self)
        let hasAlpha = bands == 2 || bands == 4
        let colour = hasAlpha ? bands - 1 : bands
        @inline(__always) func unit(_ v: Float) -> Float { v.unitClamped }
        if outputBytes == 1 {
            let out = output.assumingMemoryBound(to: UInt8.self)
            tables.encode8.withUnsafeBufferPointer { table in
                let t = table.baseAddress!
                if bands == 3 {
                    for i in 0..<width * 3 { out[i] = t[Int(unit(src[i]) * 65536)] }
                    return
                }
                for p in 0..<width {
                    let base = p * bands
                    for c in 0..<colour { out[base + c] = t[Int(unit(src[base + c]) * 65536)] }
                    if hasAlpha { out[base + colour] = UInt8(unit(src[base + colour]) * 255 + 0.5) }
                }
            }
        } else {
            let out = output.assumingMemoryBound(to: UInt16.self)
            for p in 0..<width {
                let base = p * bands
                for c in 0..<colour { out[base + c] = UInt16(transfer.encode(src[base + c]) * 65535 + 0.5) }
                if hasAlpha { out[base + colour] = UInt16(unit(src[base + colour]) * 65535 + 0.5) }
            }
        }
    }
}
