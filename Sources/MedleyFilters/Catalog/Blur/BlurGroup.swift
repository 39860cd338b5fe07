/// Blurs, sharpening and noise reduction: neighbourhood filters run as region kernels.
enum BlurGroup {
    static let filters: [FilterDefinition.Type] = [
        BoxBlur.self,
        GaussianBlur.self,
        NoiseReduction.self,
        SharpenLuminance.self,
        UnsharpMask.self,
    ]
}
