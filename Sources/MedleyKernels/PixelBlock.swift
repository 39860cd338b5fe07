/// A run of pixels of one row in planar float form: working-space values (linear light by
/// default), alpha unpremultiplied, 0…1 nominal range (values outside it are kept, as in Core
/// Image's extended-range working format, until the final encode clamps them).
///
/// The planes hold `paddedCount` floats (a multiple of 8), so operations can always work in
/// whole `SIMD8<Float>` vectors; lanes past `count` are scratch.
public struct PixelBlock {
    public let red: UnsafeMutablePointer<Float>
    public let green: UnsafeMutablePointer<Float>
    public let blue: UnsafeMutablePointer<Float>
    public let alpha: UnsafeMutablePointer<Float>
    public let count: Int
    /// Image position of the first pixel, and the image size, for position-dependent filters.
    public let x: Int
    public let y: Int
    public let imageWidth: Int
    public let imageHeight: Int

    public var paddedCount: Int { (count + 7) & ~7 }

    public init(red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                blue: UnsafeMutablePointer<Float>, alpha: UnsafeMutablePointer<Float>,
                count: Int, x: Int, y: Int, imageWidth: Int, imageHeight: Int) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
        self.count = count
        self.x = x
        self.y = y
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// Calls `body` with each group of eight pixels and stores what it leaves in the vectors.
    @inlinable @inline(__always)
    public func forEachVector(_ body: (inout SIMD8<Float>, inout SIMD8<Float>, inout SIMD8<Float>,
                                       inout SIMD8<Float>) -> Void) {
        var i = 0
        while i < count {
            var r = UnsafeRawPointer(red + i).loadUnaligned(as: SIMD8<Float>.self)
            var g = UnsafeRawPointer(green + i).loadUnaligned(as: SIMD8<Float>.self)
            var b = UnsafeRawPointer(blue + i).loadUnaligned(as: SIMD8<Float>.self)
            var a = UnsafeRawPointer(alpha + i).loadUnaligned(as: SIMD8<Float>.self)
            body(&r, &g, &b, &a)
            UnsafeMutableRawPointer(red + i).storeBytes(of: r, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(green + i).storeBytes(of: g, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(blue + i).storeBytes(of: b, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(alpha + i).storeBytes(of: a, as: SIMD8<Float>.self)
            i += 8
        }
    }

    /// Like `forEachVector`, also giving each lane's image x (as floats) — for vignettes and
    /// other filters that depend on position. The row's y is `self.y`.
    @inlinable @inline(__always)
    public func forEachVectorWithX(_ body: (SIMD8<Float>, inout SIMD8<Float>, inout SIMD8<Float>,
                                            inout SIMD8<Float>, inout SIMD8<Float>) -> Void) {
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        var i = 0
        forEachVector { r, g, b, a in
            body(lanes + Float(x + i), &r, &g, &b, &a)
            i += 8
        }
    }
}

/// A filter's per-pixel maths on a `PixelBlock`, in the working space. Operations know nothing of
/// graphs or of how pixels are stored; the optimiser strings them together into one pass.
public protocol PointOperation: Sendable {
    func apply(_ block: PixelBlock)
    /// Whether the operation may change alpha (CIColorClamp, CIColorPolynomial): an opaque image
    /// then gets an alpha band to carry the change.
    var changesAlpha: Bool { get }
    /// Whether each colour channel's result is a continuous function of that channel's value alone,
    /// the same at every pixel, with alpha neither read nor changed (CIGammaAdjust, CIToneCurve): the
    /// optimiser may then sample the operation into tables (`CompiledChainKernel`). Steps
    /// (posterize, thresholds) are not continuous and stay false.
    var isChannelwise: Bool { get }
}

extension PointOperation {
    public var changesAlpha: Bool { false }
    public var isChannelwise: Bool { false }
}

/// A colour matrix as a step of a fused chain (the fast all-matrix case uses `ColorMatrixKernel`).
public struct ColorMatrixOperation: PointOperation {
    public let matrix: ColorMatrix
    public init(_ matrix: ColorMatrix) { self.matrix = matrix }

    public func apply(_ block: PixelBlock) {
        let m = matrix.rows
        let bias = matrix.bias
        block.forEachVector { r, g, b, _ in
            let nr = m[0].x * r + m[0].y * g + m[0].z * b + bias.x
            let ng = m[1].x * r + m[1].y * g + m[1].z * b + bias.y
            let nb = m[2].x * r + m[2].y * g + m[2].z * b + bias.z
            r = nr
            g = ng
            b = nb
        }
    }
}
