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
        try exporter.write(&entry, item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                           memory: stage.workingMemory(header, threads: threads), property: { opened[$0] }) { temporary, _ in
            warnings = try stage.render(item.source, header: header, format: format, to: temporary, messages: &messages,
                                        property: { opened[$0] })
        }
        guard entry.status != .skipped else { return }
        entry.warnings += warnings + messages.lines
    }
}
