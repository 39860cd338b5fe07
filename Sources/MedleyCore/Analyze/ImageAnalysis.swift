import MedleyFilters
import MedleyMedia

/// An image analysis a job asks for with `analyze:` (beside the audio's `metering`). Core Image
/// offers these as reduction filters returning tiny images (CIAreaAverage: 1×1, CIAreaHistogram:
/// count×1, CIKMeans: k×1); Medley's graph exports one image per item, so the reductions are
/// measurements in the item's manifest line instead.
public enum ImageAnalysisKind: String, CaseIterable, Sendable, Comparable {
    /// The mean of each band (CIAreaAverage over the whole extent).
    case averageColor
    /// 256 bins per colour band and of luminance (CIAreaHistogram with inputCount 256, inputScale 1).
    case histogram
    /// The main colours and the share of the picture each covers (CIKMeans).
    case dominantColors

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Computes `ImageAnalysis` from an image file with libvips reductions (`vips stats`, `vips
/// hist_find`) and, for dominant colours, k-means in Swift on a downsampled copy. Each reduction
/// streams the file once (sequential access), so memory stays at a few strips whatever its size.
enum ImageAnalyzer {
    /// The longest side of the copy k-means runs on: at most 128 × 128 = 16,384 pixels, so the
    /// work per item is bounded whatever the image's size.
    static let clusteringSide = 128

    static func analyze(fileAt path: String, _ kinds: Set<ImageAnalysisKind>) throws -> ImageAnalysis {
        var result = ImageAnalysis()
        // The file as 8-bit sRGB (grey widened to three bands), opened afresh for each reduction.
        func samples() throws -> VipsImage {
            try VipsImage.open(path, access: .sequential).inRGBSpace().image.rgb(deep: false)
        }
        if kinds.contains(.averageColor) {
            let means = try samples().bandMeans()
            guard means.count >= 3 else { throw MediaError(.medley, "analyze", "an image of \(means.count) bands has no colour to average", cause: .unsupported) }
            let rgba = Array(means.prefix(3)) + [means.count >= 4 ? means[3] : 255]
            result.averageColor = rgba.map { ImageAnalysis.rounded($0 / 255) }
            result.averageColorHex = ImageAnalysis.hex(rgba)
        }
        if kinds.contains(.histogram) {
            let bands = try samples().histograms()
            guard bands.count >= 3 else { throw MediaError(.medley, "analyze", "an image of \(bands.count) bands has no colour histogram", cause: .unsupported) }
            let luminance = try samples().luminance().histograms().first
            result.histogram = .init(bins: 256, red: bands[0], green: bands[1], blue: bands[2], luminance: luminance)
        }
        if kinds.contains(.dominantColors) {
            let side = clusteringSide
            let small = try VipsImage.thumbnail(path, width: side, height: side, crop: .none, force: false)
                .inRGBSpace().image.rgb(deep: false)
            let pixels = try small.pixels()
            let clusters = DominantColors.clusters(of: pixels, bands: small.bands)
            result.dominantColors = clusters.map {
                .init(color: ImageAnalysis.hex([Double($0.centre.x), Double($0.centre.y), Double($0.centre.z)]),
                      fraction: ImageAnalysis.rounded($0.fraction))
            }
        }
        return result
    }
}
