import MedleySystem
import MedleyYAML

/// Reading the `report:` stage.
extension SchemaReader {
    /// `report: true`, or `report: { to: FOLDER, thumbnails: 160 }` with the folder inside the
    /// job's export root. Returns .some(nil) for `report: false`.
    func report(_ node: YAMLNode, exportRoot: String?) -> ReportStage?? {
        if case .scalar(let text, true, _) = node, let enabled = Self.bool(text) {
            guard enabled else { return .some(nil) }
            guard exportRoot != nil else {
                sink.error(node, "a report describes the job's exported files, but the job has no 'export'",
                           suggestion: "add 'export: { to: out }'")
                return nil
            }
            return ReportStage()
        }
        guard let fields = mapping(node, keys: ["to", "thumbnails"], what: "report") else { return nil }
        guard let exportRoot else {
            sink.error(node, "a report describes the job's exported files, but the job has no 'export'",
                       suggestion: "add 'export: { to: out }'")
            return nil
        }
        var stage = ReportStage()
        if let toNode = fields["to"], let text = string(toNode, what: "report.to") {
            let folder = resolve(text)
            if !FileSystem.isWithin(folder, directory: exportRoot) {
                sink.error(toNode, "report.to must be a folder inside the job's export folder (\(exportRoot))",
                           suggestion: "a pipeline writes only under its export roots; leave 'to' out for \(exportRoot)/.medley/report-JOB")
                return nil
            }
            stage.folder = folder
        }
        if let sizeNode = fields["thumbnails"], let size = integer(sizeNode, what: "report.thumbnails") {
            guard (16...1024).contains(size) else {
                sink.error(sizeNode, "report.thumbnails is the thumbnails' longest side in pixels, 16 to 1024, not \(size)")
                return nil
            }
            stage.thumbnailSize = size
        }
        return stage
    }
}
