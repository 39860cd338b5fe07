import MedleyKernels

/// A recipe for an image, as a `CIImage` is: nothing is computed when a filter produces one.
/// The renderer first optimises the recipe (see `RenderPlan`), then runs kernels over pixels.
public indirect enum FilterImage: Sendable {
    /// An image that comes from outside the graph; `"input"` is the ingested item.
    case source(String)
    /// A point-wise affine colour change, in the working colour space.
    case colorMatrix(ColorMatrix, of: FilterImage)
    /// Any other per-pixel change (it may depend on the pixel's position, as a vignette does).
    case point(PointOperation, of: FilterImage)

    /// The source a chain of steps starts from.
    public var sourceName: String {
        switch self {
        case .source(let name): return name
        case .colorMatrix(_, let input), .point(_, let input): return input.sourceName
        }
    }
}
