/// An operation on rows of interleaved pixels.
///
/// Implementations are called concurrently from many threads on disjoint rows, so they
/// must not mutate shared state. `bands` is 3 (RGB) or 4 (RGBA; alpha passes through unless an
/// operation says otherwise); samples are `inputBytes` / `outputBytes` wide: 1 (8-bit), 2
/// (16-bit, native endian) or 4 (float, linear working space); `x` and `y` place the row's first
/// pixel in the image, for filters that depend on position.
public protocol RowKernel: Sendable {
    func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, width: Int, bands: Int,
               inputBytes: Int, outputBytes: Int, x: Int, y: Int)
}

extension RowKernel {
    /// A row whose samples keep their width.
    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer,
                      width: Int, bands: Int, sampleBytes: Int, x: Int = 0, y: Int = 0) {
        apply(row: input, to: output, width: width, bands: bands, inputBytes: sampleBytes, outputBytes: sampleBytes,
              x: x, y: y)
    }
}

/// Two float rows in, one out (compositing). Called concurrently on disjoint rows.
public protocol RowKernel2: Sendable {
    func apply(first: UnsafePointer<Float>, second: UnsafePointer<Float>, to output: UnsafeMutablePointer<Float>,
               width: Int, bands: Int, x: Int, y: Int)
}

/// A neighbourhood operation on float images (blurs, sharpening, pixellation).
///
/// `input` is a block `width + 2·margin` by `height + 2·margin` pixels whose centre part lines up
/// with the `width` × `height` output block at image position (x, y); strides are in floats.
/// Edges of the image are extended by copying, so the margin always holds real values.
/// `imageWidth` × `imageHeight` is the whole image's size, for position-dependent kernels.
public protocol RegionKernel: Sendable {
    var margin: Int { get }
    func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>, outputStride: Int,
               width: Int, height: Int, bands: Int, x: Int, y: Int, imageWidth: Int, imageHeight: Int)
}
