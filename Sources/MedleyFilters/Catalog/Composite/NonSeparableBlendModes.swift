import MedleyKernels

// The non-separable blend modes of W3C Compositing and Blending Level 1 (§ 9.2), with its
// helpers: Lum(C) = 0.3R + 0.59G + 0.11B, SetLum, ClipColor, Sat, SetSat.

enum HueBlendMode: BlendFilter {
    static let mode = BlendMode.hue
    static let name = "CIHueBlendMode"
    static let displayName = "Hue Blend Mode"
    static let summary = "Uses the luminance and saturation values of the background with the hue of the input image."
    static let formula = "B(Cb, Cs) = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb))"
}

enum SaturationBlendMode: BlendFilter {
    static let mode = BlendMode.saturation
    static let name = "CISaturationBlendMode"
    static let displayName = "Saturation Blend Mode"
    static let summary = "Uses the luminance and hue values of the background with the saturation of the input image. "
        + "Areas of the background that have no saturation (that is, pure gray areas) do not produce a change."
    static let formula = "B(Cb, Cs) = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb))"
}

enum ColorBlendMode: BlendFilter {
    static let mode = BlendMode.color
    static let name = "CIColorBlendMode"
    static let displayName = "Color Blend Mode"
    static let summary = "Uses the luminance values of the background with the hue and saturation values of the source "
        + "image. This mode preserves the gray levels in the image. You can use this mode to color monochrome images "
        + "or to tint color images."
    static let formula = "B(Cb, Cs) = SetLum(Cs, Lum(Cb))"
}

enum LuminosityBlendMode: BlendFilter {
    static let mode = BlendMode.luminosity
    static let name = "CILuminosityBlendMode"
    static let displayName = "Luminosity Blend Mode"
    static let summary = "Uses the hue and saturation of the background with the luminance of the source image. This "
        + "mode creates an effect that is inverse to the effect created by the CIColorBlendMode filter."
    static let formula = "B(Cb, Cs) = SetLum(Cb, Lum(Cs))"
}
