#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A radial (zoom) blur: each pixel is the mean of samples along the line from it towards a
/// centre, over `amount` percent of its distance to the centre, capped at `maximumReach` pixels so
/// that a tile's margin is bounded whatever the centre. Samples are one pixel apart, bilinear,
/// premultiplied. The centre is in Core Image coordinates (origin bottom-left, y up).
public struct ZoomBlurKernel: RegionKernel {
    public let centreX: Float
    public let centreY: Float
    public let amount: Float
    public let margin: Int
    /// The longest line a pixel is blurred along.
    public static let maximumReach = 256

    public init(centreX: Float, centreY: Float, amount: Float) {
        self.centreX = centreX.isFinite ? centreX : 0
        self.centreY = centreY.isFinite ? centreY : 0
        self.amount = amount.isFinite ? max(0, amount) : 0
        margin = self.amount > 0 ? Self.maximumReach + 1 : 0
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let columns = width + 2 * margin, rows = height + 2 * margin
        let limit = Float(Self.maximumReach)
        for row in 0..<height {
            for column in 0..<width {
                let px = Float(x + column) + 0.5, py = Float(y + row) + 0.5
                let vx = centreX - px, vy = (Float(imageHeight) - centreY) - py
                let distance = (vx * vx + vy * vy).squareRoot()
                let length = min(distance * amount / 100, limit)
                let steps = Int(saturating: Double(length), in: 0...Self.maximumReach, rounding: .up)
                var sum = SIMD4<Float>()
                let ux = distance > 0 ? vx / distance : 0, uy = distance > 0 ? vy / distance : 0
                for k in 0...steps {
                    let t = steps == 0 ? 0 : length * Float(k) / Float(steps)
                    // Block coordinates of the sample (pixel centres at integers).
                    let sx = Float(column + margin) + t * ux, sy = Float(row + margin) + t * uy
                    sum += Self.bilinear(input, inputStride, bands, sx, sy, columns, rows)
                }
                let mean = sum / Float(steps + 1)
                let out = output + row * outputStride + column * bands
                Self.store(mean, out, bands)
            }
        }
    }

    /// The premultiplied sample at block position (sx, sy), held inside the block.
    @inline(__always)
    static func bilinear(_ input: UnsafePointer<Float>, _ stride: Int, _ bands: Int, _ sx: Float, _ sy: Float,
                         _ columns: Int, _ rows: Int) -> SIMD4<Float> {
        // NaN (∞ − ∞ from extreme parameters) reads as 0: it would trap as an index.
        let fx = min(max(sx.isNaN ? 0 : sx, 0), Float(columns - 1)), fy = min(max(sy.isNaN ? 0 : sy, 0), Float(rows - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, columns - 1), y1 = min(y0 + 1, rows - 1)
        let ax = fx - Float(x0), ay = fy - Float(y0)
        let a = pixel(input, stride, bands, x0, y0), b = pixel(input, stride, bands, x1, y0)
        let c = pixel(input, stride, bands, x0, y1), d = pixel(input, stride, bands, x1, y1)
        let top = a + (b - a) * ax, bottom = c + (d - c) * ax
        return top + (bottom - top) * ay
    }

    /// One pixel as premultiplied RGBA (alpha 1 for RGB).
    @inline(__always)
    static func pixel(_ input: UnsafePointer<Float>, _ stride: Int, _ bands: Int, _ x: Int, _ y: Int) -> SIMD4<Float> {
        let p = input + y * stride + x * bands
        let alpha: Float = bands == 4 ? p[3] : 1
        return SIMD4(p[0] * alpha, p[1] * alpha, p[2] * alpha, alpha)
    }

    /// Unpremultiplies and writes one pixel.
    @inline(__always)
    static func store(_ value: SIMD4<Float>, _ out: UnsafeMutablePointer<Float>, _ bands: Int) {
        let inverse: Float = value.w > 1e-6 ? 1 / value.w : 0
        let scale = bands == 4 ? inverse : 1
        out[0] = value.x * scale; out[1] = value.y * scale; out[2] = value.z * scale
        if bands == 4 { out[3] = value.w }
    }
}

/// Each output pixel takes the colour of one input pixel that a rule picks (Voronoi cells,
/// hexagons, dots), or a background colour. The rule works in Core Image coordinates (pixel
/// centres, origin bottom-left, y up) and must stay within `margin` pixels of the pixel it is given.
public struct CellSampleKernel: RegionKernel {
    public let margin: Int
    /// Where pixel (x, y) takes its colour from, or nil for the background.
    public let rule: @Sendable (_ x: Float, _ y: Float) -> SIMD2<Float>?
    /// The background, RGBA in the working space.
    public let background: SIMD4<Float>

    public init(margin: Int, background: SIMD4<Float> = SIMD4(1, 1, 1, 1),
                rule: @escaping @Sendable (Float, Float) -> SIMD2<Float>?) {
        self.margin = max(0, margin)
        self.background = background
        self.rule = rule
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        let columns = width + 2 * margin, rows = height + 2 * margin
        for row in 0..<height {
            let ciY = Float(imageHeight - (y + row)) - 0.5
            for column in 0..<width {
                let out = output + row * outputStride + column * bands
                guard let at = rule(Float(x + column) + 0.5, ciY) else {
                    for b in 0..<bands { out[b] = background[b] }
                    continue
                }
                // Nearest pixel of the block (rounded down from the pixel-centre coordinate).
                let bx = (at.x - Float(x)).rounded(.down) + Float(margin)
                let by = (Float(imageHeight) - at.y - Float(y)).rounded(.down) + Float(margin)
                let sx = Int(min(max(bx.isNaN ? 0 : bx, 0), Float(columns - 1)))
                let sy = Int(min(max(by.isNaN ? 0 : by, 0), Float(rows - 1)))
                let p = input + sy * inputStride + sx * bands
                for b in 0..<bands { out[b] = p[b] }
            }
        }
    }
}

/// A deterministic pseudo-random pair in [0, 1)² for an integer cell (a 32-bit integer hash,
/// after Wang / Jenkins), so cell layouts are the same on every run and every tile.
public func cellJitter(_ i: Int, _ j: Int) -> SIMD2<Float> {
    func mix(_ value: UInt32) -> UInt32 {
        var h = value
        h = (h ^ 61) ^ (h >> 16)
        h = h &* 9
        h = h ^ (h >> 4)
        h = h &* 0x27d4_eb2d
        return h ^ (h >> 15)
    }
    let a = mix(UInt32(truncatingIfNeeded: i) &* 73_856_093 ^ UInt32(truncatingIfNeeded: j) &* 19_349_663)
    let b = mix(a ^ 0x9e37_79b9)
    return SIMD2(Float(a >> 8) / 16_777_216, Float(b >> 8) / 16_777_216)
}

/// Sobel gradient magnitude per colour channel: out = intensity · √(Gx² + Gy²), alpha kept
/// (edges extended, so the border shows no false edge).
public struct SobelKernel: RegionKernel {
    public let intensity: Float
    public var margin: Int { 1 }
    public init(intensity: Float) { self.intensity = intensity }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        for row in 0..<height {
            let centre = input + (row + 1) * inputStride + bands
            let out = output + row * outputStride
            for column in 0..<width {
                let p = centre + column * bands
                for c in 0..<bands {
                    if c == 3 { out[column * 4 + 3] = p[3]; continue }
                    func at(_ dx: Int, _ dy: Int) -> Float { p[dy * inputStride + dx * bands + c] }
                    let gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
                    let gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
                    out[column * bands + c] = intensity * (gx * gx + gy * gy).squareRoot()
                }
            }
        }
    }
}

/// A Gaussian blur combined with the unblurred pixels row by row: `combine(original, blurred,
/// pixels, bands)` rewrites the blurred row (bloom and gloom).
public struct GaussianCombineKernel: RegionKernel {
    public let blur: GaussianBlurKernel
    public let combine: @Sendable (_ original: UnsafePointer<Float>, _ blurred: UnsafeMutablePointer<Float>,
                                   _ count: Int, _ bands: Int) -> Void
    public var margin: Int { blur.margin }

    public init(sigma: Float, combine: @escaping @Sendable (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int, Int) -> Void) {
        blur = GaussianBlurKernel(sigma: sigma)
        self.combine = combine
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        blur.apply(input: input, inputStride: inputStride, output: output, outputStride: outputStride,
                   width: width, height: height, bands: bands, x: x, y: y, imageWidth: imageWidth, imageHeight: imageHeight)
        for row in 0..<height {
            combine(input + (row + margin) * inputStride + margin * bands, output + row * outputStride, width, bands)
        }
    }
}

/// Ink lines where the luma changes: m = clamp((intensity·|∇Y| − threshold)·contrast, 0, 1) with
/// Y the Rec. 709 luma and ∇ the Sobel gradient (CILineOverlay, CIComicEffect).
public struct LineKernel: RegionKernel {
    public enum Output: Sendable {
        /// Black lines with alpha m on transparent (over white when the image has no alpha band).
        case overlay
        /// The image darkened by the lines: rgb·(1 − m), alpha kept.
        case ink
    }

    public let intensity, threshold, contrast: Float
    public let output: Output
    public var margin: Int { 1 }

    public init(intensity: Float, threshold: Float, contrast: Float, output: Output) {
        self.intensity = intensity
        self.threshold = threshold
        self.contrast = contrast
        self.output = output
    }

    public func apply(input: UnsafePointer<Float>, inputStride: Int, output out: UnsafeMutablePointer<Float>,
                      outputStride: Int, width: Int, height: Int, bands: Int, x: Int, y: Int,
                      imageWidth: Int, imageHeight: Int) {
        for row in 0..<height {
            let centre = input + (row + 1) * inputStride + bands
            let line = out + row * outputStride
            for column in 0..<width {
                let p = centre + column * bands
                func luma(_ dx: Int, _ dy: Int) -> Float {
                    let q = p + dy * inputStride + dx * bands
                    return 0.2126 * q[0] + 0.7152 * q[1] + 0.0722 * q[2]
                }
                let gx = (luma(1, -1) + 2 * luma(1, 0) + luma(1, 1)) - (luma(-1, -1) + 2 * luma(-1, 0) + luma(-1, 1))
                let gy = (luma(-1, 1) + 2 * luma(0, 1) + luma(1, 1)) - (luma(-1, -1) + 2 * luma(0, -1) + luma(1, -1))
                let m = ((intensity * (gx * gx + gy * gy).squareRoot() - threshold) * contrast).unitClamped
                let o = line + column * bands
                switch output {
                case .overlay:
                    if bands == 4 {
                        o[0] = 0; o[1] = 0; o[2] = 0; o[3] = m
                    } else {
                        o[0] = 1 - m; o[1] = 1 - m; o[2] = 1 - m
                    }
                case .ink:
                    for c in 0..<3 { o[c] = p[c] * (1 - m) }
                    if bands == 4 { o[3] = p[3] }
                }
            }
        }
    }
}
