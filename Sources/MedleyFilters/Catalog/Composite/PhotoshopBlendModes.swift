import MedleyKernels

// The blend modes Core Image takes from Photoshop, which the W3C spec does not define. Apple
// describes them only in words; Medley uses the widely published formulas of Photoshop's layer
// modes (the ones ImageMagick's -compose implements), each result clipped to 0…1 as Photoshop's is.

/// Where the Photoshop formulas come from.
private let photoshop = "Photoshop layer blend mode (the widely published formula, as ImageMagick's -compose has it)"

enum LinearBurnBlendMode: BlendFilter {
    static let mode = BlendMode.linearBurn
    static let name = "CILinearBurnBlendMode"
    static let displayName = "Linear Burn Blend Mode"
    static let summary = "Inverts the unpremultiplied source and background image sample color, inverts the sum, "
        + "and then blends the result with the background according to the PDF basic compositing formula. Source "
        + "image values that are white produce no change. Source image values that are black invert the "
        + "background color values."
    static let formula = "B(Cb, Cs) = max(0, Cb + Cs − 1)"
    static let source = photoshop
}

enum LinearDodgeBlendMode: BlendFilter {
    static let mode = BlendMode.linearDodge
    static let name = "CILinearDodgeBlendMode"
    static let displayName = "Linear Dodge Blend Mode"
    static let summary = "Unpremultiplies the source and background image sample colors, adds them, and then blends "
        + "the result with the background according to the PDF basic compositing formula. Source image values "
        + "that are black produces output that is the same as the background. Source image values that are non-black "
        + "brighten the background color values."
    static let formula = "B(Cb, Cs) = min(1, Cb + Cs)"
    static let source = photoshop
}

enum LinearLightBlendMode: BlendFilter {
    static let mode = BlendMode.linearLight
    static let name = "CILinearLightBlendMode"
    static let displayName = "Linear Light Blend Mode"
    static let summary = "A blend mode that is a combination of linear burn and linear dodge blend modes."
    static let formula = "B(Cb, Cs) = clip(Cb + 2·Cs − 1) (linear burn with 2Cs below half, linear dodge with 2Cs − 1 above)"
    static let source = photoshop
}

enum PinLightBlendMode: BlendFilter {
    static let mode = BlendMode.pinLight
    static let name = "CIPinLightBlendMode"
    static let displayName = "Pin Light Blend Mode"
    static let summary = "Conditionally replaces background image samples with source image samples depending on the "
        + "brightness of the source image samples."
    static let formula = "B(Cb, Cs) = min(Cb, 2·Cs) if Cs < 0.5, else max(Cb, 2·Cs − 1)"
    static let source = photoshop
}

enum VividLightBlendMode: BlendFilter {
    static let mode = BlendMode.vividLight
    static let name = "CIVividLightBlendMode"
    static let displayName = "Vivid Light Blend Mode"
    static let summary = "A blend mode that is a combination of color burn and color dodge blend modes."
    static let formula = "B(Cb, Cs) = ColorBurn(Cb, 2·Cs) if Cs ≤ 0.5, else ColorDodge(Cb, 2·(Cs − 0.5))"
    static let source = photoshop
}

enum SubtractBlendMode: BlendFilter {
    static let mode = BlendMode.subtract
    static let name = "CISubtractBlendMode"
    static let displayName = "Subtract Blend Mode"
    static let summary = "Subtracts the background image sample color from the source image sample color."
    static let formula = "B(Cb, Cs) = max(0, Cb − Cs) (Photoshop's base − blend: the input image is taken from the background)"
    static let source = photoshop
}

enum DivideBlendMode: BlendFilter {
    static let mode = BlendMode.divide
    static let name = "CIDivideBlendMode"
    static let displayName = "Divide Blend Mode"
    static let summary = "Divides the background image sample color from the source image sample color."
    static let formula = "B(Cb, Cs) = min(1, Cb/Cs) (Photoshop's base ÷ blend), 1 where Cs = 0 < Cb, 0 where both are 0"
    static let source = photoshop
}
