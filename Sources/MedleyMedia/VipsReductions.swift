import CVipsShim

/// Reductions of a libvips image to a few numbers: each reads every pixel once (a sequentially
/// opened image streams through; open it again for another reduction).
extension VipsImage {
    /// The mean of each band's samples, as `vips stats` (and `vips avg` of one band) computes it.
    public func bandMeans() throws -> [Double] {
        var means = [Double](repeating: 0, count: max(1, bands))
        let count = means.withUnsafeMutableBufferPointer { medley_image_band_means(handle, $0.baseAddress, Int32($0.count)) }
        guard count >= 0 else { throw MediaError(.libvips, "measure", "cannot compute the image's statistics: \(Vips.takeError())") }
        return Array(means.prefix(Int(count)))
    }

    /// 256 counts per band of an 8-bit image (`vips hist_find`): `[band][sample value]`.
    public func histograms() throws -> [[Int]] {
        let bandCount = max(1, bands)
        var counts = [Double](repeating: 0, count: bandCount * 256)
        let found = counts.withUnsafeMutableBufferPointer { medley_image_histogram(handle, $0.baseAddress, Int32($0.count)) }
        guard found >= 0 else { throw MediaError(.libvips, "measure", "cannot compute the image's histogram: \(Vips.takeError())") }
        // Counts are whole numbers under the pixel limit, far inside Int's range.
        return (0..<min(Int(found), bandCount)).map { band in
            counts[band * 256 ..< band * 256 + 256].map { $0.isFinite && $0 >= 0 && $0 < 9e15 ? Int($0) : 0 }
        }
    }

    /// Relative luminance (libvips' B_W: Y of CIE XYZ, sRGB-encoded) as 8-bit grey, from an 8-bit sRGB image.
    public func luminance() throws -> VipsImage {
        try Self.wrap(medley_image_luminance(handle), "cannot compute the luminance")
    }
}
