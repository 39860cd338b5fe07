/// k-means on a small image's pixels (CIKMeans' job): Lloyd's algorithm in sRGB-encoded RGB with
/// deterministic seeding, so one image always gives the same colours.
///
/// Seeding (maximin, Gonzalez 1985): the first centre is the most common colour after quantising
/// each channel to 4 bits (its mean); each next centre is the pixel farthest from the centres
/// chosen so far, until `count` centres or no pixel lies apart from them. Then at most
/// `iterations` rounds of assign-to-nearest and move-to-mean. Alpha is ignored; fully transparent
/// pixels are left out.
enum DominantColors {
    struct Cluster: Equatable {
        /// 0…255 per channel.
        var centre: SIMD3<Float>
        /// Share of the pixels clustered, 0…1.
        var fraction: Double
    }

    static let defaultCount = 5
    static let iterations = 20

    /// Clusters of interleaved 8-bit pixels of `bands` bands (3 or 4), largest first; empty ones
    /// left out.
    static func clusters(of samples: [UInt8], bands: Int, count: Int = defaultCount) -> [Cluster] {
        guard bands >= 3, count >= 1 else { return [] }
        var points: [SIMD3<Float>] = []
        points.reserveCapacity(samples.count / bands)
        var index = 0
        while index + bands <= samples.count {
            if bands < 4 || samples[index + 3] > 0 {
                points.append(SIMD3(Float(samples[index]), Float(samples[index + 1]), Float(samples[index + 2])))
            }
            index += bands
        }
        guard !points.isEmpty else { return [] }

        var centres = [mostCommonColour(points)]
        var nearest = points.map { distance($0, centres[0]) }
        while centres.count < count {
            var farthest = 0
            for i in points.indices where nearest[i] > nearest[farthest] { farthest = i }
            // Nothing lies more than one 8-bit step from a centre: the colours are all found.
            guard nearest[farthest] > 1 else { break }
            centres.append(points[farthest])
            for i in points.indices { nearest[i] = min(nearest[i], distance(points[i], points[farthest])) }
        }

        var members = [Int](repeating: 0, count: centres.count)
        var assignment = [Int](repeating: -1, count: points.count)
        for _ in 0..<iterations {
            var sums = [SIMD3<Float>](repeating: .zero, count: centres.count)
            members = [Int](repeating: 0, count: centres.count)
            var moved = false
            for (i, point) in points.enumerated() {
                var best = 0, bestDistance = Float.infinity
                for (k, centre) in centres.enumerated() {
                    let d = distance(point, centre)
                    if d < bestDistance { (best, bestDistance) = (k, d) }
                }
                if assignment[i] != best { moved = true }
                assignment[i] = best
                sums[best] += point
                members[best] += 1
            }
            for k in centres.indices where members[k] > 0 { centres[k] = sums[k] / Float(members[k]) }
            if !moved { break }
        }
        let total = Double(points.count)
        return centres.indices.filter { members[$0] > 0 }
            .map { Cluster(centre: centres[$0], fraction: Double(members[$0]) / total) }
            .sorted { $0.fraction != $1.fraction ? $0.fraction > $1.fraction : $0.centre.sum() < $1.centre.sum() }
    }

    /// The mean of the pixels of the most populous cell of a 16 × 16 × 16 grid (ties: the lowest cell).
    private static func mostCommonColour(_ points: [SIMD3<Float>]) -> SIMD3<Float> {
        var counts = [Int](repeating: 0, count: 4096)
        var sums = [SIMD3<Float>](repeating: .zero, count: 4096)
        for point in points {
            let cell = Int(point.x) / 16 * 256 + Int(point.y) / 16 * 16 + Int(point.z) / 16
            counts[cell] += 1
            sums[cell] += point
        }
        var best = 0
        for cell in counts.indices where counts[cell] > counts[best] { best = cell }
        return sums[best] / Float(counts[best])
    }

    @inline(__always)
    private static func distance(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
        let d = a - b
        return (d * d).sum().squareRoot()
    }
}
