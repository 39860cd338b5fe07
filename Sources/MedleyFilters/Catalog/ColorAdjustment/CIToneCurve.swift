import MedleyKernels

/// CIToneCurve: one curve through five points, applied to R, G and B alike.
///
/// Apple documents that the points are "interpolated using a spline curve" and that "the curve is
/// applied in a perceptual (gamma 2) version of the working space", but not which spline. Medley
/// uses the Fritsch–Carlson monotone cubic (it never overshoots between points, and collinear
/// points give a straight line), flat beyond the first and last points, evaluated as
/// `out = f(√in)²` on in clamped to 0…1. The curve is sampled once into a 1024-entry table;
/// pixels interpolate it linearly.
enum ToneCurve: FilterDefinition {
    static let identityPoints: [[Double]] = [[0, 0], [0.25, 0.25], [0.5, 0.5], [0.75, 0.75], [1, 1]]
    static let ordinals = ["first", "second", "third", "fourth", "fifth"]

    static let attributes = FilterAttributes(
        name: "CIToneCurve",
        displayName: "Tone Curve",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Adjusts tone response of the R, G, and B channels of an image.",
        reference: "Fritsch–Carlson monotone cubic spline through the five points (flat outside them), "
            + "applied per channel in Apple's perceptual gamma-2 space: out = f(√in)², in clamped to 0…1",
        parameters: [.inputImage] + identityPoints.indices.map { i in
            ParameterAttributes(
                name: "inputPoint\(i)", type: .offset, displayName: "Point \(i)",
                description: "A vector containing the position of the \(ordinals[i]) point of the tone curve.",
                defaultValue: .vector(identityPoints[i]), identity: .vector(identityPoints[i]))
        })

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        let points = identityPoints.indices.map { inputs.vector("inputPoint\($0)") ?? identityPoints[$0] }
        if points == identityPoints { return image }
        let curve = monotoneCubic(through: points.map { SIMD2($0[0], $0[1]) })
        return .point(Operation(table: CurveTable(count: 1024, curve)), of: image)
    }

    /// The Fritsch–Carlson monotone cubic Hermite interpolant through `points` (sorted by x here;
    /// of points sharing an x the first is kept), constant beyond the first and last points.
    static func monotoneCubic(through points: [SIMD2<Double>]) -> @Sendable (Double) -> Double {
        var knots: [SIMD2<Double>] = []
        for point in points.sorted(by: { $0.x < $1.x }) where knots.last?.x != point.x {
            knots.append(point)
        }
        let n = knots.count
        guard n > 1 else {
            let y = knots.first?.y ?? 0
            return { _ in y }
        }
        // Secant slopes, then tangents: the secants' mean where they agree in sign, else flat.
        let secants = (0..<n - 1).map { k in (knots[k + 1].y - knots[k].y) / (knots[k + 1].x - knots[k].x) }
        var tangents = [Double](repeating: 0, count: n)
        tangents[0] = secants[0]
        tangents[n - 1] = secants[n - 2]
        for k in 1..<n - 1 where secants[k - 1] * secants[k] > 0 {
            tangents[k] = (secants[k - 1] + secants[k]) / 2
        }
        // Flat segments stay flat; elsewhere keep (α, β) inside the circle of radius 3 so the
        // segment stays monotone.
        for k in 0..<n - 1 {
            if secants[k] == 0 {
                tangents[k] = 0
                tangents[k + 1] = 0
                continue
            }
            let alpha = tangents[k] / secants[k], beta = tangents[k + 1] / secants[k]
            let radius = alpha * alpha + beta * beta
            if radius > 9 {
                let tau = 3 / radius.squareRoot()
                tangents[k] = tau * alpha * secants[k]
                tangents[k + 1] = tau * beta * secants[k]
            }
        }
        let frozenKnots = knots, frozenTangents = tangents
        return { x in
            if x <= frozenKnots[0].x { return frozenKnots[0].y }
            if x >= frozenKnots[n - 1].x { return frozenKnots[n - 1].y }
            var k = 0
            while x >= frozenKnots[k + 1].x { k += 1 }
            let h = frozenKnots[k + 1].x - frozenKnots[k].x
            let t = (x - frozenKnots[k].x) / h
            let t2 = t * t, t3 = t2 * t
            return (2 * t3 - 3 * t2 + 1) * frozenKnots[k].y + (t3 - 2 * t2 + t) * h * frozenTangents[k]
                + (-2 * t3 + 3 * t2) * frozenKnots[k + 1].y + (t3 - t2) * h * frozenTangents[k + 1]
        }
    }

    struct Operation: PointOperation {
        /// The curve over the gamma-2 encoded value √in.
        let table: CurveTable
        var isChannelwise: Bool { true }

        func apply(_ block: PixelBlock) {
            block.forEachVector { r, g, b, _ in
                r = curve(r)
                g = curve(g)
                b = curve(b)
            }
        }

        @inline(__always)
        private func curve(_ linear: SIMD8<Float>) -> SIMD8<Float> {
            let y = table.lookup(VectorMath.clamp(linear, 0, 1).squareRoot())
            return y * y.replacing(with: -y, where: y .< 0)  // y·|y|: back from gamma 2, keeping y's sign
        }
    }
}
