/// Runs a chain of `PointOperation`s over rows in one pass: stored samples are decoded into
/// planar working-space floats a block at a time, every operation runs on the block while it
/// is in cache, and the result is encoded back. This is the fused loop the optimiser emits for
/// point-wise chains that are not a single colour matrix.
public final class PointChainKernel: RowKernel {
    public let operations: [PointOperation]
    public let transfer: Transfer
    public let imageWidth: Int
    public let imageHeight: Int

    /// Pixels per block: four planes of 256 floats stay inside L1.
    static let blockSize = 256

    private let tables: TransferTables

    public init(operations: [PointOperation], transfer: Transfer, imageWidth: Int, imageHeight: Int) {
        self.operations = operations
        self.transfer = transfer
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        tables = TransferTables.of(transfer)
    }

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes sampleBytes: Int, outputBytes: Int, x: Int, y: Int) {
        precondition(bands == 3 || bands == 4, "point chains run on RGB or RGBA rows")
        precondition(sampleBytes == outputBytes, "point chains keep the sample format")
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: 4 * Self.blockSize)
        defer { planes.deallocate() }
        let r = planes, g = planes + Self.blockSize, b = planes + 2 * Self.blockSize, a = planes + 3 * Self.blockSize
        var start = 0
        while start < width {
            let count = min(Self.blockSize, width - start)
            let block = PixelBlock(red: r, green: g, blue: b, alpha: a, count: count, x: x + start, y: y,
                                   imageWidth: imageWidth, imageHeight: imageHeight)
            switch sampleBytes {
            case 1: unpack8(input.assumingMemoryBound(to: UInt8.self) + start * bands, block, bands: bands)
            case 2: unpack16(input.assumingMemoryBound(to: UInt16.self) + start * bands, block, bands: bands)
            default: unpackFloat(input.assumingMemoryBound(to: Float.self) + start * bands, block, bands: bands)
            }
            for operation in operations { operation.apply(block) }
            switch sampleBytes {
            case 1: pack8(block, output.assumingMemoryBound(to: UInt8.self) + start * bands, bands: bands)
            case 2: pack16(block, output.assumingMemoryBound(to: UInt16.self) + start * bands, bands: bands)
            default: packFloat(block, output.assumingMemoryBound(to: Float.self) + start * bands, bands: bands)
            }
            start += count
        }
    }

    private func unpack8(_ src: UnsafePointer<UInt8>, _ block: PixelBlock, bands: Int) {
        tables.decode8.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            let r = block.red, g = block.green, b = block.blue, a = block.alpha
            if bands == 3 {
                for i in 0..<block.count {
                    let p = src + i &* 3
                    r[i] = t[Int(p[0])]
                    g[i] = t[Int(p[1])]
                    b[i] = t[Int(p[2])]
                    a[i] = 1
                }
            } else {
                for i in 0..<block.count {
                    let p = src + i &* 4
                    r[i] = t[Int(p[0])]
                    g[i] = t[Int(p[1])]
                    b[i] = t[Int(p[2])]
                    a[i] = Float(p[3]) * (1 / 255)
                }
            }
            PlanarPixels.clearPadding(block)
        }
    }

    private func unpack16(_ src: UnsafePointer<UInt16>, _ block: PixelBlock, bands: Int) {
        tables.decode16.withUnsafeBufferPointer { table in
            for i in 0..<block.paddedCount {
                guard i < block.count else {
                    block.red[i] = 0; block.green[i] = 0; block.blue[i] = 0; block.alpha[i] = 1
                    continue
                }
                let p = src + i * bands
                block.red[i] = table[Int(p[0])]
                block.green[i] = table[Int(p[1])]
                block.blue[i] = table[Int(p[2])]
                block.alpha[i] = bands == 4 ? Float(p[3]) / 65535 : 1
            }
        }
    }

    /// Float rows are already in the working space: deinterleave only.
    private func unpackFloat(_ src: UnsafePointer<Float>, _ block: PixelBlock, bands: Int) {
        for i in 0..<block.paddedCount {
            guard i < block.count else {
                block.red[i] = 0; block.green[i] = 0; block.blue[i] = 0; block.alpha[i] = 1
                continue
            }
            let p = src + i * bands
            block.red[i] = p[0]
            block.green[i] = p[1]
            block.blue[i] = p[2]
            block.alpha[i] = bands == 4 ? p[3] : 1
        }
    }

    private func packFloat(_ block: PixelBlock, _ dst: UnsafeMutablePointer<Float>, bands: Int) {
        for i in 0..<block.count {
            let p = dst + i * bands
            p[0] = block.red[i]
            p[1] = block.green[i]
            p[2] = block.blue[i]
            if bands == 4 { p[3] = block.alpha[i] }
        }
    }

    private func pack8(_ block: PixelBlock, _ dst: UnsafeMutablePointer<UInt8>, bands: Int) {
        tables.encode8.withUnsafeBufferPointer { table in
            PlanarPixels.pack8(block, dst, bands: bands, encode: table.baseAddress!)
        }
    }

    private func pack16(_ block: PixelBlock, _ dst: UnsafeMutablePointer<UInt16>, bands: Int) {
        for i in 0..<block.count {
            let p = dst + i * bands
            p[0] = UInt16((transfer.encode(block.red[i]) * 65535).rounded())
            p[1] = UInt16((transfer.encode(block.green[i]) * 65535).rounded())
            p[2] = UInt16((transfer.encode(block.blue[i]) * 65535).rounded())
            if bands == 4 { p[3] = UInt16((block.alpha[i].clampedToUnit * 65535).rounded()) }
        }
    }
}
