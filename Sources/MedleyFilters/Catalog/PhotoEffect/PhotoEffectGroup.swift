/// The CIPhotoEffect… looks (mono, noir, tonal, chrome, fade, instant, process, transfer).
enum PhotoEffectGroup {
    static let filters: [FilterDefinition.Type] = [
    ]
}
