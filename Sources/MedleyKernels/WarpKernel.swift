/// Where each output pixel of a warp looks in its input: distortions, projective warps, clamps
/// and tiles. Positions are in Core Image's coordinates (origin at the bottom-left, y up, pixel
/// centres at half-integers), so filters state their maths as Core Image documents it.
public protocol WarpMap: Sendable {
    /// The output's size for an input of the given size (most warps keep it).
    func outputSize(inputWidth: Double, inputHeight: Double) -> (width: Double, height: Double)
    /// The input position that output position (x, y) shows, or nil where the output is empty.
    func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)?
}

extension WarpMap {
    public func outputSize(inputWidth: Double, inputHeight: Double) -> (width: Double, height: Double) {
        (inputWidth, inputHeight)
    }
}

/// What a warp shows where it looks outside its input.
public enum WarpEdges: Sendable, Equatable {
    /// The nearest edge pixel (the image's edges extend for ever, as CIAffineClamp's do).
    case clamp
    /// The input repeated in both directions (CIAffineTile).
    case wrap
    /// Nothing: transparent black (Core Image's clear outside an extent).
    case transparent
}

/// Writes, for each output pixel, the input pixel position a warp samples (two float bands: x and
/// y in libvips' pixel coordinates, y down, pixel centres at integers), for libvips' `mapim`.
public struct WarpIndexKernel: RowKernel {
    public let map: WarpMap
    public let edges: WarpEdges
    public let outputHeight: Int
    public let inputWidth: Int
    public let inputHeight: Int

    public init(map: WarpMap, edges: WarpEdges, outputHeight: Int, inputWidth: Int, inputHeight: Int) {
        self.map = map
        self.edges = edges
        self.outputHeight = outputHeight
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
    }

    /// Far enough outside any input that bilinear sampling there reads only the background.
    static let nowhere: Float = -16

    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
                      inputBytes: Int, outputBytes: Int, x: Int, y: Int) {
        guard bands >= 2, outputBytes == 4 else { return }
        let out = output.assumingMemoryBound(to: Float.self)
        let w = Double(inputWidth), h = Double(inputHeight)
        let ciY = Double(outputHeight - y) - 0.5
        for i in 0..<width {
            var px = Double(Self.nowhere), py = Double(Self.nowhere)
            if let s = map.source(x: Double(x + i) + 0.5, y: ciY, inputWidth: w, inputHeight: h),
               s.x.isFinite, s.y.isFinite {
                px = s.x - 0.5
                py = h - s.y - 0.5
                switch edges {
                case .clamp:
                    px = min(max(px, 0), w - 1)
                    py = min(max(py, 0), h - 1)
                case .wrap:
                    // Wrapped on pixel edges (−0.5 … w − 0.5), then kept on the pixel centres the
                    // bilinear sampler can reach without leaving the input.
                    px = min(max(Self.wrapped(px + 0.5, w) - 0.5, 0), w - 1)
                    py = min(max(Self.wrapped(py + 0.5, h) - 0.5, 0), h - 1)
                case .transparent:
                    // Anything beyond one pixel outside reads only the background; keep the numbers small.
                    if !(px > -2 && px < w + 1 && py > -2 && py < h + 1) {
                        px = Double(Self.nowhere)
                        py = Double(Self.nowhere)
                    }
                }
            }
            out[i * bands] = Float(px)
            out[i * bands + 1] = Float(py)
        }
    }

    /// v modulo period, in 0 ..< period (also for huge or negative v).
    static func wrapped(_ v: Double, _ period: Double) -> Double {
        let r = v.truncatingRemainder(dividingBy: period)
        return r < 0 ? r + period : r
    }
}
