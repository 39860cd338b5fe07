/// A colour lookup table: a 3D cube (N³ RGB entries, red index fastest, then green, then blue —
/// the order of Core Image's cube data, Adobe/Resolve `.cube` files and Hald CLUT images) or three
/// 1D curves (N entries each), with the input domain it spans.
public struct ColorLookupTable: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        /// N × N × N entries.
        case cube
        /// N entries per channel, one curve each.
        case curves
    }

    public let shape: Shape
    /// Entries per side (cube) or per curve.
    public let size: Int
    /// The entries: RGB and a multiplier for alpha (1 unless a Core Image cube says otherwise).
    /// Cube entry (r, g, b) is at `r + size·(g + size·b)`; curve entry i at i.
    public let entries: [SIMD4<Float>]
    /// The input values that map to the first and last entries, per channel (`DOMAIN_MIN/MAX`).
    public let domainMinimum: SIMD3<Float>
    public let domainMaximum: SIMD3<Float>

    /// The largest cube side Medley accepts: 129³ entries of four floats are 34 MB, and every
    /// common LUT (17, 33, 64 and 65 points, Hald level 8 and 11 = 64 and 121) fits; 256³ would be
    /// 268 MB per table, held once per job and read at random by every pixel.
    public static let maximumCubeSize = 129
    /// The longest 1D curve (Resolve writes up to 65536 entries; 16-bit precision needs no more).
    public static let maximumCurveSize = 65536

    /// Nil unless `entries` has the count the shape and size need, the size is 2 or more and
    /// within the limits, and the domain is finite with minimum < maximum in each channel.
    public init?(shape: Shape, size: Int, entries: [SIMD4<Float>],
                 domainMinimum: SIMD3<Float> = .zero, domainMaximum: SIMD3<Float> = .one) {
        guard size >= 2 else { return nil }
        switch shape {
        case .cube:
            guard size <= Self.maximumCubeSize, entries.count == size * size * size else { return nil }
        case .curves:
            guard size <= Self.maximumCurveSize, entries.count == size else { return nil }
        }
        for c in 0..<3 {
            guard domainMinimum[c].isFinite, domainMaximum[c].isFinite, domainMinimum[c] < domainMaximum[c] else { return nil }
        }
        self.shape = shape
        self.size = size
        self.entries = entries
        self.domainMinimum = domainMinimum
        self.domainMaximum = domainMaximum
    }

    /// The identity cube of the given side (entry (r, g, b) = (r, g, b) / (size − 1)).
    public static func identityCube(size: Int) -> ColorLookupTable? {
        guard size >= 2, size <= maximumCubeSize else { return nil }
        let last = Float(size - 1)
        var entries: [SIMD4<Float>] = []
        entries.reserveCapacity(size * size * size)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size { entries.append(SIMD4(Float(r) / last, Float(g) / last, Float(b) / last, 1)) }
            }
        }
        return ColorLookupTable(shape: .cube, size: size, entries: entries)
    }
}

/// How a 3D table is read between its entries.
public enum LookupInterpolation: String, Sendable, CaseIterable {
    /// Eight neighbours, weighted by the position in the cell (a GPU texture's sampling).
    case trilinear
    /// Four neighbours: the tetrahedron of the cell that holds the point (the ordering of the
    /// fractions picks one of six), as Resolve, OpenColorIO and ffmpeg's `lut3d interp=tetrahedral` do.
    case tetrahedral
}

/// What the values a table sees are, relative to the working space's values.
public enum LookupEncoding: Sendable, Equatable {
    /// The working values as they are.
    case working
    /// The working values sRGB-encoded (linear working space, table written for encoded values);
    /// results are decoded back.
    case encodeSRGB
    /// The working values sRGB-decoded (encoded working space, table written for linear light);
    /// results are encoded back.
    case decodeSRGB
}

extension ColorLookupTable {
    /// The table at one colour (in the table's own values), clamped into the domain unless
    /// `extrapolate` (the edge cells are then extended linearly). NaN reads as the domain's minimum.
    /// Returns RGB and the alpha multiplier.
    @inlinable
    public func lookup(_ color: SIMD3<Float>, interpolation: LookupInterpolation, extrapolate: Bool) -> SIMD4<Float> {
        let last = Float(size - 1)
        var position = (color - domainMinimum) / (domainMaximum - domainMinimum) * last
        for c in 0..<3 {
            let p = position[c]
            // NaN fails both comparisons and becomes 0; ±∞ and huge values saturate, so the
            // Int conversion below is always in range.
            position[c] = extrapolate ? (p > -last ? (p < 2 * last ? p : 2 * last) : -last)
                : (p > 0 ? (p < last ? p : last) : 0)
        }
        return entries.withUnsafeBufferPointer { table in
            switch shape {
            case .curves:
                var out = SIMD4<Float>(0, 0, 0, 1)
                for c in 0..<3 {
                    let p = position[c]
                    let i = min(max(Int(p.rounded(.down)), 0), size - 2)
                    let t = p - Float(i)
                    let low = table[i][c], high = table[i + 1][c]
                    out[c] = low + (high - low) * t
                }
                return out
            case .cube:
                let r0 = min(max(Int(position.x.rounded(.down)), 0), size - 2)
                let g0 = min(max(Int(position.y.rounded(.down)), 0), size - 2)
                let b0 = min(max(Int(position.z.rounded(.down)), 0), size - 2)
                let fr = position.x - Float(r0), fg = position.y - Float(g0), fb = position.z - Float(b0)
                let dg = size, db = size * size
                let base = r0 + dg * g0 + db * b0
                let c000 = table[base], c111 = table[base + 1 + dg + db]
                switch interpolation {
                case .tetrahedral:
                    if fr > fg {
                        if fg > fb {
                            return (1 - fr) * c000 + (fr - fg) * table[base + 1] + (fg - fb) * table[base + 1 + dg] + fb * c111
                        } else if fr > fb {
                            return (1 - fr) * c000 + (fr - fb) * table[base + 1] + (fb - fg) * table[base + 1 + db] + fg * c111
                        } else {
                            return (1 - fb) * c000 + (fb - fr) * table[base + db] + (fr - fg) * table[base + 1 + db] + fg * c111
                        }
                    } else {
                        if fb > fg {
                            return (1 - fb) * c000 + (fb - fg) * table[base + db] + (fg - fr) * table[base + dg + db] + fr * c111
                        } else if fb > fr {
                            return (1 - fg) * c000 + (fg - fb) * table[base + dg] + (fb - fr) * table[base + dg + db] + fr * c111
                        } else {
                            return (1 - fg) * c000 + (fg - fr) * table[base + dg] + (fr - fb) * table[base + 1 + dg] + fb * c111
                        }
                    }
                case .trilinear:
                    let c100 = table[base + 1], c010 = table[base + dg], c110 = table[base + 1 + dg]
                    let c001 = table[base + db], c101 = table[base + 1 + db], c011 = table[base + dg + db]
                    let c00 = c000 + (c100 - c000) * fr, c10 = c010 + (c110 - c010) * fr
                    let c01 = c001 + (c101 - c001) * fr, c11 = c011 + (c111 - c011) * fr
                    let c0 = c00 + (c10 - c00) * fg, c1 = c01 + (c11 - c01) * fg
                    return c0 + (c1 - c0) * fb
                }
            }
        }
    }
}

/// A lookup table as a step of the fused point-wise pass: each pixel's RGB (converted to the
/// table's values first when `encoding` says so) is replaced by the table's value there, mixed
/// with the input by `intensity` in the table's values, `out = in + intensity·(LUT(in) − in)`.
/// Alpha is multiplied by the entry's alpha multiplier.
public struct ColorLookupOperation: PointOperation {
    public let table: ColorLookupTable
    public let interpolation: LookupInterpolation
    public let extrapolate: Bool
    public let intensity: Float
    public let encoding: LookupEncoding

    public init(table: ColorLookupTable, interpolation: LookupInterpolation, extrapolate: Bool,
                intensity: Float, encoding: LookupEncoding) {
        self.table = table
        self.interpolation = interpolation
        self.extrapolate = extrapolate
        self.intensity = intensity
        self.encoding = encoding
    }

    public func apply(_ block: PixelBlock) {
        let encoding = self.encoding
        let full = intensity == 1
        block.forEachVector { r, g, b, a in
            var (tr, tg, tb) = (r, g, b)
            switch encoding {
            case .working: break
            case .encodeSRGB: (tr, tg, tb) = (VectorMath.encodeSRGB(r), VectorMath.encodeSRGB(g), VectorMath.encodeSRGB(b))
            case .decodeSRGB: (tr, tg, tb) = (VectorMath.decodeSRGB(r), VectorMath.decodeSRGB(g), VectorMath.decodeSRGB(b))
            }
            var (or, og, ob, oa) = (tr, tg, tb, a)
            for lane in 0..<8 {
                let v = table.lookup(SIMD3(tr[lane], tg[lane], tb[lane]), interpolation: interpolation, extrapolate: extrapolate)
                or[lane] = v.x
                og[lane] = v.y
                ob[lane] = v.z
                oa[lane] = a[lane] * v.w
            }
            if !full {
                or = tr + (or - tr) * intensity
                og = tg + (og - tg) * intensity
                ob = tb + (ob - tb) * intensity
                oa = a + (oa - a) * intensity
            }
            switch encoding {
            case .working: (r, g, b) = (or, og, ob)
            case .encodeSRGB: (r, g, b) = (VectorMath.decodeSRGB(or), VectorMath.decodeSRGB(og), VectorMath.decodeSRGB(ob))
            case .decodeSRGB: (r, g, b) = (VectorMath.encodeSRGB(or), VectorMath.encodeSRGB(og), VectorMath.encodeSRGB(ob))
            }
            a = oa
        }
    }
}

/// Two cubes mixed by a mask (CIColorCubesMixedWithMask): the first input row is the mask, the
/// second the image; `out = mix(cube0(c), cube1(c), m)` with m the mask's Rec. 709 luminance
/// clamped to 0…1, alpha the image's (times the mixed entries' alpha multipliers). Float RGBA rows,
/// working-space values.
public struct ColorCubeMixKernel: RowKernel2 {
    public let cube0: ColorLookupTable
    public let cube1: ColorLookupTable
    public let interpolation: LookupInterpolation
    public let extrapolate: Bool
    public let encoding: LookupEncoding

    public init(cube0: ColorLookupTable, cube1: ColorLookupTable, interpolation: LookupInterpolation,
                extrapolate: Bool, encoding: LookupEncoding) {
        self.cube0 = cube0
        self.cube1 = cube1
        self.interpolation = interpolation
        self.extrapolate = extrapolate
        self.encoding = encoding
    }

    public func apply(first mask: UnsafePointer<Float>, second image: UnsafePointer<Float>,
                      to output: UnsafeMutablePointer<Float>, width: Int, bands: Int, x: Int, y: Int) {
        guard bands >= 3 else { return }
        let sRGB = Transfer.sRGB
        for i in stride(from: 0, to: width * bands, by: bands) {
            var c = SIMD3(image[i], image[i + 1], image[i + 2])
            switch encoding {
            case .working: break
            case .encodeSRGB: c = SIMD3(sRGB.encode(c.x), sRGB.encode(c.y), sRGB.encode(c.z))
            case .decodeSRGB: c = SIMD3(sRGB.decode(c.x.clampedToUnit), sRGB.decode(c.y.clampedToUnit), sRGB.decode(c.z.clampedToUnit))
            }
            let m = (0.2126 * mask[i] + 0.7152 * mask[i + 1] + 0.0722 * mask[i + 2]).clampedToUnit
            let v0 = cube0.lookup(c, interpolation: interpolation, extrapolate: extrapolate)
            let v1 = cube1.lookup(c, interpolation: interpolation, extrapolate: extrapolate)
            var v = v0 + (v1 - v0) * m
            switch encoding {
            case .working: break
            case .encodeSRGB: v = SIMD4(sRGB.decode(v.x.clampedToUnit), sRGB.decode(v.y.clampedToUnit), sRGB.decode(v.z.clampedToUnit), v.w)
            case .decodeSRGB: v = SIMD4(sRGB.encode(v.x), sRGB.encode(v.y), sRGB.encode(v.z), v.w)
            }
            output[i] = v.x
            output[i + 1] = v.y
            output[i + 2] = v.z
            if bands == 4 { output[i + 3] = image[i + 3] * v.w }
        }
    }
}
