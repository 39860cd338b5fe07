import MedleyYAML

extension SchemaReader {
    /// `ingest.page: all` writes one output per page: the export's name tells pages apart by `{page}`
    /// (the default name becomes `{relpath}/{stem}-{page}.{ext}`, pdftoppm's `prefix-N`), and the sources
    /// stay where they are (a PDF moved aside after its first page would leave the others nothing to read).
    func checkEveryPage(_ ingest: IngestStage, ingestNode: YAMLNode, export: inout ExportStage?, exportNode: YAMLNode?) {
        let pageNode = Self.field("page", of: ingestNode) ?? ingestNode
        if ingest.afterwards != nil {
            sink.error(pageNode, "ingest.page: all and ingest.afterwards.move: a PDF is moved aside once its first page is written, and its other pages could not be read",
                       suggestion: "drop afterwards.move, or name one page (page: 1)")
        }
        guard var stage = export, !stage.name.properties.contains("page") else { return }
        if let exportNode, let nameNode = Self.field("name", of: exportNode) {
            sink.error(nameNode, "export.name has no {page}: with ingest.page: all every page of a PDF would claim the same output",
                       suggestion: "add {page}, e.g. name: '{relpath}/{stem}-{page}.{ext}'")
            return
        }
        if let paged = Self.everyPageName {
            stage.name = paged
            export = stage
        }
    }
}
