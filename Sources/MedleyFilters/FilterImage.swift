import MedleyKernels

/// A recipe for an image, as a `CIImage` is: nothing is computed when a filter produces one.
/// The renderer first optimises the recipe (see `RenderPlan`), then runs kernels over pixels.
public indirect enum FilterImage: Sendable, Equatable {
    /// An image that comes from outside the graph; `"input"` is the ingested item.
    case source(String)
    /// A point-wise affine colour change, in the working colour space.
    case colorMatrix(ColorMatrix, of: FilterImage)
}
