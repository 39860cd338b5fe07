import MedleyKernels

/// The cell layouts of the crystallize, pointillize and hexagonal filters, in Core Image
/// coordinates (origin bottom-left, y up).
enum CellLayout {
    /// The seed of grid cell (i, j): spacing `size`, anchored at the centre, jittered inside its cell
    /// by a deterministic hash (`cellJitter`).
    static func seed(_ i: Int, _ j: Int, size: Float, centreX: Float, centreY: Float) -> SIMD2<Float> {
        let jitter = cellJitter(i, j)
        return SIMD2(centreX + size * (Float(i) + jitter.x), centreY + size * (Float(j) + jitter.y))
    }

    /// The cell index of a coordinate, held in a range no Int conversion traps on.
    static func cell(_ value: Float, _ origin: Float, _ size: Float) -> Int {
        Int(saturating: Double(((value - origin) / size).rounded(.down)), in: -(1 << 30)...(1 << 30))
    }

    /// The nearest seed to (x, y) and its squared distance: the seed of (x, y)'s own cell or one of its
    /// eight neighbours (a seed lies inside its cell, so no farther one can be nearer).
    static func nearestSeed(_ x: Float, _ y: Float, size: Float, centreX: Float, centreY: Float) -> (SIMD2<Float>, Float) {
        let i = cell(x, centreX, size), j = cell(y, centreY, size)
        var best = SIMD2<Float>(x, y), bestDistance = Float.infinity
        for dj in -1...1 {
            for di in -1...1 {
                let s = seed(i + di, j + dj, size: size, centreX: centreX, centreY: centreY)
                let d = (s - SIMD2(x, y)) * (s - SIMD2(x, y))
                let distance = d.x + d.y
                if distance < bestDistance { bestDistance = distance; best = s }
            }
        }
        return (best, bestDistance)
    }
}
