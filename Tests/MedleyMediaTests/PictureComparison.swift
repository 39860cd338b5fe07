import Foundation
import MedleyTestSupport

/// A picture's samples could not be compared: the two differ in size or are empty (a decode that
/// gave the wrong size must fail a comparison, never count as "different").
struct IncomparablePictures: Error, CustomStringConvertible {
    let counts: (Int, Int)
    var description: String { "pictures of \(counts.0) and \(counts.1) samples cannot be compared" }
}

/// Peak signal-to-noise ratio of two 8-bit pictures of the same size, in dB (∞ when identical),
/// from its definition: 10 · log10(255² / mean squared difference).
func psnr(_ a: [UInt8], _ b: [UInt8]) throws -> Double {
    guard a.count == b.count, !a.isEmpty else { throw IncomparablePictures(counts: (a.count, b.count)) }
    var sum = 0.0
    for i in 0..<a.count {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
