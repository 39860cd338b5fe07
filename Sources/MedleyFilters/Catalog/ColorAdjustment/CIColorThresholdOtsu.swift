import MedleyKernels

/// CIColorThresholdOtsu: CIColorThreshold with the threshold chosen by Otsu's method.
///
/// Apple: "The threshold is calculated from the image histogram using Otsu’s method. The red, green
/// and blue channels of the resulting image will be one if its value is greater than the threshold and
/// zero otherwise." The histogram is of the red, green and blue samples together, in the working space,
/// 256 bins (values rounded to i/255); Otsu (1979): the split that maximises the between-class variance.
enum ColorThresholdOtsu: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIColorThresholdOtsu",
        displayName: "Color Threshold Otsu",
        categories: [Category.colorAdjustment] + Category.common,
        summary: "Produces a binarized image from an image with finite extent. The threshold is calculated from the image "
            + "histogram using Otsu’s method. The red, green and blue channels of the resulting image will be one if its value "
            + "is greater than the threshold and zero otherwise.",
        reference: "Otsu 1979 over a 256-bin histogram of all r, g, b samples in the working space: split k maximising "
            + "w0·w1·(μ0 − μ1)²; c' = c > (k + 0.5)/255 ? 1 : 0 per colour channel; alpha kept",
        parameters: [.inputImage])

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let image = inputs.image("inputImage") else { return nil }
        return .measured(Measured(), of: image, table: nil)
    }

    struct Measured: MeasuredOperation {
        var needs: MeasurementKind { .inputHistogram }
        var maximumTablePixels: Int { 0 }

        func operation(from measurement: PixelMeasurement) -> PointOperation? {
            guard case .histogram(let counts) = measurement else { return nil }
            return ColorThreshold.Operation(threshold: (Float(ColorThresholdOtsu.split(counts)) + 0.5) / 255)
        }
    }

    /// The last bin of the lower class by Otsu's method (the first best split; 0 for an empty or one-valued histogram).
    static func split(_ counts: [Int]) -> Int {
        let total = Double(counts.reduce(0, +))
        guard total > 0 else { return 0 }
        let sum = counts.enumerated().reduce(0.0) { $0 + Double($1.offset) * Double($1.element) }
        var weight = 0.0, weighted = 0.0, best = 0, bestVariance = -1.0
        for (bin, count) in counts.enumerated() {
            weight += Double(count)
            weighted += Double(bin) * Double(count)
            let rest = total - weight
            guard weight > 0, rest > 0 else { continue }
            let difference = weighted / weight - (sum - weighted) / rest
            let variance = weight * rest * difference * difference
            if variance > bestVariance { bestVariance = variance; best = bin }
        }
        return best
    }
}
