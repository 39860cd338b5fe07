import MedleyYAML

/// Jobs that make several items of one file — each page of a PDF (`ingest.page: all`), each part of a recording
/// (`transcode.segment`) — write one output per item: the export's name must tell them apart, and the sources
/// stay where they are (a file moved aside after its first item would leave the others nothing to read).
extension SchemaReader {
    /// `ingest.page: all`: the default name becomes `{relpath}/{stem}-{page}.{ext}`, pdftoppm's `prefix-N`.
    func checkEveryPage(_ ingest: IngestStage, ingestNode: YAMLNode, export: inout ExportStage?, exportNode: YAMLNode?) {
        let pageNode = Self.field("page", of: ingestNode) ?? ingestNode
        if ingest.afterwards != nil {
            sink.error(pageNode, "ingest.page: all and ingest.afterwards.move: a PDF is moved aside once its first page is written, and its other pages could not be read",
                       suggestion: "drop afterwards.move, or name one page (page: 1)")
        }
        checkPartName("page", what: "ingest.page: all", of: "a PDF", default: Self.everyPageName, export: &export, exportNode: exportNode)
    }

    /// `transcode.segment`: the default name becomes `{relpath}/{stem}-{segment:03}.{ext}` (ffmpeg's segment
    /// muxer's `%03d`, sox's `newfile` numbers).
    func checkSegments(movesSources: Bool, export: inout ExportStage?, exportNode: YAMLNode?, segmentNode: YAMLNode) {
        if movesSources {
            sink.error(segmentNode, "transcode.segment and ingest.afterwards.move: a recording is moved aside once its first part is written, and its other parts could not be read",
                       suggestion: "drop afterwards.move, or segment")
        }
        checkPartName("segment", what: "transcode.segment", of: "a recording", default: Self.segmentName, export: &export, exportNode: exportNode)
    }

    /// A name of one's own must hold `{property}`; the default name becomes `parted`.
    private func checkPartName(_ property: String, what: String, of source: String, default parted: NameTemplate?,
                               export: inout ExportStage?, exportNode: YAMLNode?) {
        guard var stage = export, !stage.name.properties.contains(property) else { return }
        if let exportNode, let nameNode = Self.field("name", of: exportNode) {
            sink.error(nameNode, "export.name has no {\(property)}: with \(what) every \(property) of \(source) would claim the same output",
                       suggestion: "add {\(property)}, e.g. name: '\(parted?.text ?? "{relpath}/{stem}-{\(property)}.{ext}")'")
            return
        }
        if let parted {
            stage.name = parted
            export = stage
        }
    }
}
