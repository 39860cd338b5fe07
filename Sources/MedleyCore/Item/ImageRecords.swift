import MedleyFilters
import MedleyMedia

/// What `analyze:` measured of one image, as its manifest line records it (`analysis`).
///
/// Measured on the image as exported: the output file is decoded back by libvips right after it is
/// written (before it is renamed into place), so the numbers describe the pixels a viewer of the
/// output gets — after the filters, after lossy encoding. Samples are read as 8-bit sRGB (16-bit
/// outputs are narrowed to 8 bits first), as stored: values are sRGB-encoded, not linear light.
struct ImageAnalysis: Decodable, Equatable {
    /// 256 counts per band, of the 8-bit samples.
    struct Histogram: Decodable, Equatable {
        var bins: Int
        var red: [Int]
        var green: [Int]
        var blue: [Int]
        /// Of libvips' luminance (`colourspace b-w`: CIE Y, sRGB-encoded).
        var luminance: [Int]?

        private enum CodingKeys: String, CodingKey { case bins, red, green, blue, luminance }

        /// As a manifest line holds it: a count beyond what a JSON number holds exactly, or below 0, is no
        /// image's and would be written back changed, so such a histogram does not decode (the line reads
        /// without its analysis).
        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            bins = try c.decodeExactCount(.bins)
            red = try c.decodeExactCounts(.red)
            green = try c.decodeExactCounts(.green)
            blue = try c.decodeExactCounts(.blue)
            luminance = try c.decodeExactCountsIfPresent(.luminance)
        }

        init(bins: Int, red: [Int], green: [Int], blue: [Int], luminance: [Int]?) {
            (self.bins, self.red, self.green, self.blue, self.luminance) = (bins, red, green, blue, luminance)
        }
    }

    /// One k-means cluster: its centre and the share of the (downsampled) pixels it holds.
    struct DominantColor: Decodable, Equatable {
        var color: String
        var fraction: Double
    }

    /// Mean red, green, blue and alpha, each 0…1 of the encoded samples (alpha 1 for an opaque image).
    var averageColor: [Double]?
    /// The mean colour as "#rrggbb" (its alpha left out).
    var averageColorHex: String?
    var histogram: Histogram?
    /// Largest cluster first.
    var dominantColors: [DominantColor]?

    /// The analysis as the manifest writes it, fields in this order.
    var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        if let averageColor { fields.append(("averageColor", .array(averageColor.map { .number($0) }))) }
        if let averageColorHex { fields.append(("averageColorHex", .string(averageColorHex))) }
        if let histogram {
            var parts: [(String, JSONValue)] = [("bins", .number(Double(histogram.bins)))]
            for (name, counts) in [("red", histogram.red), ("green", histogram.green), ("blue", histogram.blue)] {
                parts.append((name, .array(counts.map { .number(Double($0)) })))
            }
            if let luminance = histogram.luminance { parts.append(("luminance", .array(luminance.map { .number(Double($0)) }))) }
            fields.append(("histogram", .object(parts)))
        }
        if let dominantColors {
            fields.append(("dominantColors", .array(dominantColors.map {
                .object([("color", .string($0.color)), ("fraction", .number($0.fraction))])
            })))
        }
        return .object(fields)
    }

    /// "#rrggbb" of 0…255 values (rounded, clamped).
    static func hex(_ rgb: [Double]) -> String {
        "#" + rgb.prefix(3).map { value in
            let byte = value.isFinite ? Int(min(255, max(0, value.rounded()))) : 0
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// A number to four decimals (enough for an 8-bit sample: 1/255 ≈ 0.0039).
    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
}

/// The parameters auto-enhance chose for one image, as its manifest line records them
/// (`autoAdjust: {CIVibrance: {...}, CIToneCurve: {...}, CIHighlightShadowAdjust: {...}}`).
///
/// The rules (Apple does not publish its own), all from the input as decoded, 8-bit sRGB:
/// - **CIToneCurve** stretches the tones: with `lo` and `hi` the 0.5 % and 99.5 % percentiles of
///   all red, green and blue samples (the smallest value whose cumulative count reaches that share),
///   the curve's five points lie evenly on the straight line from (x(lo), 0) to (x(hi), 1), where
///   x is the curve's own domain (Medley's CIToneCurve works in Apple's gamma-2 space: x = √(working
///   value), the working value linear light unless `colorSpace: none`). The span x(hi) − x(lo) is
///   widened to at least 0.25 about its centre (a gain of at most 4), so a flat image is not blown up.
///   The darkest and brightest 0.5 % clip to black and white.
/// - **CIVibrance** `inputAmount = clamp(0.3 − S, 0, 0.3)`, S the mean HSV saturation
///   ((max − min)/max) of a 64-pixel copy: dull images get more colour, colourful ones none.
/// - **CIHighlightShadowAdjust** (radius 0): `inputShadowAmount = clamp(0.75·(D − 0.2), 0, 0.5)`,
///   D the share of pixels whose luminance is under 64/255; `inputHighlightAmount =
///   1 − clamp(0.75·(B − 0.2), 0, 0.3)`, B the share at or over 230/255 (libvips' B_W luminance).
struct AutoAdjustment: Decodable, Equatable {
    var vibranceAmount: Double
    /// inputPoint0…4, each [x, y].
    var toneCurve: [[Double]]
    var shadowAmount: Double
    var highlightAmount: Double

    // MARK: the manifest

    private enum FilterKeys: String, CodingKey { case CIVibrance, CIToneCurve, CIHighlightShadowAdjust }
    private enum VibranceKeys: String, CodingKey { case inputAmount }
    private enum CurveKeys: String, CodingKey { case inputPoint0, inputPoint1, inputPoint2, inputPoint3, inputPoint4 }
    private enum ShadowKeys: String, CodingKey { case inputShadowAmount, inputHighlightAmount }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: FilterKeys.self)
        vibranceAmount = try c.nestedContainer(keyedBy: VibranceKeys.self, forKey: .CIVibrance).decode(Double.self, forKey: .inputAmount)
        let curve = try c.nestedContainer(keyedBy: CurveKeys.self, forKey: .CIToneCurve)
        toneCurve = try [CurveKeys.inputPoint0, .inputPoint1, .inputPoint2, .inputPoint3, .inputPoint4].map {
            try curve.decode([Double].self, forKey: $0)
        }
        let shadow = try c.nestedContainer(keyedBy: ShadowKeys.self, forKey: .CIHighlightShadowAdjust)
        shadowAmount = try shadow.decode(Double.self, forKey: .inputShadowAmount)
        highlightAmount = try shadow.decode(Double.self, forKey: .inputHighlightAmount)
    }

    /// The parameters as the manifest writes them: by filter, in the order they run.
    var json: JSONValue {
        .object([
            ("CIVibrance", .object([("inputAmount", .number(vibranceAmount))])),
            ("CIToneCurve", .object(toneCurve.enumerated().map { ("inputPoint\($0.offset)", .array($0.element.map { .number($0) })) })),
            ("CIHighlightShadowAdjust", .object([("inputShadowAmount", .number(shadowAmount)),
                                                             ("inputHighlightAmount", .number(highlightAmount))])),
        ])
    }
}

/// What a movie's re-encode decided and kept, as the manifest's `movie` record: deinterlacing,
/// black bars and HDR each with its reason, and the tracks and chapters carried.
struct MovieRecord: Decodable, Equatable {
    struct Decision: Decodable, Equatable {
        var applied: Bool
        var reason: String
    }
    var deinterlace: Decision
    /// `[x, y, width, height]` of the stored picture encoded, when bars were taken off.
    var crop: [Int]?
    var cropReason: String
    /// "pq" or "hlg" for an HDR source.
    var hdr: String?
    var hdrReason: String
    /// The subtitle track drawn onto the picture ("subtitle stream 4 (subrip, eng)").
    var burned: String?
    var tracks: Int
    var chapters: Int

    init(_ decisions: MoviePictureDecisions, tracks: Int, chapters: Int) {
        deinterlace = Decision(applied: decisions.deinterlaced, reason: decisions.deinterlaceReason)
        crop = decisions.crop.map { [$0.x, $0.y, $0.width, $0.height] }
        cropReason = decisions.cropReason
        hdr = decisions.hdrSource
        hdrReason = decisions.hdrReason
        burned = decisions.burned
        self.tracks = tracks
        self.chapters = chapters
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("deinterlace", .object([("applied", .bool(deinterlace.applied)), ("reason", .string(deinterlace.reason))])),
        ]
        if let crop { fields.append(("crop", .array(crop.map { .number(Double($0)) }))) }
        fields.append(("cropReason", .string(cropReason)))
        if let hdr { fields.append(("hdr", .string(hdr))) }
        fields.append(("hdrReason", .string(hdrReason)))
        if let burned { fields.append(("burned", .string(burned))) }
        fields += [("tracks", .number(Double(tracks))), ("chapters", .number(Double(chapters)))]
        return .object(fields)
    }
}
