import MedleyMedia
import MedleyYAML

/// Reading the `export:` stage: root, format, quality, name template, overwrite policy.
extension SchemaReader {
    /// The values `export.format` takes.
    static let formats = ["jpeg", "jpg", "png", "webp", "tiff", "heif", "gif", "same"]
    /// The keys an `export:` mapping may have.
    static let exportKeys = ["to", "format", "quality", "name", "strip", "overwrite", "autoOrient"]

    /// `export:` — the folder, format, quality, name template, strip, overwrite and autoOrient of the job's outputs.
    func export(_ node: YAMLNode) -> ExportStage? {
        guard let fields = mapping(node, keys: Self.exportKeys, what: "export") else { return nil }
        guard let toNode = fields["to"], let to = string(toNode, what: "export.to") else {
            if fields["to"] == nil { sink.error(node, "export needs 'to'", suggestion: "add 'to: out' (a folder)") }
            return nil
        }
        var format = OutputFormat.same
        if let formatNode = fields["format"], let text = string(formatNode, what: "export.format") {
            if text == "same" {
                format = .same
            } else if Self.formats.contains(text.lowercased()), let image = ImageFormat(fileExtension: text) {
                format = .image(image)
                if !Vips.canSave(image) {
                    sink.error(formatNode, "this libvips build cannot write \(text)",
                               suggestion: "choose jpeg, png, webp or tiff")
                }
            } else {
                sink.error(formatNode, "unknown export format '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: Self.formats)
                               ?? "one of \(Self.formats.joined(separator: ", "))")
            }
        }
        var quality: Int?
        if let qualityNode = fields["quality"], let q = integer(qualityNode, what: "export.quality") {
            if (1...100).contains(q) { quality = q } else {
                sink.error(qualityNode, "export.quality must be 1…100, not \(q)")
            }
        }
        var template: NameTemplate?
        let nameNode = fields["name"]
        let nameText = nameNode.flatMap { string($0, what: "export.name") } ?? "{relpath}/{stem}.{ext}"
        do {
            template = try NameTemplate(nameText, knownProperties: ItemProperties.templateNames)
        } catch let error as TemplateError {
            let mark = nameNode.map { Self.mark(in: $0, offset: error.offset) } ?? node.mark
            sink.error(at: mark, "export.name: \(error.message)",
                       suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
        } catch {
            sink.error(nameNode ?? node, "export.name: \(error)")
        }
        if let template { checkOutputName(template, node: nameNode, fallback: node, what: "export.name") }
        let strip = fields["strip"].flatMap { boolean($0, what: "export.strip") } ?? false
        let autoOrient = fields["autoOrient"].flatMap { boolean($0, what: "export.autoOrient") } ?? true
        var overwrite = OverwritePolicy.replace
        if let policyNode = fields["overwrite"], let text = string(policyNode, what: "export.overwrite") {
            if let policy = OverwritePolicy(rawValue: text) { overwrite = policy } else {
                sink.error(policyNode, "export.overwrite must be replace, skip or fail, not '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: OverwritePolicy.allCases.map(\.rawValue)))
            }
        }
        guard let template else { return nil }
        return ExportStage(to: resolve(to), format: format, quality: quality, name: template, strip: strip,
                           overwrite: overwrite, autoOrient: autoOrient)
    }
}
