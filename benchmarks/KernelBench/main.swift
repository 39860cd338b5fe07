// Kernel micro-benchmark: Medley's kernels over a 12 MP image in memory, one thread, against
// memcpy of the same buffer (the memory-bandwidth ceiling). Prints MP/s and the time relative
// to memcpy. Usage: medley-kernel-bench [megapixels] [repeats]
import Foundation
import MedleyKernels
import MedleyMedia

let arguments = CommandLine.arguments
let megapixels = arguments.count > 1 ? Double(arguments[1]) ?? 12 : 12
let repeats = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let width = 4000
let height = Int(megapixels * 1_000_000) / width
let pixels = width * height
let mp = Double(pixels) / 1e6

/// Photo-like 8-bit RGB: smooth gradients plus a little xorshift grain, so table lookups see
/// the locality real images have.
var source = [UInt8](repeating: 0, count: pixels * 3)
var state: UInt64 = 0x9E37_79B9_7F4A_7C15
for y in 0..<height {
    for x in 0..<width {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        let grain = Int(state & 15) - 8
        let i = (y * width + x) * 3
        source[i] = UInt8(clamping: x * 255 / width + grain)
        source[i + 1] = UInt8(clamping: y * 255 / height + grain)
        source[i + 2] = UInt8(clamping: (x + y) * 127 / (width + height) + 64 + grain)
    }
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

func rows(_ kernel: RowKernel) -> Double {
    source.withUnsafeBytes { src in
        destination.withUnsafeMutableBytes { dst in
            best {
                for y in 0..<height {
                    kernel.apply(row: src.baseAddress! + y * width * 3, to: dst.baseAddress! + y * width * 3,
                                 width: width, bands: 3, sampleBytes: 1, x: 0, y: y)
                }
            }
        }
    }
}

let copy = source.withUnsafeBytes { src in
    destination.withUnsafeMutableBytes { dst in best { dst.copyMemory(from: src) } }
}
func line(_ name: String, _ seconds: Double) {
    print("| " + name + " | " + String(format: "%.0f", mp / seconds) + " | " + String(format: "%.2f×", seconds / copy) + " |")
}

let sepia = ColorMatrix(rows: [SIMD3(0.3588, 0.7044, 0.1368), SIMD3(0.2990, 0.5870, 0.1140),
                               SIMD3(0.2392, 0.4696, 0.0912)])
struct Gamma: PointOperation {
    let power: Float
    var isChannelwise: Bool { true }
    func apply(_ block: PixelBlock) {
        block.forEachVector { r, g, b, _ in
            r = VectorMath.pow(r, power); g = VectorMath.pow(g, power); b = VectorMath.pow(b, power)
        }
    }
}
struct Scale: PointOperation {
    let factor: Float
    func apply(_ block: PixelBlock) { block.forEachVector { r, g, b, _ in r *= factor; g *= factor; b *= factor } }
}

print("Kernels over a \(width)×\(height) (\(String(format: "%.1f", mp)) MP) 8-bit RGB image, one thread, best of \(repeats)")
print("")
print("| kernel | MP/s | time ÷ memcpy |")
print("|---|---:|---:|")
line("memcpy (same buffer)", copy)
line("sepia matrix, linear light (table path)", rows(ColorMatrixKernel(matrix: sepia, transfer: .sRGB)))
line("sepia matrix, colorSpace: none", rows(ColorMatrixKernel(matrix: sepia, transfer: .none)))
line("point chain: 1 scale op (float blocks)", rows(PointChainKernel(operations: [Scale(factor: 0.9)], transfer: .sRGB,
                                                                        imageWidth: width, imageHeight: height)))
line("point chain: 5 scale ops, one pass", rows(PointChainKernel(operations: (0..<5).map { _ in Scale(factor: 0.98) },
                                                                    transfer: .sRGB, imageWidth: width, imageHeight: height)))
line("point chain: gamma (pow per sample)", rows(PointChainKernel(operations: [Gamma(power: 0.8)], transfer: .sRGB,
                                                                     imageWidth: width, imageHeight: height)))

// Chains of colour matrices and gamma curves: the float path (PointChainKernel) against the same
// operations compiled into tables (CompiledChainKernel), as RenderPlan runs them over 8-bit rows.
// Five filters: exposure · colour controls · sepia fuse into one matrix, then gamma, then a matrix.
// Ten filters: matrix, gamma alternating five times (nothing fuses: five table stages).
let frontMatrix = ColorMatrix.identity.mixed(with: sepia, amount: 0.8)
    .after(ColorMatrix(rows: [SIMD3(1.1, 0, 0), SIMD3(0, 1.1, 0), SIMD3(0, 0, 1.1)], bias: SIMD3(repeating: -0.03)))
    .after(ColorMatrix(rows: [SIMD3(1.41, 0, 0), SIMD3(0, 1.41, 0), SIMD3(0, 0, 1.41)]))
let mixing = ColorMatrix(rows: [SIMD3(0.9, 0.1, 0.05), SIMD3(0.05, 0.85, 0.1), SIMD3(0.1, 0.05, 0.8)],
                         bias: SIMD3(0.02, -0.01, 0.03))
let fiveFilters: [PointOperation] = [ColorMatrixOperation(frontMatrix), Gamma(power: 0.8), ColorMatrixOperation(mixing)]
let tenFilters: [PointOperation] = (0..<5).flatMap { i -> [PointOperation] in
    [ColorMatrixOperation(i == 0 ? frontMatrix : mixing), Gamma(power: i % 2 == 0 ? 0.9 : 1.1)]
}
for (name, chain) in [("five-filter chain", fiveFilters), ("ten-filter chain", tenFilters)] {
    line("point chain: \(name), float blocks", rows(PointChainKernel(operations: chain, transfer: .sRGB,
                                                                      imageWidth: width, imageHeight: height)))
    if let compiled = CompiledChainKernel.compile(chain, transfer: .sRGB, imageWidth: width, imageHeight: height) {
        line("point chain: \(name), compiled tables", rows(compiled))
    } else {
        print("| point chain: \(name), compiled tables | refused | — |")
    }
}
if let gammaTable = CompiledChainKernel.compile([Gamma(power: 0.8)], transfer: .sRGB, imageWidth: width,
                                                imageHeight: height) {
    line("point chain: gamma, compiled tables", rows(gammaTable))
}

// Gaussian blur σ = 10 on float RGBA tiles of 128 × 128 with their margins, as libvips feeds them.
let blur = GaussianBlurKernel(sigma: 10)
let tile = 128, margin = blur.margin
let tileIn = [Float](repeating: 0.5, count: (tile + 2 * margin) * (tile + 2 * margin) * 4)
var tileOut = [Float](repeating: 0, count: tile * tile * 4)
let tiles = pixels / (tile * tile)
let blurTime = tileIn.withUnsafeBufferPointer { src in
    tileOut.withUnsafeMutableBufferPointer { dst in
        best {
            for _ in 0..<tiles {
                blur.apply(input: src.baseAddress!, inputStride: (tile + 2 * margin) * 4, output: dst.baseAddress!,
                           outputStride: tile * 4, width: tile, height: tile, bands: 4, x: 0, y: 0,
                           imageWidth: width, imageHeight: height)
            }
        }
    }
}
line("Gaussian blur σ = 10 (box cascade), float RGBA, 128² tiles", blurTime)
let exactBlur = BlurKernel(.gaussian(sigma: 3))
let exactTime = tileIn.withUnsafeBufferPointer { src in
    tileOut.withUnsafeMutableBufferPointer { dst in
        best {
            for _ in 0..<tiles {
                exactBlur.apply(input: src.baseAddress! + (margin - exactBlur.margin) * ((tile + 2 * margin) * 4 + 4),
                                inputStride: (tile + 2 * margin) * 4, output: dst.baseAddress!, outputStride: tile * 4,
                                width: tile, height: tile, bands: 4, x: 0, y: 0, imageWidth: width, imageHeight: height)
            }
        }
    }
}
line("Gaussian blur σ = 3 (exact taps), float RGBA, 128² tiles", exactTime)

// Audio sample kernels over 60 s of 48 kHz stereo float samples, against memcpy of the same buffer.
let audioFrames = 48_000 * 60
var audioBuffer = [Float](repeating: 0, count: audioFrames * 2)
for i in audioBuffer.indices { audioBuffer[i] = sinf(Float(i) * 0.01) * 0.5 }
var audioCopy = audioBuffer
let audioBytes = Double(audioBuffer.count * 4)
let audioMemcpy = audioBuffer.withUnsafeBytes { src in audioCopy.withUnsafeMutableBytes { dst in best { dst.copyMemory(from: src) } } }
/// GB/s over `bytes` (the stereo buffer unless said), and time ÷ memcpy of the stereo buffer.
func gbLine(_ name: String, _ seconds: Double, bytes: Double = audioBytes) {
    print("| " + name + " | " + String(format: "%.2f", bytes / seconds / 1e9) + " | "
          + String(format: "%.2f×", seconds / audioMemcpy) + " |")
}
print("")
print("Audio kernels over 60 s of 48 kHz stereo float samples (\(Int(audioBytes / 1e6)) MB), one thread")
print("")
print("| kernel | GB/s | time ÷ memcpy |")
print("|---|---:|---:|")
gbLine("memcpy (same buffer)", audioMemcpy)
gbLine("gain (SIMD8 multiply, in place)", audioCopy.withUnsafeMutableBufferPointer { buffer in
    best { AudioKernels.applyGain(buffer.baseAddress!, count: buffer.count, gain: 0.999) }
})
gbLine("meter: per-channel peak and sum of squares", audioBuffer.withUnsafeBufferPointer { buffer in
    best {
        var meter = Meter(channels: 2)
        meter.add(buffer.baseAddress!, frames: audioFrames)
        precondition(meter.frames == audioFrames)
    }
})
var mono = [Float](repeating: 0, count: audioFrames)
gbLine("mix stereo → mono (coefficient matrix)", audioBuffer.withUnsafeBufferPointer { buffer in
    mono.withUnsafeMutableBufferPointer { out in
        best { ChannelMixer.standard(from: 2, to: 1).mix(buffer.baseAddress!, frames: audioFrames, into: out.baseAddress!) }
    }
})
gbLine("mix mono → stereo (GB/s of stereo written)", mono.withUnsafeBufferPointer { input in
    audioCopy.withUnsafeMutableBufferPointer { out in
        best { ChannelMixer.standard(from: 1, to: 2).mix(input.baseAddress!, frames: audioFrames, into: out.baseAddress!) }
    }
})
var fiveOne = [Float](repeating: 0, count: audioFrames * 6)
for i in fiveOne.indices { fiveOne[i] = sinf(Float(i) * 0.003) * 0.5 }
gbLine("mix 5.1 → stereo (GB/s of 5.1 read)", fiveOne.withUnsafeBufferPointer { input in
    audioCopy.withUnsafeMutableBufferPointer { out in
        best { ChannelMixer.standard(from: 6, to: 2).mix(input.baseAddress!, frames: audioFrames, into: out.baseAddress!) }
    }
}, bytes: Double(fiveOne.count * 4))
gbLine("mix quad → stereo (general matrix loop, GB/s of quad read)", fiveOne.withUnsafeBufferPointer { input in
    audioCopy.withUnsafeMutableBufferPointer { out in
        best { ChannelMixer(coefficients: [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]).mix(input.baseAddress!, frames: audioFrames, into: out.baseAddress!) }
    }
}, bytes: Double(audioFrames * 4 * 4))

// Resampling 60 s of 44.1 kHz stereo to 48 kHz as AudioStage streams it (blocks of 4096 frames),
// through libsamplerate's src_process and through the polyphase bank captured from the same
// converter. The first construction per converter captures the bank and checks it against
// libsamplerate; that one-off cost is printed separately.
let resampleFrames = 44_100 * 60
var resampleInput = [Float](repeating: 0, count: resampleFrames * 2)
var noise: UInt32 = 1
for i in 0..<resampleFrames {
    noise = noise &* 1_664_525 &+ 1_013_904_223
    let grain = Float(noise >> 8) / Float(1 << 24) - 0.5
    let t = Float(i) / 44_100
    resampleInput[2 * i] = 0.3 * sinf(2 * .pi * 227 * t) + 0.2 * sinf(2 * .pi * 330 * t) + 0.1 * grain
    resampleInput[2 * i + 1] = 0.3 * sinf(2 * .pi * 277 * t) + 0.2 * sinf(2 * .pi * 330 * t) + 0.1 * grain
}
func resample(_ resampler: Resampler) -> Int {
    let room = Int((4096 * resampler.ratio).rounded(.up)) + 64
    var output = [Float](repeating: 0, count: room * 2)
    var made = 0
    resampleInput.withUnsafeBufferPointer { input in
        output.withUnsafeMutableBufferPointer { out in
            var position = 0
            while true {
                let read = min(4096, resampleFrames - position)
                let end = read < 4096
                var offset = 0
                repeat {
                    let (used, generated) = try! resampler.process(input.baseAddress! + (position + offset) * 2,
                                                                   frames: read - offset, into: out.baseAddress!,
                                                                   capacity: room, end: end)
                    offset += used
                    made += generated
                    if end && generated == 0 && offset >= read { break }
                } while offset < read || end
                position += read
                if end { break }
            }
        }
    }
    return made
}
print("")
print("Resampling 60 s of 44.1 kHz stereo to 48 kHz in blocks of 4096 frames, one thread, best of \(repeats)")
print("")
print("| converter | libsamplerate Mframes/s | polyphase Mframes/s | polyphase × realtime | speed-up | first construction (capture + check) |")
print("|---|---:|---:|---:|---:|---:|")
for (name, quality) in [("sinc fastest", ResamplerQuality.sincFastest), ("sinc medium", .sincMedium),
                        ("sinc best", .sincBest)] {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = try! Resampler(quality: quality, channels: 2, from: 44_100, to: 48_000)
    let firstBuild = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    var reference = 0, polyphase = 0
    let plain = best {
        reference = resample(try! Resampler(quality: quality, channels: 2, from: 44_100, to: 48_000, engine: .libsamplerate))
    }
    let bank = best {
        let resampler = try! Resampler(quality: quality, channels: 2, from: 44_100, to: 48_000)
        precondition(resampler.isPolyphase)
        polyphase = resample(resampler)
    }
    precondition(reference == polyphase, "both make the same number of frames")
    let mframes = Double(resampleFrames) / 1e6
    print("| " + name + " | " + String(format: "%.1f", mframes / plain) + " | " + String(format: "%.1f", mframes / bank)
          + " | " + String(format: "%.0f×", 60 / bank) + " | " + String(format: "**%.1f×**", plain / bank)
          + " | " + String(format: "%.0f ms", firstBuild) + " |")
}
