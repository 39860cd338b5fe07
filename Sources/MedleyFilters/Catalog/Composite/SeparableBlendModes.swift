import MedleyKernels

// The separable blend modes of W3C Compositing and Blending Level 1 (§ 9.1) that Core Image has
// beyond multiply, screen and overlay (`BlendFilters.swift`). B(Cb, Cs): Cb the background's
// colour, Cs the input image's.

enum DarkenBlendMode: BlendFilter {
    static let mode = BlendMode.darken
    static let name = "CIDarkenBlendMode"
    static let displayName = "Darken Blend Mode"
    static let summary = "Creates composite image samples by choosing the darker samples (from either the source "
        + "image or the background). The result is that the background image samples are replaced by any source "
        + "image samples that are darker. Otherwise, the background image samples are left unchanged."
    static let formula = "B(Cb, Cs) = min(Cb, Cs)"
}

enum LightenBlendMode: BlendFilter {
    static let mode = BlendMode.lighten
    static let name = "CILightenBlendMode"
    static let displayName = "Lighten Blend Mode"
    static let summary = "Creates composite image samples by choosing the lighter samples (either from the source "
        + "image or the background). The result is that the background image samples are replaced by any source "
        + "image samples that are lighter. Otherwise, the background image samples are left unchanged."
    static let formula = "B(Cb, Cs) = max(Cb, Cs)"
}

enum ColorDodgeBlendMode: BlendFilter {
    static let mode = BlendMode.colorDodge
    static let name = "CIColorDodgeBlendMode"
    static let displayName = "Color Dodge Blend Mode"
    static let summary = "Brightens the background image samples to reflect the source image samples. Source image "
        + "sample values that specify black do not produce a change."
    static let formula = "B(Cb, Cs) = 0 if Cb = 0, 1 if Cs = 1, else min(1, Cb/(1 − Cs))"
}

enum ColorBurnBlendMode: BlendFilter {
    static let mode = BlendMode.colorBurn
    static let name = "CIColorBurnBlendMode"
    static let displayName = "Color Burn Blend Mode"
    static let summary = "Darkens the background image samples to reflect the source image samples. Source image "
        + "sample values that specify white do not produce a change."
    static let formula = "B(Cb, Cs) = 1 if Cb = 1, 0 if Cs = 0, else 1 − min(1, (1 − Cb)/Cs)"
}

enum HardLightBlendMode: BlendFilter {
    static let mode = BlendMode.hardLight
    static let name = "CIHardLightBlendMode"
    static let displayName = "Hard Light Blend Mode"
    static let summary = "Either multiplies or screens colors, depending on the source image sample color. If the "
        + "source image sample color is lighter than 50% gray, the background is lightened, similar to screening. "
        + "If the source image sample color is darker than 50% gray, the background is darkened, similar to "
        + "multiplying. If the source image sample color is equal to 50% gray, the source image is not changed. "
        + "Image samples that are equal to pure black or pure white result in pure black or white. The overall "
        + "effect is similar to what you would achieve by shining a harsh spotlight on the source image. Use this "
        + "to add highlights to a scene."
    static let formula = "B(Cb, Cs) = 2·Cb·Cs if Cs ≤ 0.5, else Screen(Cb, 2·Cs − 1)"
}

enum SoftLightBlendMode: BlendFilter {
    static let mode = BlendMode.softLight
    static let name = "CISoftLightBlendMode"
    static let displayName = "Soft Light Blend Mode"
    static let summary = "Either darkens or lightens colors, depending on the source image sample color. If the "
        + "source image sample color is lighter than 50% gray, the background is lightened, similar to dodging. "
        + "If the source image sample color is darker than 50% gray, the background is darkened, similar to "
        + "burning. If the source image sample color is equal to 50% gray, the background is not changed. Image "
        + "samples that are equal to pure black or pure white produce darker or lighter areas, but do not result "
        + "in pure black or white. The overall effect is similar to what you would achieve by shining a diffuse "
        + "spotlight on the source image. Use this to add highlights to a scene."
    static let formula = "B(Cb, Cs) = Cb − (1 − 2Cs)·Cb·(1 − Cb) if Cs ≤ 0.5, else Cb + (2Cs − 1)·(D(Cb) − Cb), "
        + "D(x) = ((16x − 12)x + 4)x if x ≤ 0.25, else √x"
}

enum DifferenceBlendMode: BlendFilter {
    static let mode = BlendMode.difference
    static let name = "CIDifferenceBlendMode"
    static let displayName = "Difference Blend Mode"
    static let summary = "Subtracts either the source image sample color from the background image sample color, or "
        + "the reverse, depending on which sample has the greater brightness value. Source image sample values "
        + "that are black produce no change; white inverts the background color values."
    static let formula = "B(Cb, Cs) = |Cb − Cs|"
}

enum ExclusionBlendMode: BlendFilter {
    static let mode = BlendMode.exclusion
    static let name = "CIExclusionBlendMode"
    static let displayName = "Exclusion Blend Mode"
    static let summary = "Produces an effect similar to that produced by the CIDifferenceBlendMode filter but with "
        + "lower contrast. Source image sample values that are black do not produce a change; white inverts the "
        + "background color values."
    static let formula = "B(Cb, Cs) = Cb + Cs − 2·Cb·Cs"
}
