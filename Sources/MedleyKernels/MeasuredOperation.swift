/// What a measured point operation is made from, read by the renderer just before the pass.
public enum PixelMeasurement: Sendable {
    /// The bottom row of the table image (Core Image's y = 0), RGBA in the working space, left to right.
    case row([SIMD4<Float>])
    /// Every pixel of the table image, RGBA in the working space.
    case pixels([SIMD4<Float>])
    /// 256 counts of the input's red, green and blue samples together: bin i holds the working-space
    /// values that round to i/255 (clamped to 0…1).
    case histogram([Int])
}

/// A point-wise operation whose table is only known once pixels exist: a gradient or palette image
/// (CIColorMap, CIPalettize) or the input's own histogram (CIColorThresholdOtsu). The renderer
/// measures what `needs` says, then runs `operation(from:)` as a pass like any other.
public protocol MeasuredOperation: Sendable {
    /// What to measure: a table image's bottom row or all its pixels, or the input's histogram.
    var needs: MeasurementKind { get }
    /// The most table pixels the operation accepts (a bound on memory and on work per pixel).
    var maximumTablePixels: Int { get }
    /// The pass, from the measurement; nil when the measurement cannot make one (an empty table).
    func operation(from measurement: PixelMeasurement) -> PointOperation?
}

/// What a `MeasuredOperation` measures.
public enum MeasurementKind: Sendable {
    case tableRow, tablePixels, inputHistogram
}
