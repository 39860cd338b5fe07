// Kernel micro-benchmark: the sepia colour-matrix kernel over a 12 MP 8-bit RGB buffer,
// single thread, against memcpy of the same buffer (the memory-bandwidth ceiling).
// Prints MP/s and the ratio kernel / memcpy. Usage: medley-kernel-bench [megapixels] [repeats]
import Foundation
import MedleyKernels

let arguments = CommandLine.arguments
let megapixels = arguments.count > 1 ? Double(arguments[1]) ?? 12 : 12
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let width = 4000
let height = Int(megapixels * 1_000_000) / width
let pixels = width * height

var source = [UInt8](repeating: 0, count: pixels * 3)
var state: UInt64 = 0x9E37_79B9_7F4A_7C15
for i in source.indices {  // xorshift: cheap, deterministic, not compressible
    state ^= state << 13; state ^= state >> 7; state ^= state << 17
    source[i] = UInt8(truncatingIfNeeded: state)
}
var destination = [UInt8](repeating: 0, count: pixels * 3)

func best(_ body: () -> Void) -> Double {
    var fastest = Double.infinity
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return fastest
}

let sepia = ColorMatrix(rows: [SIMD3(0.3588, 0.7044, 0.1368), SIMD3(0.2990, 0.5870, 0.1140),
                               SIMD3(0.2392, 0.4696, 0.0912)])
func rows(_ kernel: RowKernel) -> Double {
    source.withUnsafeBytes { src in
        destination.withUnsafeMutableBytes { dst in
            best {
                for y in 0..<height {
                    kernel.apply(row: src.baseAddress! + y * width * 3,
                                 to: dst.baseAddress! + y * width * 3,
                                 width: width, bands: 3, sampleBytes: 1)
                }
            }
        }
    }
}
let copy = source.withUnsafeBytes { src in
    destination.withUnsafeMutableBytes { dst in best { dst.copyMemory(from: src) } }
}
let mp = Double(pixels) / 1e6
print(String(format: "image: %d x %d (%.1f MP) 8-bit RGB, best of %d, one thread", width, height, mp, repeats))
print("memcpy".padding(toLength: 30, withPad: " ", startingAt: 0) + String(format: "%8.1f MP/s", mp / copy))
for (name, transfer) in [("sepia, linear light (sRGB)", Transfer.sRGB), ("sepia, colorSpace: none", .none)] {
    let t = rows(ColorMatrixKernel(matrix: sepia, transfer: transfer))
    print(name.padding(toLength: 30, withPad: " ", startingAt: 0) + String(format: "%8.1f MP/s   %.2fx memcpy time", mp / t, t / copy))
}
