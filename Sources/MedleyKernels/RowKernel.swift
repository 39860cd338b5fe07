/// A point-wise operation on rows of interleaved pixels.
///
/// Implementations are called concurrently from many threads on disjoint rows, so they
/// must not mutate shared state. `bands` is 3 (RGB) or 4 (RGBA; alpha passes through unless an
/// operation says otherwise); `sampleBytes` is 1 (8-bit) or 2 (16-bit, native endian); `x` and
/// `y` place the row's first pixel in the image, for filters that depend on position.
public protocol RowKernel: Sendable {
    func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer,
               width: Int, bands: Int, sampleBytes: Int, x: Int, y: Int)
}

extension RowKernel {
    /// A row at the image's origin (for kernels that do not depend on position).
    public func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer,
                      width: Int, bands: Int, sampleBytes: Int) {
        apply(row: input, to: output, width: width, bands: bands, sampleBytes: sampleBytes, x: 0, y: 0)
    }
}
