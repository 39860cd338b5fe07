import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// `autoAdjust:` of an image job: Core Image's `autoAdjustmentFilters` without the face and
/// red-eye parts (CIFaceBalance and CIRedEyeCorrection need face detection, which Medley does
/// not have): a CIVibrance, a CIToneCurve and a CIHighlightShadowAdjust tuned per image from its
/// histograms, run before the job's own filters.
public struct AutoAdjustSettings: Sendable, Equatable {
    /// `enhance: true`: the three filters are tuned and inserted.
    public let enhance: Bool
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

    static let percentile = 0.005
    static let minimumSpan = 0.25

    init(vibranceAmount: Double, toneCurve: [[Double]], shadowAmount: Double, highlightAmount: Double) {
        self.vibranceAmount = vibranceAmount
        self.toneCurve = toneCurve
        self.shadowAmount = shadowAmount
        self.highlightAmount = highlightAmount
    }

    // MARK: measuring

    /// Measures the image file at `path` and chooses the parameters.
    static func measure(fileAt path: String, workingSpace: Transfer) throws -> AutoAdjustment {
        func samples() throws -> VipsImage {
            try VipsImage.open(path, access: .sequential).inRGBSpace().image.rgb(deep: false)
        }
        let colour = try samples().histograms()
        guard colour.count >= 3 else { throw MediaError(.medley, "analyze", "an image of \(colour.count) bands has no colour histogram", cause: .unsupported) }
        let combined = (0..<256).map { colour[0][$0] + colour[1][$0] + colour[2][$0] }
        let luminance = try samples().luminance().histograms().first ?? []
        let small = try VipsImage.thumbnail(path, width: 64, height: 64, crop: false, force: false)
            .inRGBSpace().image.rgb(deep: false)
        let saturation = meanSaturation(try small.pixels(), bands: small.bands)
        return choose(histogram: combined, luminance: luminance, meanSaturation: saturation, workingSpace: workingSpace)
    }

    /// The rules above, from the combined R+G+B histogram, the luminance histogram and the mean saturation.
    static func choose(histogram: [Int], luminance: [Int], meanSaturation: Double, workingSpace: Transfer) -> AutoAdjustment {
        let lo = Double(value(atShare: percentile, of: histogram)) / 255
        let hi = Double(value(atShare: 1 - percentile, of: histogram)) / 255
        var x0 = curveDomain(lo, workingSpace), x1 = curveDomain(hi, workingSpace)
        if x1 - x0 < minimumSpan {
            x0 = min(max(0, (x0 + x1) / 2 - minimumSpan / 2), 1 - minimumSpan)
            x1 = x0 + minimumSpan
        }
        let points = [0, 0.25, 0.5, 0.75, 1].map { q in [rounded(x0 + q * (x1 - x0)), q] }

        let pixels = Double(max(1, luminance.reduce(0, +)))
        let dark = Double(luminance.prefix(64).reduce(0, +)) / pixels
        let bright = Double(luminance.dropFirst(230).reduce(0, +)) / pixels
        func clamp(_ v: Double, _ low: Double, _ high: Double) -> Double { v.isFinite ? min(max(v, low), high) : low }
        return AutoAdjustment(vibranceAmount: rounded(clamp(0.3 - meanSaturation, 0, 0.3)), toneCurve: points,
                              shadowAmount: rounded(clamp(0.75 * (dark - 0.2), 0, 0.5)),
                              highlightAmount: rounded(1 - clamp(0.75 * (bright - 0.2), 0, 0.3)))
    }

    /// The smallest sample value whose cumulative count reaches `share` of all counts (0 for an empty histogram).
    static func value(atShare share: Double, of histogram: [Int]) -> Int {
        let total = Double(histogram.reduce(0, +))
        guard total > 0 else { return 0 }
        var running = 0.0
        for (value, count) in histogram.enumerated() {
            running += Double(count)
            if running >= share * total { return value }
        }
        return histogram.count - 1
    }

    /// An encoded value 0…1 in CIToneCurve's domain: √ of the working value.
    static func curveDomain(_ encoded: Double, _ space: Transfer) -> Double {
        Double(space.decode(Float(encoded))).squareRoot()
    }

    /// Mean HSV saturation of interleaved 8-bit pixels (3 or 4 bands; 0 for black pixels).
    static func meanSaturation(_ samples: [UInt8], bands: Int) -> Double {
        guard bands >= 3 else { return 0 }
        var sum = 0.0, count = 0, index = 0
        while index + bands <= samples.count {
            let r = samples[index], g = samples[index + 1], b = samples[index + 2]
            let high = max(r, g, b), low = min(r, g, b)
            if high > 0 { sum += Double(high - low) / Double(high) }
            count += 1
            index += bands
        }
        return count > 0 ? sum / Double(count) : 0
    }

    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    // MARK: the filters

    /// The three filters as graph nodes, fed by `input`, each feeding the next; named so no node of `graph` shares a name.
    func nodes(avoiding graph: ImageGraph?) -> [ImageGraph.Node] {
        let taken = Set(graph?.nodes.map(\.name) ?? [])
        func name(_ filter: String) -> String {
            var name = "autoAdjust:" + filter
            while taken.contains(name) { name += "'" }
            return name
        }
        let filters: [(String, [(key: String, value: FilterValue)])] = [
            ("CIVibrance", [("inputAmount", .number(vibranceAmount))]),
            ("CIToneCurve", toneCurve.enumerated().map { ("inputPoint\($0.offset)", .vector($0.element)) }),
            ("CIHighlightShadowAdjust", [("inputShadowAmount", .number(shadowAmount)),
                                                     ("inputHighlightAmount", .number(highlightAmount))]),
        ]
        var previous = ImageGraph.inputName
        return filters.map { filter, parameters in
            let node = ImageGraph.Node(name: name(filter), filter: filter, parameters: parameters,
                                       imageInputs: [("inputImage", previous)], mark: SourceMark(line: 0, column: 0))
            previous = node.name
            return node
        }
    }

    /// The job's graph (or none) with the three filters before it: every image input that took
    /// the ingested image takes the adjusted one.
    func prefixing(_ graph: ImageGraph?) -> ImageGraph {
        let added = nodes(avoiding: graph)
        let adjusted = added.last?.name ?? ImageGraph.inputName
        guard let graph else { return ImageGraph(nodes: added, output: adjusted) }
        let rewired = graph.nodes.map { node in
            ImageGraph.Node(name: node.name, filter: node.filter, parameters: node.parameters,
                            imageInputs: node.imageInputs.map { ($0.key, $0.source == ImageGraph.inputName ? adjusted : $0.source) },
                            mark: node.mark)
        }
        return ImageGraph(nodes: added + rewired, output: graph.output == ImageGraph.inputName ? adjusted : graph.output)
    }

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
