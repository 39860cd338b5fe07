import MedleyMedia

/// `export.quality: same` (ImageMagick's way: an image keeps the quality it was read with): a JPEG
/// input written as JPEG gets the quality its quantisation tables stand for (ImageMagick's estimate,
/// `identify -format %Q`) and its chroma subsampling. Anything else is written at the output format's
/// default quality, with a warning saying so.
enum SameQuality {
    /// `options` with the input's quality and subsampling where they can be kept; what could not be
    /// kept is added to `warnings`. An `export.subsampling` the job names wins over the input's.
    static func options(_ options: SaveOptions, input path: String, header: VipsImage, format: ImageFormat,
                        warnings: inout [String]) -> SaveOptions {
        guard format.isLossy else { return options }
        let fallback = "the format's default quality"
        guard header.loader == "jpegload" else {
            warnings.append("quality: same keeps a JPEG input's quality; this input is not a JPEG, so the .\(format.fileExtension) is written at \(fallback)")
            return options
        }
        guard format == .jpeg else {
            warnings.append("quality: same keeps a JPEG's quality in a JPEG output; the .\(format.fileExtension) is written at \(fallback)")
            return options
        }
        let encoding: JPEGEncoding?
        do { encoding = try JPEGEncoding.read(path: path) } catch {
            warnings.append("quality: same: cannot read the JPEG's headers (\(error)); written at \(fallback)")
            return options
        }
        guard let encoding else {
            warnings.append("quality: same: the JPEG's headers hold no quantisation table or frame; written at \(fallback)")
            return options
        }
        var kept = options
        if let quality = encoding.quality { kept.quality = quality } else {
            warnings.append("quality: same: the JPEG's quantisation tables match no standard quality; written at \(fallback)")
        }
        if kept.subsampling == nil {
            if let subsampling = encoding.subsampling { kept.subsampling = subsampling } else {
                // libvips writes 4:4:4 or 4:2:0 only: 4:4:4 loses none of the input's colour.
                kept.subsampling = .off
                warnings.append("quality: same: the JPEG's chroma sampling \(encoding.samplingText) cannot be written by libvips; written 4:4:4")
            }
        }
        return kept
    }
}
