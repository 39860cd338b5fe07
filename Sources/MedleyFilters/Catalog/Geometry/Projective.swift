import MedleyKernels

/// The projective map of the unit square onto a quadrilateral (Heckbert, "Fundamentals of
/// Texture Mapping and Image Warping", 1989, §2.2.3): (u, v) ↦ ((a·u + b·v + c)/w, (d·u + e·v + f)/w)
/// with w = g·u + h·v + 1; (0, 0), (1, 0), (1, 1), (0, 1) go to the bottom-left, bottom-right,
/// top-right and top-left corners (Core Image's y points up).
struct Homography: Sendable {
    let a, b, c, d, e, f, g, h: Double

    /// nil when the corners do not make a quadrilateral a projective map can reach (three in a line).
    init?(bottomLeft: (Double, Double), bottomRight: (Double, Double), topRight: (Double, Double), topLeft: (Double, Double)) {
        let (x0, y0) = bottomLeft, (x1, y1) = bottomRight, (x2, y2) = topRight, (x3, y3) = topLeft
        let dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3
        let dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3
        let den = dx1 * dy2 - dx2 * dy1
        guard den != 0, den.isFinite else { return nil }
        let g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den
        (self.a, self.b, self.c) = (x1 - x0 + g * x1, x3 - x0 + h * x3, x0)
        (self.d, self.e, self.f) = (y1 - y0 + g * y1, y3 - y0 + h * y3, y0)
        (self.g, self.h) = (g, h)
        guard [a, b, c, d, e, f, g, h].allSatisfy(\.isFinite) else { return nil }
    }

    /// The corners of a Core Image quadrilateral parameter set (inputTopLeft …), Core Image's
    /// defaults where unset.
    init?(corners inputs: FilterInputs) {
        func point(_ key: String, _ fallback: [Double]) -> (Double, Double) {
            let v = inputs.vector(key) ?? fallback
            return (v[0], v[1])
        }
        self.init(bottomLeft: point("inputBottomLeft", [155, 153]), bottomRight: point("inputBottomRight", [548, 140]),
                  topRight: point("inputTopRight", [646, 507]), topLeft: point("inputTopLeft", [118, 484]))
    }

    /// The quadrilateral's point for (u, v); nil beyond the horizon (w ≤ 0).
    func forward(_ u: Double, _ v: Double) -> (x: Double, y: Double)? {
        let w = g * u + h * v + 1
        guard w > 0 else { return nil }
        return ((a * u + b * v + c) / w, (d * u + e * v + f) / w)
    }

    /// The (u, v) of a quadrilateral point: the adjugate of the 3×3 matrix, applied projectively.
    func inverse(_ x: Double, _ y: Double) -> (u: Double, v: Double)? {
        let A = e - f * h, B = c * h - b, C = b * f - c * e
        let D = f * g - d, E = a - c * g, F = c * d - a * f
        let G = d * h - e * g, H = b * g - a * h, I = a * e - b * d
        let w = G * x + H * y + I
        guard w != 0, w.isFinite else { return nil }
        let u = (A * x + B * y + C) / w, v = (D * x + E * y + F) / w
        // The point must lie in front of the projection (forward's w > 0 there).
        guard g * u + h * v + 1 > 0 else { return nil }
        return (u, v)
    }

    /// Core Image's four corner parameters, declared once (defaults as Core Image's).
    static func cornerParameters(_ verb: String) -> [ParameterAttributes] {
        [("inputTopLeft", "Top Left", "top left", [118.0, 484.0]), ("inputTopRight", "Top Right", "top right", [646, 507]),
         ("inputBottomRight", "Bottom Right", "bottom right", [548, 140]), ("inputBottomLeft", "Bottom Left", "bottom left", [155, 153])]
            .map { name, display, words, value in
                ParameterAttributes(name: name, type: .position, displayName: display,
                                    description: "The \(words) coordinate \(verb).", defaultValue: .vector(value))
            }
    }
}

/// The inverse of a CGAffineTransform [a b c d tx ty] as a warp: output p shows the input at
/// T⁻¹(p); nowhere when T has no inverse.
struct InverseAffineMap: WarpMap {
    let t: [Double]
    init(_ t: [Double]) { self.t = t }

    func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
        let (a, b, c, d) = (t[0], t[1], t[2], t[3])
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        let px = x - t[4], py = y - t[5]
        return ((d * px - c * py) / det, (a * py - b * px) / det)
    }
}
