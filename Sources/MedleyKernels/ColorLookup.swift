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
    /// Table positions (0…size − 1 inside the domain) for colours, per channel: `c·scale + offset`.
    @inlinable var positionScale: SIMD3<Float> { Float(size - 1) / (domainMaximum - domainMinimum) }
    @inlinable var positionOffset: SIMD3<Float> { -domainMinimum * positionScale }

    /// A position clamped to the table (or, when `extrapolate`, to one table length beyond each
    /// end, so edge cells extend linearly); NaN becomes 0. The result always converts to Int.
    @inlinable @inline(__always)
    static func clampPosition(_ p: Float, last: Float, extrapolate: Bool) -> Float {
        let finite = p == p ? p : 0
        return extrapolate ? min(max(finite, -last), 2 * last) : min(max(finite, 0), last)
    }

    /// The table at one colour already in table positions (`c·positionScale + positionOffset`).
    @inlinable @inline(__always)
    func value(_ table: UnsafeBufferPointer<SIMD4<Float>>, _ r: Float, _ g: Float, _ b: Float,
               tetrahedral: Bool, extrapolate: Bool) -> SIMD4<Float> {
        let last = Float(size - 1)
        let pr = Self.clampPosition(r, last: last, extrapolate: extrapolate)
        let pg = Self.clampPosition(g, last: last, extrapolate: extrapolate)
        let pb = Self.clampPosition(b, last: last, extrapolate: extrapolate)
        // The cell's first index, 0…size − 2: truncation and floor agree once clamped (they differ
        // only between −1 and 0, which both clamp to 0), and truncation needs no libm call.
        let top = Float(size - 2)
        let ir = Int(min(max(pr, 0), top)), ig = Int(min(max(pg, 0), top)), ib = Int(min(max(pb, 0), top))
        let fr = pr - Float(ir), fg = pg - Float(ig), fb = pb - Float(ib)
        switch shape {
        case .cube:
            return Self.cube(table, base: ir &+ size &* (ig &+ size &* ib), size: size, fr: fr, fg: fg, fb: fb,
                             tetrahedral: tetrahedral)
        case .curves:
            return SIMD4(table[ir].x + (table[ir + 1].x - table[ir].x) * fr,
                         table[ig].y + (table[ig + 1].y - table[ig].y) * fg,
                         table[ib].z + (table[ib + 1].z - table[ib].z) * fb, 1)
        }
    }

    /// The cube's value at one position whose cell starts at entry `base` with fractions
    /// (fr, fg, fb): Resolve's / ffmpeg's six tetrahedra, or the eight-corner trilinear mix.
    @inlinable @inline(__always)
    static func cube(_ table: UnsafeBufferPointer<SIMD4<Float>>, base: Int, size: Int, fr: Float, fg: Float, fb: Float,
                     tetrahedral: Bool) -> SIMD4<Float> {
        let dg = size, db = size &* size
        let c000 = table[base], c111 = table[base &+ 1 &+ dg &+ db]
        if tetrahedral {
            // The tetrahedron runs from c000 along the axis of the largest fraction, then the
            // middle one, to c111 (the six cases of Resolve and ffmpeg, as a sort; at ties the
            // weight of the corner in question is 0, so either order gives the same value).
            var (high, highStep) = (fr, 1), (middle, middleStep) = (fg, dg), low = fb, lowStep = db
            if middle > high { swap(&high, &middle); swap(&highStep, &middleStep) }
            if low > middle { swap(&middle, &low); swap(&middleStep, &lowStep) }
            if middle > high { swap(&high, &middle); swap(&highStep, &middleStep) }
            _ = lowStep
            return (1 - high) * c000 + (high - middle) * table[base &+ highStep]
                + (middle - low) * table[base &+ highStep &+ middleStep] + low * c111
        }
        let c100 = table[base &+ 1], c010 = table[base &+ dg], c110 = table[base &+ 1 &+ dg]
        let c001 = table[base &+ db], c101 = table[base &+ 1 &+ db], c011 = table[base &+ dg &+ db]
        let c00 = c000 + (c100 - c000) * fr, c10 = c010 + (c110 - c010) * fr
        let c01 = c001 + (c101 - c001) * fr, c11 = c011 + (c111 - c011) * fr
        let c0 = c00 + (c10 - c00) * fg, c1 = c01 + (c11 - c01) * fg
        return c0 + (c1 - c0) * fb
    }

    /// The table at one colour (in the table's own values), clamped into the domain unless
    /// `extrapolate` (the edge cells are then extended linearly). NaN reads as the domain's minimum.
    /// Returns RGB and the alpha multiplier.
    public func lookup(_ color: SIMD3<Float>, interpolation: LookupInterpolation, extrapolate: Bool) -> SIMD4<Float> {
        let p = color * positionScale + positionOffset
        return entries.withUnsafeBufferPointer { table in
            value(table, p.x, p.y, p.z, tetrahedral: interpolation == .tetrahedral, extrapolate: extrapolate)
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

    /// The sRGB transfer functions sampled at 4097 points of 0…1 and read back linearly, one
    /// pixel at a time inside the lookup loop: within 2·10⁻⁵ of the formulas (the encoding's
    /// steepest curvature, just above its linear toe, gives the largest error), far below an
    /// 8-bit step (0.0039), and several times faster than evaluating the powers.
    static let encodeTable: [Float] = (0...4096).map { Transfer.sRGB.encode(Float($0) / 4096) }
    static let decodeTable: [Float] = (0...4096).map { Transfer.sRGB.decode(Float($0) / 4096) }

    /// f(x) from a 4097-entry table over 0…1, x clamped (NaN read as 0).
    @inline(__always)
    static func curve(_ table: UnsafeBufferPointer<Float>, _ x: Float) -> Float {
        let p = (x > 0 ? (x < 1 ? x : 1) : 0) * 4096
        let i = min(Int(p), 4095)
        return table[i] + (table[i &+ 1] - table[i]) * (p - Float(i))
    }

    public func apply(_ block: PixelBlock) {
        let table = self.table, intensity = self.intensity, full = intensity == 1
        let tetrahedral = interpolation == .tetrahedral, extrapolate = self.extrapolate
        let scale = table.positionScale, offset = table.positionOffset
        let (red, green, blue, alpha) = (block.red, block.green, block.blue, block.alpha)
        let (into, back): ([Float], [Float])
        switch encoding {
        case .working: (into, back) = ([], [])
        case .encodeSRGB: (into, back) = (Self.encodeTable, Self.decodeTable)
        case .decodeSRGB: (into, back) = (Self.decodeTable, Self.encodeTable)
        }
        let convert = encoding != .working
        // One pass, pixel by pixel: into the table's values, the lookup (each pixel reads its own
        // cell), the mix with the input, and back. The common case (a file's LUT in a linear
        // working space, full strength, tetrahedral, clamped) gets its own copy of the loop with
        // those choices fixed, so the compiler drops their branches from it.
        table.entries.withUnsafeBufferPointer { entries in
            into.withUnsafeBufferPointer { into in
                back.withUnsafeBufferPointer { back in
                    @inline(__always)
                    func run(_ convert: Bool, _ full: Bool, _ tetrahedral: Bool, _ extrapolate: Bool) {
                    for i in 0..<block.count {
                        var r = red[i], g = green[i], b = blue[i]
                        if convert { (r, g, b) = (Self.curve(into, r), Self.curve(into, g), Self.curve(into, b)) }
                        let v = table.value(entries, r * scale.x + offset.x, g * scale.y + offset.y, b * scale.z + offset.z,
                                            tetrahedral: tetrahedral, extrapolate: extrapolate)
                        var (nr, ng, nb) = (v.x, v.y, v.z)
                        if full {
                            alpha[i] *= v.w
                        } else {
                            nr = r + (nr - r) * intensity
                            ng = g + (ng - g) * intensity
                            nb = b + (nb - b) * intensity
                            alpha[i] *= 1 + (v.w - 1) * intensity
                        }
                        if convert { (nr, ng, nb) = (Self.curve(back, nr), Self.curve(back, ng), Self.curve(back, nb)) }
                        (red[i], green[i], blue[i]) = (nr, ng, nb)
                    }
                    }
                    if convert && full && tetrahedral && !extrapolate {
                        run(true, true, true, false)
                    } else {
                        run(convert, full, tetrahedral, extrapolate)
                    }
                }
            }
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

extension ColorLookupOperation {
    /// The kernel for a pass that is this one LUT over stored sRGB samples, when the table reads
    /// sRGB-encoded values: 8- and 16-bit rows are the encoded values already, so they go to the
    /// table as they are (no decode to linear light and encode back, which is most of the cost
    /// around the lookup); float rows hold linear light and take the usual path.
    public func storedSampleKernel(imageWidth: Int, imageHeight: Int) -> RowKernel? {
        guard encoding == .encodeSRGB else { return nil }
        let direct = ColorLookupOperation(table: table, interpolation: interpolation, extrapolate: extrapolate,
                                          intensity: intensity, encoding: .working)
        return EncodedSampleKernel(
            stored: PointChainKernel(operations: [direct], transfer: .none, imageWidth: imageWidth, imageHeight: imageHeight),
            linear: PointChainKernel(operations: [self], transfer: .sRGB, imageWidth: imageWidth, imageHeight: imageHeight))
    }
}

/// Integer rows through one kernel (they hold encoded values), float rows through another.
struct EncodedSampleKernel: RowKernel {
    let stored: RowKernel
    let linear: RowKernel

    func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
               inputBytes: Int, outputBytes: Int, x: Int, y: Int) {
        (inputBytes == 4 ? linear : stored).apply(row: input, to: output, width: width, bands: bands,
                                                  inputBytes: inputBytes, outputBytes: outputBytes, x: x, y: y)
    }
}
