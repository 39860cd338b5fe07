/// The CIPhotoEffect… looks (mono, noir, tonal, chrome, fade, instant, process, transfer).
enum PhotoEffectGroup {
    static let filters: [FilterDefinition.Type] = [
        PhotoEffectChrome.self,
        PhotoEffectFade.self,
        PhotoEffectInstant.self,
        PhotoEffectMono.self,
        PhotoEffectNoir.self,
        PhotoEffectProcess.self,
        PhotoEffectTonal.self,
        PhotoEffectTransfer.self,
    ]
}
