import Foundation
import MedleyKernels
import XCTest

/// Region kernels on hand-made float blocks, against sums written out here.
final class ConvolutionTests: XCTestCase {
    /// A block of `width × height` RGB pixels plus `margin` on every side, from a function.
    func block(width: Int, height: Int, margin: Int, bands: Int = 3,
               _ value: (Int, Int, Int) -> Float) -> [Float] {
        let w = width + 2 * margin, h = height + 2 * margin
        var data = [Float](repeating: 0, count: w * h * bands)
        for y in 0..<h { for x in 0..<w { for c in 0..<bands { data[(y * w + x) * bands + c] = value(x - margin, y - margin, c) } } }
        return data
    }

    func run(_ kernel: RegionKernel, _ input: [Float], width: Int, height: Int, bands: Int = 3) -> [Float] {
        var output = [Float](repeating: .nan, count: width * height * bands)
        input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                kernel.apply(input: src.baseAddress!, inputStride: (width + 2 * kernel.margin) * bands,
                             output: dst.baseAddress!, outputStride: width * bands, width: width, height: height,
                             bands: bands, x: 0, y: 0, imageWidth: width, imageHeight: height)
            }
        }
        return output
    }

    func testGaussianOfAnImpulseIsTheGaussian() {
        let sigma: Float = 2
        let kernel = BlurKernel(.gaussian(sigma: sigma))
        XCTAssertEqual(kernel.margin, 6, "taps reach 3σ")
        let size = 13
        let input = block(width: size, height: size, margin: kernel.margin) { x, y, _ in x == 6 && y == 6 ? 1 : 0 }
        let output = run(kernel, input, width: size, height: size)
        // By hand: g(d) = exp(−d²/2σ²) / Σ exp(−k²/2σ²) for k in −6…6, and the 2-D result is g(dx)·g(dy).
        let total = (-6...6).map { exp(-Double($0 * $0) / 8) }.reduce(0, +)
        func g(_ d: Int) -> Double { exp(-Double(d * d) / 8) / total }
        for (dx, dy) in [(0, 0), (1, 0), (2, 3), (6, 6), (-4, 1)] {
            XCTAssertEqual(Double(output[((6 + dy) * size + 6 + dx) * 3]), g(dx) * g(dy), accuracy: 1e-6, "(\(dx), \(dy))")
        }
        XCTAssertEqual(Double(output.reduce(0, +)) / 3, 1, accuracy: 1e-4, "energy is kept")
    }

    func testBoxBlurAveragesItsSquare() {
        let kernel = BlurKernel(.box(radius: 1))
        let input = block(width: 4, height: 4, margin: 1) { x, y, c in Float(x + 10 * y + 100 * c) }
        let output = run(kernel, input, width: 4, height: 4)
        // A linear ramp is its own 3×3 mean.
        for y in 0..<4 { for x in 0..<4 { XCTAssertEqual(output[(y * 4 + x) * 3 + 1], Float(x + 10 * y + 100), accuracy: 1e-4) } }
    }

    func testPremultipliedBlurKeepsTransparentColourOut() {
        // Left half opaque red, right half transparent green: blurred colour stays red, alpha spreads.
        let kernel = BlurKernel(.box(radius: 1))
        let input = block(width: 4, height: 1, margin: 1, bands: 4) { x, _, c in
            x < 2 ? [1, 0, 0, 1][c] : [0, 1, 0, 0][c]
        }
        let output = run(kernel, input, width: 4, height: 1, bands: 4)
        let edge = Array(output[8..<12])  // pixel 2: two transparent, one opaque neighbour
        XCTAssertEqual(edge[0], 1, accuracy: 1e-5, "colour is the opaque neighbour's")
        XCTAssertEqual(edge[1], 0, accuracy: 1e-5, "no green bleeds from transparent pixels")
        XCTAssertEqual(edge[3], 1.0 / 3, accuracy: 1e-5)
    }

    func testPixellateAveragesEachCell() {
        let kernel = PixellateKernel(cellSize: 2, originX: 0, originYFromBottom: 4)
        let input = block(width: 4, height: 4, margin: 2) { x, y, _ in Float(x + 4 * y) }
        let output = run(kernel, input, width: 4, height: 4)
        // Cells [0,1]×[0,1] → (0+1+4+5)/4 = 2.5; [2,3]×[2,3] → (10+11+14+15)/4 = 12.5.
        XCTAssertEqual(output[0], 2.5)
        XCTAssertEqual(output[(1 * 4 + 1) * 3], 2.5)
        XCTAssertEqual(output[(3 * 4 + 3) * 3], 12.5)
    }

    func testBlendModesFollowTheW3CFormulas() {
        let fg: [Float] = [0.2, 0.6, 0.9, 1, 0.2, 0.6, 0.9, 0.5]
        let bg: [Float] = [0.5, 0.3, 0.1, 1, 0.5, 0.3, 0.1, 1]
        func blend(_ mode: BlendMode) -> [Float] {
            var out = [Float](repeating: 0, count: 8)
            fg.withUnsafeBufferPointer { f in bg.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in
                BlendKernel(mode).apply(first: f.baseAddress!, second: b.baseAddress!, to: o.baseAddress!, width: 2,
                                        bands: 4, x: 0, y: 0)
            } } }
            return out
        }
        let multiply = blend(.multiply), screen = blend(.screen), overlay = blend(.overlay), normal = blend(.normal)
        XCTAssertEqual(multiply[0], 0.2 * 0.5, accuracy: 1e-6)
        XCTAssertEqual(screen[1], 0.6 + 0.3 - 0.18, accuracy: 1e-6)
        XCTAssertEqual(overlay[0], 2 * 0.2 * 0.5, accuracy: 1e-6, "backdrop ≤ 0.5: multiply")
        XCTAssertEqual(normal[0], 0.2, accuracy: 1e-6)
        // Half-transparent source over opaque: 0.5·Cs + 0.5·Cb, alpha 1.
        XCTAssertEqual(normal[4], 0.5 * 0.2 + 0.5 * 0.5, accuracy: 1e-6)
        XCTAssertEqual(normal[7], 1, accuracy: 1e-6)
        XCTAssertEqual(multiply[4], 0.5 * 0.2 * 0.5 + 0.5 * 0.5, accuracy: 1e-6)
    }
}

final class VectorMathTests: XCTestCase {
    func testPowMatchesTheCLibraryWithinThreeMillionths() {
        var worst: Float = 0
        for i in 1...20000 {
            let x = Float(i) / 10000  // 0.0001 … 2
            for y: Float in [0.25, 1 / 2.4, 0.8, 1.1, 2.2, 2.4, 4] {
                let mine = VectorMath.pow(SIMD8(repeating: x), y)[3]
                worst = max(worst, abs(mine - powf(x, y)) / powf(x, y))
            }
        }
        XCTAssertLessThan(worst, 3e-6)
        XCTAssertEqual(VectorMath.pow(SIMD8(repeating: 0), 2.2)[0], 0)
        XCTAssertEqual(VectorMath.pow(SIMD8(repeating: -0.5), 2.2)[0], 0)
        XCTAssertEqual(VectorMath.exp2(SIMD8(repeating: 10))[0], 1024, accuracy: 1e-3)
        XCTAssertEqual(VectorMath.log2(SIMD8(repeating: 0.125))[0], -3, accuracy: 1e-6)
    }
}

final class BoxCascadeTests: XCTestCase {
    func testTheCascadeHasTheGaussiansVarianceAndUnitMass() {
        for sigma: Float in [4, 7.5, 10, 25] {
            let cascade = BoxCascade.gaussian(sigma: sigma)
            let kernel = GaussianBlurKernel(sigma: sigma)
            let m = kernel.margin, size = 2 * m + 1
            // One row, one band: the response to an impulse is the 1-D cascade kernel... in both
            // directions, so measure along a row through the centre.
            var input = [Float](repeating: 0, count: (size + 2 * m) * (size + 2 * m))
            input[(m + m) * (size + 2 * m) + (m + m)] = 1
            var output = [Float](repeating: 0, count: size * size)
            input.withUnsafeBufferPointer { src in output.withUnsafeMutableBufferPointer { dst in
                kernel.apply(input: src.baseAddress!, inputStride: size + 2 * m, output: dst.baseAddress!, outputStride: size,
                             width: size, height: size, bands: 1, x: 0, y: 0, imageWidth: size, imageHeight: size)
            } }
            let mass = output.reduce(0, +)
            XCTAssertEqual(mass, 1, accuracy: 1e-4, "σ \(sigma)")
            // Variance along x of the 2-D response: Σ w·dx² should be σ² (Kovesi's widths match it
            // up to the rounding of box widths to odd integers).
            var variance: Float = 0
            for y in 0..<size { for x in 0..<size { variance += output[y * size + x] * Float((x - m) * (x - m)) } }
            XCTAssertEqual(variance.squareRoot(), sigma, accuracy: 0.35, "σ \(sigma): radii \(cascade.radii)")
        }
    }

    func testTheCascadeIsCloseToTheExactGaussianOnAnImage() {
        // A grainy gradient, blurred both ways: the worst difference is the cascade's error bound.
        let sigma: Float = 10
        let exact = SeparableConvolution.gaussian(sigma: sigma)
        let cascade = BoxCascade.gaussian(sigma: sigma)
        let m = max(exact.radius, cascade.radius), w = 40, h = 30
        var state: UInt64 = 42
        var input = [Float](repeating: 0, count: (w + 2 * m) * (h + 2 * m) * 3)
        for i in input.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            input[i] = Float(i % 97) / 97 * 0.6 + Float(state % 1000) / 1000 * 0.4
        }
        var a = [Float](repeating: 0, count: w * h * 3), b = a
        input.withUnsafeBufferPointer { src in
            a.withUnsafeMutableBufferPointer { dst in
                exact.apply(input: src.baseAddress!, inputStride: (w + 2 * m) * 3, margin: m, output: dst.baseAddress!,
                            outputStride: w * 3, width: w, height: h, bands: 3)
            }
            b.withUnsafeMutableBufferPointer { dst in
                cascade.apply(input: src.baseAddress!, inputStride: (w + 2 * m) * 3, margin: m, output: dst.baseAddress!,
                              outputStride: w * 3, width: w, height: h, bands: 3)
            }
        }
        let worst = zip(a, b).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(worst, 0.002, "in linear light (measured 0.0005): well under one 8-bit step")
    }
}

final class MeterTests: XCTestCase {
    func testVectorisedAndScalarTalliesAgreeWithHandSums() {
        // Three channels take the scalar path, two the vector path; sums written out here.
        for channels in [1, 2, 3, 6] {
            let frames = 1001
            var samples = [Float](repeating: 0, count: frames * channels)
            for i in samples.indices { samples[i] = sinf(Float(i) * 0.37) * Float(1 + i % channels) / Float(channels + 1) }
            var meter = Meter(channels: channels)
            samples.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: frames) }
            for c in 0..<channels {
                let channel = stride(from: c, to: samples.count, by: channels).map { Double(samples[$0]) }
                let peak = channel.map(abs).max()!
                let rms = (channel.map { $0 * $0 }.reduce(0, +) / Double(frames)).squareRoot()
                XCTAssertEqual(meter.peakPower(channel: c), 20 * log10(peak), accuracy: 1e-4, "\(channels) ch, channel \(c)")
                XCTAssertEqual(meter.averagePower(channel: c), 20 * log10(rms), accuracy: 1e-3, "\(channels) ch, channel \(c)")
            }
        }
    }
}

final class ChannelMixerTests: XCTestCase {
    func testStandardMixesByHand() {
        // Stereo → mono: the average, for a frame count that exercises the vector path and the tail.
        let frames = 13
        let stereo = (0..<frames * 2).map { Float($0) * 0.01 }
        var mono = [Float](repeating: 0, count: frames)
        ChannelMixer.standard(from: 2, to: 1).mix(stereo, frames: frames, into: &mono)
        for f in 0..<frames { XCTAssertEqual(mono[f], (stereo[2 * f] + stereo[2 * f + 1]) / 2, accuracy: 1e-6) }
        // Mono → stereo: both sides carry the signal.
        var wide = [Float](repeating: 0, count: 6)
        ChannelMixer.standard(from: 1, to: 2).mix([0.1, 0.2, 0.3], frames: 3, into: &wide)
        XCTAssertEqual(wide, [0.1, 0.1, 0.2, 0.2, 0.3, 0.3])
        // 5.1 → stereo: L = (FL + h·FC + h·BL) / (1 + 2h), LFE dropped.
        let h: Float = 0.70710677
        var two = [Float](repeating: 0, count: 2)
        ChannelMixer.standard(from: 6, to: 2).mix([1, 0, 1, 1, 1, 0], frames: 1, into: &two)
        XCTAssertEqual(two[0], (1 + h + h) / (1 + 2 * h), accuracy: 1e-6)
        XCTAssertEqual(two[1], h / (1 + 2 * h), accuracy: 1e-6)
    }

    /// The specialised loops against the textbook formulas, over many frames of varied values.
    func testSpecialisedMixesMatchTheFormulasOverManyFrames() {
        let frames = 1003
        let h: Float = 0.70710677
        var generator = SplitMix64(seed: 20_260_112)  // seeded: the same frames on every run and machine
        let six = (0..<frames * 6).map { _ in Float.random(in: -1...1, using: &generator) }
        var stereo = [Float](repeating: .nan, count: frames * 2)
        ChannelMixer.standard(from: 6, to: 2).mix(six, frames: frames, into: &stereo)
        for f in 0..<frames {
            let x = Array(six[6 * f..<6 * f + 6])
            XCTAssertEqual(stereo[2 * f], (x[0] + h * x[2] + h * x[4]) / (1 + 2 * h), accuracy: 1e-6)
            XCTAssertEqual(stereo[2 * f + 1], (x[1] + h * x[2] + h * x[5]) / (1 + 2 * h), accuracy: 1e-6)
        }
        let mono = Array(six[0..<frames])
        var wide = [Float](repeating: .nan, count: frames * 2)
        ChannelMixer.standard(from: 1, to: 2).mix(mono, frames: frames, into: &wide)
        for f in 0..<frames {
            XCTAssertEqual(wide[2 * f], mono[f])
            XCTAssertEqual(wide[2 * f + 1], mono[f])
        }
        // A map without its own loop: quad → stereo keeps the front pair.
        let quad = Array(six[0..<frames * 4])
        var front = [Float](repeating: .nan, count: frames * 2)
        ChannelMixer.standard(from: 4, to: 2).mix(quad, frames: frames, into: &front)
        for f in 0..<frames {
            XCTAssertEqual(front[2 * f], quad[4 * f])
            XCTAssertEqual(front[2 * f + 1], quad[4 * f + 1])
        }
    }

    /// A pipeline's radius can be any number up to ∞: kernels are built for at most σ = 10,000 (their reach,
    /// 3σ = 30,000 pixels, is what the renderer then refuses), and NaN blurs nothing.
    func testBlurRadiiBeyondAnyImageAreBuiltBounded() {
        XCTAssertEqual(SeparableConvolution.gaussian(sigma: .infinity).radius, 30_000)
        XCTAssertEqual(SeparableConvolution.gaussian(sigma: 1e30).radius, 30_000)
        XCTAssertEqual(SeparableConvolution.gaussian(sigma: .nan).radius, 0)
        XCTAssertEqual(GaussianBlurKernel(sigma: .infinity).margin, BoxCascade.gaussian(sigma: 10_000).radius)
        XCTAssertEqual(GaussianBlurKernel(sigma: .nan).margin, 0)
        // Three boxes of variance (2r + 1)² − 1) / 12 each sum to σ² = 10⁸ within one box step.
        let radii = BoxCascade.gaussian(sigma: .infinity).radii
        let variance = radii.map { Double((2 * $0 + 1) * (2 * $0 + 1) - 1) / 12 }.reduce(0, +)
        XCTAssertEqual(variance, 1e8, accuracy: 1e8 * 1e-3)
    }

    /// A pixellate origin any distance away is the same grid: whole cells are dropped, so 10³⁰⁰ (a multiple of
    /// the cell) is the origin at 0, and ∞ is taken as 0.
    func testPixellateOriginsAnyDistanceAwayAreTheSameGrid() {
        let far = PixellateKernel(cellSize: 4, originX: 1e300, originYFromBottom: -.infinity)
        XCTAssertEqual(far.originX, 0)
        XCTAssertEqual(far.originYFromBottom, 0)
        XCTAssertEqual(PixellateKernel(cellSize: 4, originX: 4_000_000_000_001.5, originYFromBottom: 6).originX, 1.5)
        XCTAssertEqual(PixellateKernel(cellSize: 4, originX: 4_000_000_000_001.5, originYFromBottom: 6).originYFromBottom, 2)
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014), a seeded generator so that test inputs are the same on
/// every run; MedleyCore has its own, which this module does not import.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
