/// A point-wise operation on rows of interleaved pixels.
///
/// Implementations are called concurrently from many threads on disjoint rows, so they
/// must not mutate shared state. `bands` is 3 (RGB) or 4 (RGBA; alpha passes through);
/// `sampleBytes` is 1 (8-bit) or 2 (16-bit, native endian).
public protocol RowKernel: Sendable {
    func apply(row input: UnsafeRawPointer, to output: UnsafeMutableRawPointer,
               width: Int, bands: Int, sampleBytes: Int)
}
