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
        let colour = bands == 4 || bands == 2 ? bands - 1 : bands
        if inputBytes == 1 {
            let src = input.assumingMemoryBound(to: UInt8.self)
            tables.decode8.withUnsafeBufferPointer { table in
                for i in 0..<width * bands {
                    out[i] = i % bands < colour ? table[Int(src[i])] : Float(src[i]) / 255
                }
            }
        } else {
            let src = input.assumingMemoryBound(to: UInt16.self)
            tables.decode16.withUnsafeBufferPointer { table in
                for i in 0..<width * bands {
                    out[i] = i % bands < colour ? table[Int(src[i])] : Float(src[i]) / 65535
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
        let colour = bands == 4 || bands == 2 ? bands - 1 : bands
        if outputBytes == 1 {
            let out = output.assumingMemoryBound(to: UInt8.self)
            tables.encode8.withUnsafeBufferPointer { table in
                for i in 0..<width * bands {
                    let v = min(max(src[i], 0), 1)
                    out[i] = i % bands < colour ? table[Int(v * 65536)] : UInt8((v * 255).rounded())
                }
            }
        } else {
            let out = output.assumingMemoryBound(to: UInt16.self)
            for i in 0..<width * bands {
                let v = min(max(src[i], 0), 1)
                out[i] = UInt16(((i % bands < colour ? transfer.encode(v) : v) * 65535).rounded())
            }
        }
    }
}
