/// Where a job's HTML report goes and how big its pictures are (`report:` in a job).
public struct ReportStage: Sendable, Equatable {
    /// The report's folder: `index.html` and `thumbs/` (default `<to>/.medley/report-<job>`).
    public var folder: String?
    /// Longest side of the contact-sheet thumbnails, in pixels.
    public var thumbnailSize = 160
    public init(folder: String? = nil, thumbnailSize: Int = 160) {
        self.folder = folder
        self.thumbnailSize = thumbnailSize
    }
}
