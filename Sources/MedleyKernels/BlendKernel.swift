/// The blend modes of the W3C Compositing and Blending Level 1 spec (separable and non-separable)
/// and the Photoshop modes Core Image adds (linear burn/dodge/light, pin light, vivid light,
/// subtract, divide), as Core Image's CI…BlendMode and CISourceOverCompositing filters use them.
/// `blend` is B(Cb, Cs): the backdrop and source colours, unpremultiplied, of one pixel.
public enum BlendMode: Sendable, CaseIterable {
    /// Porter-Duff source-over: the foreground as it is.
    case normal
    case multiply
    case screen
    case overlay
    case darken
    case lighten
    case colorDodge
    case colorBurn
    case hardLight
    case softLight
    case difference
    case exclusion
    /// Photoshop: Cb + Cs − 1, clipped to 0…1.
    case linearBurn
    /// Photoshop: Cb + Cs, clipped to 0…1.
    case linearDodge
    /// Photoshop: Cb + 2·Cs − 1, clipped to 0…1.
    case linearLight
    /// Photoshop: darken with 2·Cs below half, lighten with 2·Cs − 1 above.
    case pinLight
    /// Photoshop: colour burn with 2·Cs below half, colour dodge with 2·(Cs − 0.5) above.
    case vividLight
    /// Photoshop: Cb − Cs, clipped at 0.
    case subtract
    /// Photoshop: Cb / Cs, clipped to 0…1 (white where Cs is 0, black where both are).
    case divide
    case hue
    case saturation
    case color
    case luminosity

    /// Whether the mode works on each channel alone (W3C "separable").
    public var isSeparable: Bool {
        switch self {
        case .hue, .saturation, .color, .luminosity: return false
        default: return true
        }
    }

    /// B(Cb, Cs) for one pixel's colour.
    @inline(__always)
    public func blend(_ backdrop: SIMD3<Float>, _ source: SIMD3<Float>) -> SIMD3<Float> {
        switch self {
        case .hue: return Self.setLum(Self.setSat(source, Self.sat(backdrop)), Self.lum(backdrop))
        case .saturation: return Self.setLum(Self.setSat(backdrop, Self.sat(source)), Self.lum(backdrop))
        case .color: return Self.setLum(source, Self.lum(backdrop))
        case .luminosity: return Self.setLum(backdrop, Self.lum(source))
        default:
            return SIMD3(blend(backdrop.x, source.x), blend(backdrop.y, source.y), blend(backdrop.z, source.z))
        }
    }

    /// B(Cb, Cs) for one channel of a separable mode (non-separable modes return the source).
    @inline(__always)
    public func blend(_ cb: Float, _ cs: Float) -> Float {
        switch self {
        case .normal: return cs
        case .multiply: return cb * cs
        case .screen: return Self.screen(cb, cs)
        case .overlay: return Self.hardLight(cs, cb)  // HardLight with the layers swapped
        case .darken: return min(cb, cs)
        case .lighten: return max(cb, cs)
        case .colorDodge: return Self.colorDodge(cb, cs)
        case .colorBurn: return Self.colorBurn(cb, cs)
        case .hardLight: return Self.hardLight(cb, cs)
        case .softLight:
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : max(cb, 0).squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        case .difference: return abs(cb - cs)
        case .exclusion: return cb + cs - 2 * cb * cs
        case .linearBurn: return (cb + cs - 1).clampedToUnit
        case .linearDodge: return (cb + cs).clampedToUnit
        case .linearLight: return (cb + 2 * cs - 1).clampedToUnit
        case .pinLight: return cs < 0.5 ? min(cb, 2 * cs) : max(cb, 2 * cs - 1)
        case .vividLight: return cs <= 0.5 ? Self.colorBurn(cb, 2 * cs) : Self.colorDodge(cb, 2 * (cs - 0.5))
        case .subtract: return max(cb - cs, 0)
        case .divide:
            if cs > 0 { return (cb / cs).clampedToUnit }
            return cb > 0 ? 1 : 0
        case .hue, .saturation, .color, .luminosity: return cs
        }
    }

    @inline(__always) static func screen(_ cb: Float, _ cs: Float) -> Float { cb + cs - cb * cs }

    @inline(__always) static func hardLight(_ cb: Float, _ cs: Float) -> Float {
        cs <= 0.5 ? cb * 2 * cs : screen(cb, 2 * cs - 1)
    }

    @inline(__always) static func colorDodge(_ cb: Float, _ cs: Float) -> Float {
        if cb <= 0 { return 0 }
        if cs >= 1 { return 1 }
        return min(1, cb / (1 - cs))
    }

    @inline(__always) static func colorBurn(_ cb: Float, _ cs: Float) -> Float {
        if cb >= 1 { return 1 }
        if cs <= 0 { return 0 }
        return 1 - min(1, (1 - cb) / cs)
    }

    // The W3C spec's helpers for the non-separable modes (§ 9.2.3).

    @inline(__always) static func lum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

    @inline(__always) static func clipColor(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = lum(c), n = c.min(), x = c.max()
        var out = c
        // The guards keep a grey of out-of-range values (n = l or x = l) from dividing by zero.
        if n < 0, l - n > 1e-12 { out = l + (out - l) * (l / (l - n)) }
        if x > 1, x - l > 1e-12 { out = l + (out - l) * ((1 - l) / (x - l)) }
        return out
    }

    @inline(__always) static func setLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
        clipColor(c + (l - lum(c)))
    }

    @inline(__always) static func sat(_ c: SIMD3<Float>) -> Float { c.max() - c.min() }

    /// The largest channel becomes s, the smallest 0, the middle one keeps its place between them.
    @inline(__always) static func setSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
        let low = c.min(), range = c.max() - low
        guard range > 0 else { return SIMD3(repeating: 0) }
        return (c - low) * (s / range)
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
            let cs = SIMD3(foreground[i], foreground[i + 1], foreground[i + 2])
            let cb = SIMD3(background[i], background[i + 1], background[i + 2])
            let co = sa * (1 - ba) * cs + sa * ba * mode.blend(cb, cs) + (1 - sa) * ba * cb
            output[i] = co.x * inverse
            output[i + 1] = co.y * inverse
            output[i + 2] = co.z * inverse
            output[i + 3] = oa
        }
    }
}
