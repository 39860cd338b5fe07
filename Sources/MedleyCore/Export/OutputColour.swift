import MedleyMedia

/// The last steps before the saver: transparent parts flattened where the format has no alpha
/// (or the job names a background), the pixels converted into the output's ICC profile, and
/// the sample depth the format cannot hold said as a warning.
///
/// The render hands over pixels in one known profile: the image's embedded one when it is RGB
/// (a file rendered without filters keeps its own pixels), else sRGB (the working space's
/// primaries; grey and CMYK inputs are sRGB once filtered).
struct OutputColour {
    let export: ExportStage

    /// The image ready for `format`; what it changes that a person would not expect goes into `warnings`.
    func prepare(_ rendered: VipsImage, input: VipsImage, format: ImageFormat, warnings: inout [String]) throws -> VipsImage {
        var image = rendered
        let intent = export.intent ?? .default(for: input.interpretation)
        let flatten = image.hasAlpha && (export.background != nil || !format.holdsAlpha)
        if flatten {
            // The background is an sRGB colour: pixels in another profile go to sRGB first.
            if !Self.isSRGB(image.iccProfile) && ICCProfile.colourSpace(image.iccProfile) == "RGB " {
                image = try image.converted(toProfile: ICCProfile.sRGB, fromEmbedded: true, intent: intent)
            }
            image = try image.flattened(onto: export.background ?? Self.white)
        }
        // A format that holds no profile (GIF) gets sRGB pixels, which is what an untagged image means.
        if let target = format.carries.contains(.icc) ? target(for: image, input: input, warnings: &warnings) : ICCProfile.sRGB {
            image = try convert(image, to: target, intent: intent)
        }
        if image.sampleBytes > 1 && format.maximumBitDepth < 16 {
            let chosen = format == .heif || format == .avif ? export.encoder.bitDepth : nil
            let bits = chosen ?? format.maximumBitDepth
            warnings.append("16-bit → \(bits)-bit: " + (chosen != nil ? "export.bitdepth is \(bits)"
                : ".\(format.fileExtension) holds at most \(bits) bits a sample") + " (png, tiff and jxl keep 16)")
        }
        return image
    }

    /// White, as ImageMagick's `-flatten` and a browser's page behind a transparent image show it
    /// (sharp's `flatten` defaults to black, which is what Medley wrote before and nobody wanted).
    static let white = (red: 1.0, green: 1.0, blue: 1.0)

    /// The profile the output's pixels go into, or nil to leave them (and their profile) as they are.
    private func target(for image: VipsImage, input: VipsImage, warnings: inout [String]) -> [UInt8]? {
        // A stripped output has no profile to say what its pixels mean, so they are sRGB (unless it keeps its profile).
        if export.strip && !export.keepProfile { return ICCProfile.sRGB }
        if case .convert(_, let bytes) = export.profile { return bytes }
        let original = input.iccProfile
        guard !original.isEmpty else { return nil }
        let name = ICCProfile.description(original).map { "'\($0)'" } ?? "(unnamed)"
        switch ICCProfile.colourSpace(original) {
        case "RGB "?:
            return original
        case "GRAY"? where image.bands <= 2:
            return nil  // still grey, still in its own profile
        case "GRAY"?:
            warnings.append("the input's grey ICC profile \(name) is not kept: the filters made a colour image, written in sRGB")
            return ICCProfile.sRGB
        case let space?:
            warnings.append("the input's \(space.trimmingCharacters(in: .whitespaces)) ICC profile \(name) is not kept: "
                            + "Medley writes RGB, so the output is sRGB (profile: keep keeps RGB and grey profiles)")
            return ICCProfile.sRGB
        case nil:
            warnings.append("the input's ICC profile is unreadable and not kept; the output is sRGB")
            return ICCProfile.sRGB
        }
    }

    /// The image's pixels (in its RGB profile, else sRGB) in `target`, with `target` attached.
    private func convert(_ rendered: VipsImage, to target: [UInt8], intent: RenderingIntent) throws -> VipsImage {
        var image = rendered
        if image.bands <= 2 { image = try image.rgb(deep: image.sampleBytes > 1) }  // grey → sRGB's three bands
        let current = image.iccProfile
        let currentIsRGB = ICCProfile.colourSpace(current) == "RGB "
        if current == target { return image }
        if (!currentIsRGB || Self.isSRGB(current)) && Self.isSRGB(target) { return try image.withICCProfile(target) }
        return try image.converted(toProfile: target, fromEmbedded: currentIsRGB, intent: intent)
    }

    /// No profile (sRGB by convention) or one that says it is sRGB.
    private static func isSRGB(_ profile: [UInt8]) -> Bool { profile.isEmpty || ICCProfile.isSRGB(profile) }
}
