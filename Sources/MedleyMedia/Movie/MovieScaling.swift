/// How a transcoded picture fills its preset's box (the movie player's `MPMovieScalingMode`).
public enum MovieScalingMode: String, Sendable, CaseIterable {
    /// Inside the box, proportions kept: the output is as large as fits (no bars are added).
    case aspectFit
    /// Covers the box, proportions kept: the output is the box, the source's centre is cropped.
    case aspectFill
    /// Stretched to the box exactly.
    case fill
    /// The source size, whatever the box.
    case none
}

/// Where a picture lands: the output size and the rectangle of the source scaled to it. Pure
/// geometry, in square pixels; H.264 with 4:2:0 chroma needs even sizes, so every output side
/// is even (at least 2) and crops start on even coordinates.
public struct MovieGeometry: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var cropX: Int
    public var cropY: Int
    public var cropWidth: Int
    public var cropHeight: Int

    public init(width: Int, height: Int, cropX: Int, cropY: Int, cropWidth: Int, cropHeight: Int) {
        self.width = width
        self.height = height
        self.cropX = cropX
        self.cropY = cropY
        self.cropWidth = cropWidth
        self.cropHeight = cropHeight
    }

    /// Fits a `sourceWidth` × `sourceHeight` picture to a box. Without `upscale` the box first
    /// shrinks to the source in each dimension, so nothing grows (a "max W×H" preset).
    /// With no box, or `.none`, the source keeps its size (cut to even sides).
    public static func fitting(sourceWidth: Int, sourceHeight: Int, boxWidth: Int?, boxHeight: Int?,
                               mode: MovieScalingMode, upscale: Bool) -> MovieGeometry {
        let w = max(1, sourceWidth), h = max(1, sourceHeight)
        let whole = MovieGeometry(width: evenFloor(w), height: evenFloor(h), cropX: 0, cropY: 0,
                                  cropWidth: min(w, evenFloor(w)), cropHeight: min(h, evenFloor(h)))
        guard mode != .none, let boxWidth, let boxHeight, boxWidth > 0, boxHeight > 0 else { return whole }
        let limitWidth = upscale ? boxWidth : min(boxWidth, w), limitHeight = upscale ? boxHeight : min(boxHeight, h)
        let bw = Double(limitWidth), bh = Double(limitHeight), sw = Double(w), sh = Double(h)
        switch mode {
        case .none:
            return whole
        case .fill:
            return MovieGeometry(width: even(bw, limit: limitWidth), height: even(bh, limit: limitHeight),
                                 cropX: 0, cropY: 0, cropWidth: w, cropHeight: h)
        case .aspectFit:
            let scale = min(bw / sw, bh / sh)
            return MovieGeometry(width: even(sw * scale, limit: limitWidth), height: even(sh * scale, limit: limitHeight),
                                 cropX: 0, cropY: 0, cropWidth: w, cropHeight: h)
        case .aspectFill:
            let scale = max(bw / sw, bh / sh)
            let width = even(bw, limit: limitWidth), height = even(bh, limit: limitHeight)
            let cropWidth = min(w, Int((Double(width) / scale).rounded()))
            let cropHeight = min(h, Int((Double(height) / scale).rounded()))
            return MovieGeometry(width: width, height: height, cropX: (w - cropWidth) / 2 & ~1,
                                 cropY: (h - cropHeight) / 2 & ~1, cropWidth: cropWidth, cropHeight: cropHeight)
        }
    }

    /// The nearest even whole number, at least 2 and at most `limit` (rounded down to even).
    private static func even(_ value: Double, limit: Int) -> Int {
        let rounded = Int((value / 2).rounded()) * 2
        return max(2, min(rounded, evenFloor(limit)))
    }

    private static func evenFloor(_ value: Int) -> Int { max(2, value & ~1) }
}
