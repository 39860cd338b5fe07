import MedleyMedia

/// Output formats a job can ask for.
public enum OutputFormat: Sendable, Equatable {
    /// The input's own format (when libvips can write it; otherwise PNG).
    case same
    case image(ImageFormat)
}

/// What to do when an output file already exists.
public enum OverwritePolicy: String, Sendable, CaseIterable {
    case replace, skip, fail
}

/// Where and how results are written.
public struct ExportStage: Sendable {
    /// Absolute output root; nothing is written outside it (but its `.medley/` working folder).
    public let to: String
    public let format: OutputFormat
    public let quality: Int?
    public let name: NameTemplate
    public let strip: Bool
    public let overwrite: OverwritePolicy
    public let autoOrient: Bool
}
