import MedleyMedia

/// Pictures a pipeline names (graph image nodes, watermark logos), decoded once per job.
enum AssetImages {
    /// The most pixels such a picture may have: it is decoded whole (4 bytes a pixel) and kept for the job.
    static let maximumPixels = 40_000_000

    /// The file decoded whole, in sRGB (its ICC profile applied), 8-bit RGB + alpha.
    static func rgba(_ asset: AssetFile) throws -> VipsImage {
        do {
            var image = try VipsImage.decoded(bytes: asset.bytes).inRGBSpace().image
            let profile = image.iccProfile
            if !profile.isEmpty && !ICCProfile.isSRGB(profile) && image.bands >= 3 { image = try image.importingICCProfile() }
            image = try image.rgb(deep: false)
            if !image.hasAlpha { image = try image.appendingBand(255) }
            return image
        } catch let error as MediaError {
            throw ItemFailure(error, .input, context: "cannot decode '\(asset.path)'")
        }
    }
}
