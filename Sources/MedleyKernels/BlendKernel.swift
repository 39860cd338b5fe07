/// Separable blend modes of the W3C Compositing and Blending spec, as Core Image's
/// CI…BlendMode and CISourceOverCompositing filters use them.
public enum BlendMode: Sendable {
    /// Porter-Duff source-over: the foreground as it is.
    case normal
    case multiply
    case screen
    case overlay

    /// B(backdrop, source) for one channel.
    @inline(__always)
    func blend(_ backdrop: Float, _ source: Float) -> Float {
        switch self {
        case .normal: return source
        case .multiply: return backdrop * source
        case .screen: return backdrop + source - backdrop * source
        case .overlay:
            // HardLight with the layers swapped.
            return backdrop <= 0.5 ? 2 * source * backdrop
                : source + (2 * backdrop - 1) - source * (2 * backdrop - 1)
        }
    }
}

/// Foreground over background (both float RGBA, unpremultiplied), by the W3C general formula:
/// co = αs(1 − αb)Cs + αsαb·B(Cb, Cs) + (1 − αs)αbCb, αo = αs + αb(1 − αs), then unpremultiplied.
public struct BlendKernel: RowKernel2 {
    public let mode: BlendMode
    public init(_ mode: BlendMode) { self.mode = mode }

    public func apply(first foreground: UnsafePointer<Float>, second background: UnsafePointer<Float>,
                      to output: UnsafeMutablePointer<Float>, width: Int, bands: Int, x: Int, y: Int) {
        precondition(bands == 4, "compositing runs on RGBA")
        for i in stride(from: 0, to: width * 4, by: 4) {
            let sa = foreground[i + 3], ba = background[i + 3]
            let oa = sa + ba * (1 - sa)
            let inverse: Float = oa > 1e-6 ? 1 / oa : 0
            for c in 0..<3 {
                let cs = foreground[i + c], cb = background[i + c]
                let co = sa * (1 - ba) * cs + sa * ba * mode.blend(cb, cs) + (1 - sa) * ba * cb
                output[i + c] = co * inverse
            }
            output[i + 3] = oa
        }
    }
}
