/// Replaces each square cell of a grid by the cell's average colour. The grid is anchored so that
/// a cell corner sits at (originX, originY) in pixel coordinates (y down).
public struct PixellateKernel: RegionKernel {
    public let cellSize: Int
    public let originX: Double
    /// Core Image's centre y counts up from the bottom; converted per image in `apply`.
    public let originYFromBottom: Double
    public var margin: Int { cellSize }

    public init(cellSize: Int, originX: Double, originYFromBottom: Double) {
        self.cellSize = max(1, cellSize)
        // Moving the origin by whole cells leaves the grid where it was: keep it within one cell, so the cell
        // arithmetic stays in range whatever centre a pipeline gives (∞ or NaN: the image's corner).
        func withinOneCell(_ origin: Double) -> Double {
            origin.isFinite ? origin.truncatingRemainder(dividingBy: Double(max(1, cellSize))) : 0
        }
        self.originX = withinOneCell(originX)
        self.originYFromBottom = withinOneCell(originYFromBottom)
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let s = cellSize
        let originY = Double(imageHeight) - originYFromBottom
        // Cell index of an image coordinate, and the first coordinate of a cell.
        func cell(_ v: Int, _ origin: Double) -> Int { Int(((Double(v) - origin) / Double(s)).rounded(.down)) }
        func start(_ k: Int, _ origin: Double) -> Int { Int((origin + Double(k * s)).rounded(.up)) }
        var sums = [Float](repeating: 0, count: bands)
        for cy in cell(y, originY)...cell(y + height - 1, originY) {
            let top = start(cy, originY), bottom = start(cy + 1, originY)
            for cx in cell(x, originX)...cell(x + width - 1, originX) {
                let left = start(cx, originX), right = start(cx + 1, originX)
                // Average over the cell as far as the margin reaches (edges extend by copying).
                let readTop = max(top, y - margin), readBottom = min(bottom, y + height + margin)
                let readLeft = max(left, x - margin), readRight = min(right, x + width + margin)
                guard readBottom > readTop, readRight > readLeft else { continue }
                for b in 0..<bands { sums[b] = 0 }
                for iy in readTop..<readBottom {
                    let row = input + (iy - y + margin) * inputStride
                    for ix in readLeft..<readRight {
                        let p = row + (ix - x + margin) * bands
                        for b in 0..<bands { sums[b] += p[b] }
                    }
                }
                let count = Float((readBottom - readTop) * (readRight - readLeft))
                for oy in max(top, y)..<min(bottom, y + height) {
                    let row = output + (oy - y) * outputStride
                    for ox in max(left, x)..<min(right, x + width) {
                        let p = row + (ox - x) * bands
                        for b in 0..<bands { p[b] = sums[b] / count }
                    }
                }
            }
        }
    }
}
