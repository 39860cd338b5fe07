/// Blurs, sharpening and noise reduction: neighbourhood filters run as region kernels.
enum BlurGroup {
    static let filters: [FilterDefinition.Type] = [
        BokehBlur.self,
        BoxBlur.self,
        DiscBlur.self,
        GaussianBlur.self,
        MotionBlur.self,
        NoiseReduction.self,
        SharpenLuminance.self,
        UnsharpMask.self,
        ZoomBlur.self,
    ]
}
