import MedleyMedia

/// The image steps of an item's journey: its header and properties read (before `where`), then
/// its filters rendered and encoded into its export.
enum ImageStep {
    /// Reads the header (under the pixel limit) and the properties of an image item.
    static func read(_ item: Item, stage: ImageStage) throws -> OpenedItem {
        if item.sniffed == .raw { return try RawStep.read(item, stage: stage) }
        var messages = LibraryMessages()
        let header = try stage.openHeader(item.source, vector: item.sniffed, messages: &messages)
        var properties = ImageProperties(file: item.file, persistentID: item.persistentID, image: header,
                                         format: item.sniffed.format, readPath: item.source)
        // A PDF's picture is the page the job draws (`ingest.page`, or this item's page of `page: all`).
        if item.sniffed == .pdf, let index = properties.values.firstIndex(where: { $0.name == "page" }) {
            properties.values[index].value = .integer(stage.renderer.vector.page)
        }
        properties.warnings.forEach { messages.note($0) }
        return OpenedItem(content: .image(header: header, messages: messages), mediaType: .image,
                          properties: properties.values)
    }

    /// Renders the image through the job's filters into its output.
    static func render(_ opened: OpenedItem, header: VipsImage, messages: LibraryMessages, _ item: Item,
                       stage: ImageStage, exporter: Exporter, threads: Int) throws -> StepOutcome {
        if item.sniffed == .raw {
            return try RawStep.render(opened, header: header, messages: messages, item, stage: stage, exporter: exporter, threads: threads)
        }
        var messages = messages
        let format = stage.outputFormat(for: header)
        var rendered = Rendered()
        var sidecar: (name: OutputName, packet: String)?
        let exported = try exporter.write(item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                                          memory: stage.workingMemory(header, threads: threads), property: { opened[$0] }) { temporary, name in
            let edit: (warnings: [String], sidecar: String?)
            if MetadataStep.copiesWithoutReencoding(stage, header: header, format: format) {
                // A metadata-only job: the input's bytes, edited in memory (exiftool's way).
                edit = try MetadataStep.edit(copyOf: item.source, into: temporary, header: header, format: format, stage: stage) { opened[$0] }
            } else {
                rendered = try render(item.source, header: header, format: format, to: temporary, stage: stage, messages: &messages,
                                      property: { opened[$0] })
                // What the encoder left out, export.strip lists, keep, and the tag stage's fields, into the
                // temporary before it is placed.
                let carry = MetadataStep.carried(stage, format: format, inputHolds: header.metadataKinds, encoderWrote: format.carries)
                edit = try MetadataStep.write(temporary, source: item.source, stage: stage, format: format, carry: carry,
                                              upright: stage.export.autoOrient) { opened[$0] }
            }
            rendered.warnings += edit.warnings
            sidecar = edit.sidecar.map { (name, $0) }
        }
        guard case .written(var written) = exported else { return exported }
        if let sidecar { written.warnings += MetadataStep.writeSidecar(sidecar.packet, beside: sidecar.name, exporter: exporter) }
        rendered.record(into: &written)
        written.warnings += messages.lines
        return .written(written)
    }

    /// What rendering one image output made besides the file.
    struct Rendered {
        var warnings: [String] = []
        var adjustment: AutoAdjustment?
        var analysis: ImageAnalysis?

        func record(into written: inout WrittenOutput) {
            written.autoAdjust = adjustment
            written.analysis = analysis
            written.warnings += warnings
        }
    }

    /// Renders the image file at `source` into `temporary` as the job's output (images and movie
    /// posters alike): with `autoAdjust`, the three filters are tuned on `source` and run before the
    /// job's own (this item's own renderer); with `analyze`, the output as written is decoded back
    /// and measured, before it is renamed into place.
    static func render(_ source: String, header: VipsImage, format: ImageFormat, to temporary: String,
                       stage: ImageStage, messages: inout LibraryMessages,
                       property: (String) -> TemplateValue?) throws -> Rendered {
        var rendered = Rendered()
        var renderer: ImageRenderer?
        if stage.autoAdjust != nil {
            let chosen = try measure("autoAdjust cannot measure the image", &messages) {
                try AutoAdjustment.measure(fileAt: source, workingSpace: stage.renderer.workingSpace)
            }
            rendered.adjustment = chosen
            renderer = try stage.renderer(for: chosen)
        }
        rendered.warnings = try stage.render(source, header: header, format: format, to: temporary, messages: &messages,
                                             renderer: renderer, property: property)
        if !stage.analyses.isEmpty {
            do {
                rendered.analysis = try measure("cannot analyse the output", &messages) {
                    try ImageAnalyzer.analyze(fileAt: temporary, stage.analyses)
                }
            } catch {
                // The output is right; only its measurement is missing.
                rendered.warnings.append("analyze: not recorded (\(error))")
            }
        }
        return rendered
    }

    /// libvips reductions whose messages are the item's and whose failure names its own reason.
    private static func measure<T>(_ context: String, _ messages: inout LibraryMessages, _ body: () throws -> T) throws -> T {
        do {
            return try Vips.run(collectingInto: &messages) { _ in try body() }
        } catch let error as MediaError {
            throw ItemFailure(error, context: context)
        }
    }
}
