import MedleyMedia

/// The image steps of an item's journey: its header and properties read (before `where`), then
/// its filters rendered and encoded into its export.
enum ImageStep {
    /// Reads the header (under the pixel limit) and the properties of an image item.
    static func read(_ item: Item, stage: ImageStage?) throws -> OpenedItem {
        guard let stage else { throw ItemFailure(.unsupported, "the job has no image stage") }
        var messages = LibraryMessages()
        let header = try stage.openHeader(item.source, messages: &messages)
        let properties = ImageProperties(file: item.file, persistentID: item.persistentID, image: header,
                                         format: item.sniffed.format)
        return OpenedItem(content: .image(header: header, messages: messages), mediaType: .image,
                          properties: properties.values)
    }

    /// Renders the image through the job's filters into its output, named in `entry`.
    static func render(_ opened: OpenedItem, header: VipsImage, messages: LibraryMessages, _ item: Item,
                       stage: ImageStage, exporter: Exporter, threads: Int, _ entry: inout ManifestRecord) throws {
        var messages = messages
        let format = stage.outputFormat(for: header)
        var warnings: [String] = []
        var adjustment: AutoAdjustment?, analysis: ImageAnalysis?
        try exporter.write(&entry, item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                           memory: stage.workingMemory(header, threads: threads), property: { opened[$0] }) { temporary, _ in
            // autoAdjust: tuned on the input, then this item's own renderer (the job's otherwise).
            var renderer: ImageRenderer?
            if stage.autoAdjust != nil {
                let chosen = try measure("autoAdjust cannot measure the image", &messages) {
                    try AutoAdjustment.measure(fileAt: item.source, workingSpace: stage.renderer.workingSpace)
                }
                adjustment = chosen
                renderer = try stage.renderer(for: chosen)
            }
            warnings = try stage.render(item.source, header: header, format: format, to: temporary, messages: &messages,
                                        renderer: renderer)
            // analyze: on the output as written (decoded back), before it is renamed into place.
            if !stage.analyses.isEmpty {
                do {
                    analysis = try measure("cannot analyse the output", &messages) {
                        try ImageAnalyzer.analyze(fileAt: temporary, stage.analyses)
                    }
                } catch {
                    warnings.append("analyze: not recorded (\(error))")
                }
            }
        }
        guard entry.status != .skipped else { return }
        entry.autoAdjust = adjustment
        entry.analysis = analysis
        entry.warnings += warnings + messages.lines
    }

    /// libvips reductions whose messages are the item's and whose failure names its own reason.
    private static func measure<T>(_ context: String, _ messages: inout LibraryMessages, _ body: () throws -> T) throws -> T {
        do {
            return try Vips.attributed { _ in try Vips.collectingMessages(into: &messages) { try body() } }
        } catch let error as MediaError {
            throw ItemFailure(error, context: context)
        }
    }
}
