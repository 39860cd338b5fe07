import MedleyMedia

/// The poster step of a movie's journey: its frame at `poster.at`, taken as a lossless PNG, then
/// through the job's filters and image export like any image.
enum PosterStep {
    /// The frame of `item` as the job's image output (PNG unless the export names a format).
    static func render(_ opened: OpenedItem, info: MovieInfo, poster: PosterStage, _ item: Item, stage: ImageStage,
                       exporter: Exporter) throws -> StepOutcome {
        // A poster is a PNG frame until the export says otherwise (`format: same`).
        let format: ImageFormat
        if case .image(let chosen) = exporter.export.format { format = chosen } else { format = .png }
        var messages = LibraryMessages()
        var rendered = ImageStep.Rendered()
        let exported = try exporter.write(item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                                          memory: MovieStep.workingMemory(info, transcode: false), property: { opened[$0] }) { temporary, _ in
            // The frame goes through the image path as a lossless temporary PNG.
            let frame = try exporter.output.scratchPath(fileExtension: "png")
            defer { exporter.output.removeScratch(frame) }
            try ItemFailure.converting(context: "cannot take the poster frame") {
                try Movie.poster(path: item.source, at: poster.at).save(to: frame.path, format: .png, quality: nil, strip: true)
            }
            let header = try stage.openHeader(frame.path, messages: &messages)
            rendered = try ImageStep.render(frame.path, header: header, format: format, to: temporary, stage: stage,
                                            messages: &messages, property: { opened[$0] })
        }
        guard case .written(var written) = exported else { return exported }
        rendered.record(into: &written)
        written.warnings += messages.lines
        return .written(written)
    }
}
