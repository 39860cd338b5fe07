/// The 8-bit ends of the planar float blocks, shared by PointChainKernel and CompiledChainKernel's tail.
enum PlanarPixels {
    /// Lanes past `count` hold harmless values, so operations can run whole vectors.
    static func clearPadding(_ block: PixelBlock) {
        for i in block.count..<block.paddedCount {
            block.red[i] = 0; block.green[i] = 0; block.blue[i] = 0; block.alpha[i] = 1
        }
    }

    /// The block clamped to 0…1 and encoded through `encode` (the transfer's 8-bit encode table of
    /// 65,537 entries, indexed by value · 65536), interleaved into RGB or RGBA; alpha is linear.
    @inline(__always)
    static func pack8(_ block: PixelBlock, _ dst: UnsafeMutablePointer<UInt8>, bands: Int,
                      encode t: UnsafePointer<UInt8>) {
        @inline(__always) func index(_ v: Float) -> Int { Int(v.clampedToUnit * 65536) }
        let r = block.red, g = block.green, b = block.blue, a = block.alpha
        if bands == 3 {
            for i in 0..<block.count {
                let p = dst + i &* 3
                p[0] = t[index(r[i])]
                p[1] = t[index(g[i])]
                p[2] = t[index(b[i])]
            }
        } else {
            for i in 0..<block.count {
                let p = dst + i &* 4
                p[0] = t[index(r[i])]
                p[1] = t[index(g[i])]
                p[2] = t[index(b[i])]
                p[3] = UInt8(a[i].clampedToUnit * 255 + 0.5)
            }
        }
    }
}
