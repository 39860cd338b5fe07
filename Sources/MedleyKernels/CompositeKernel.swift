/// Per-component operators on premultiplied colour, as Core Image's …Compositing filters (other
/// than source-over) and CIMix define them. S and D are the source (foreground) and destination
/// (background) pixels premultiplied, alpha included.
public enum CompositeOperator: Sendable, Equatable {
    /// S + D (CIAdditionCompositing).
    case addition
    /// max(S, D) per component (CIMaximumCompositing).
    case maximum
    /// min(S, D) per component (CIMinimumCompositing).
    case minimum
    /// S · D per component (CIMultiplyCompositing).
    case multiply
    /// Porter-Duff source-atop: S·αd + D·(1 − αs).
    case sourceAtop
    /// Porter-Duff source-in: S·αd.
    case sourceIn
    /// Porter-Duff source-out: S·(1 − αd).
    case sourceOut
    /// D + (S − D)·amount (CIMix; the filter clamps the amount to 0…1, as Apple documents).
    case mix(Float)

    @inline(__always)
    func combine(_ s: SIMD4<Float>, _ d: SIMD4<Float>) -> SIMD4<Float> {
        switch self {
        case .addition: return s + d
        case .maximum: return pointwiseMax(s, d)
        case .minimum: return pointwiseMin(s, d)
        case .multiply: return s * d
        case .sourceAtop:
            let out = s * d.w + d * (1 - s.w)
            return SIMD4(out.x, out.y, out.z, d.w)
        case .sourceIn: return s * d.w
        case .sourceOut: return s * (1 - d.w)
        case .mix(let amount): return d + (s - d) * amount
        }
    }
}

/// A `CompositeOperator` over rows of float RGBA (unpremultiplied, as Medley keeps pixels):
/// premultiply, combine, unpremultiply. Alpha above 1 (an addition of two opaque pixels) is
/// stored as 1 with the premultiplied colour kept, which is what a clamp of Core Image's
/// premultiplied result gives.
public struct CompositeKernel: RowKernel2 {
    public let operation: CompositeOperator
    public init(_ operation: CompositeOperator) { self.operation = operation }

    public func apply(first foreground: UnsafePointer<Float>, second background: UnsafePointer<Float>,
                      to output: UnsafeMutablePointer<Float>, width: Int, bands: Int, x: Int, y: Int) {
        precondition(bands == 4, "compositing runs on RGBA")
        for i in stride(from: 0, to: width * 4, by: 4) {
            let sa = foreground[i + 3], da = background[i + 3]
            let s = SIMD4(foreground[i] * sa, foreground[i + 1] * sa, foreground[i + 2] * sa, sa)
            let d = SIMD4(background[i] * da, background[i + 1] * da, background[i + 2] * da, da)
            let out = operation.combine(s, d)
            let alpha = min(out.w, 1)
            let inverse: Float = alpha > 1e-6 ? 1 / alpha : 0
            output[i] = out.x * inverse
            output[i + 1] = out.y * inverse
            output[i + 2] = out.z * inverse
            output[i + 3] = alpha
        }
    }
}

/// Which value of a mask pixel weighs a masked blend (CIBlendWith…Mask).
public enum MaskChannel: Sendable {
    case red, green, blue, alpha
}

/// One half of a masked blend: the second image (float RGBA) with its alpha scaled by the mask
/// value m of the first (premultiplied by the mask's alpha, as Core Image's samples are), or by
/// 1 − m when `inverted`. The colour stays; summing the two halves with `.addition` gives
/// Core Image's premultiplied mix(background, image, m).
public struct MaskWeightKernel: RowKernel2 {
    public let channel: MaskChannel
    public let inverted: Bool
    public init(_ channel: MaskChannel, inverted: Bool) {
        self.channel = channel
        self.inverted = inverted
    }

    public func apply(first mask: UnsafePointer<Float>, second image: UnsafePointer<Float>,
                      to output: UnsafeMutablePointer<Float>, width: Int, bands: Int, x: Int, y: Int) {
        precondition(bands == 4, "compositing runs on RGBA")
        for i in stride(from: 0, to: width * 4, by: 4) {
            let maskAlpha = mask[i + 3]
            let value: Float
            switch channel {
            case .red: value = mask[i] * maskAlpha
            case .green: value = mask[i + 1] * maskAlpha
            case .blue: value = mask[i + 2] * maskAlpha
            case .alpha: value = maskAlpha
            }
            let m = value.clampedToUnit
            output[i] = image[i]
            output[i + 1] = image[i + 1]
            output[i + 2] = image[i + 2]
            output[i + 3] = image[i + 3] * (inverted ? 1 - m : m)
        }
    }
}
