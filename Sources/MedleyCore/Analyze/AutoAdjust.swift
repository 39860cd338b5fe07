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

/// Measuring one image for `autoAdjust:` (the rules are on `AutoAdjustment`).
extension AutoAdjustment {
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
        let small = try VipsImage.thumbnail(path, width: 64, height: 64, crop: .none, force: false)
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
}
