import Foundation
import MedleyMedia

/// The picture steps: a movie as an animation or a sprite sheet (with its WebVTT file), a sound as
/// a spectrogram or a waveform. Each checks the pixel limit before decoding and writes one file
/// through the export (the VTT beside the sprites).
enum PictureSteps {
    /// The export's image format when it names one, else `fallback`.
    static func format(_ exporter: Exporter, fallback: ImageFormat) -> ImageFormat {
        if case .image(let chosen) = exporter.export.format { return chosen }
        return fallback
    }

    static func animation(_ opened: OpenedItem, info: MovieInfo, settings: AnimationSettings, _ item: Item, job: Job,
                          exporter: Exporter) throws -> StepOutcome {
        let length = settings.clipLength(movieLength: info.duration)
        guard length > 0 else {
            throw ItemFailure(.stage, String(format: "animation.from %.3f s is at or past the end of the movie (it lasts %.3f s)",
                                             settings.from, info.duration))
        }
        let size = settings.size(displayWidth: info.displayWidth, displayHeight: info.displayHeight)
        let frames = settings.frameCount(clipLength: length)
        // Every frame is held until the encoder has them all: the limit is on all of them.
        let limit = job.maxPixels ?? ImageStage.defaultMaxPixels
        let total = Double(size.width) * Double(size.height) * Double(frames)
        if total > Double(limit) {
            throw ItemFailure(.limit, String(format: "the animation would hold %d frames of %d × %d pixels (%.0f MP), over the %.0f MP limit (limits.maxPixels); not decoded",
                                             frames, size.width, size.height, total / 1e6, Double(limit) / 1e6)
                              + "; make it shorter, narrower or at a lower fps")
        }
        let ext = settings.format.rawValue
        var result: AnimationResult?
        let exported = try exporter.write(item.file, ext: ext, fileExtension: ext, memory: Int(min(Double(Int.max / 4), total * 4)) + MovieStep.workingMemory(info, transcode: false),
                                          property: { opened[$0] }, check: { name in
            guard name.ext == ext else {
                throw ItemFailure(.unsupported, "an animation.format \(ext) is written as .\(ext), not .\(name.ext)")
            }
        }) { temporary, _ in
            result = try ItemFailure.converting(context: "cannot make the animation") {
                try Movie.animation(path: item.source, settings: settings, to: temporary)
            }
        }
        guard case .written(var written) = exported else { return exported }
        written.duration = result?.duration
        return .written(written)
    }

    static func sprites(_ opened: OpenedItem, info: MovieInfo, settings: SpriteSettings, _ item: Item, job: Job,
                        exporter: Exporter) throws -> StepOutcome {
        let times = settings.times(movieLength: info.duration)
        guard !times.isEmpty else { throw ItemFailure(.stage, "the movie does not say how long it lasts; sprites need its duration") }
        let cell = settings.cellSize(displayWidth: info.displayWidth, displayHeight: info.displayHeight)
        let rows = (times.count + settings.columns - 1) / settings.columns
        try ImageStage.checkPixels(width: min(settings.columns, times.count) * cell.width, height: rows * cell.height,
                                   limit: job.maxPixels ?? ImageStage.defaultMaxPixels, of: "the sprite sheet")
        let format = format(exporter, fallback: .jpeg)
        var vtt: String?
        var imageName = ""
        let exported = try exporter.write(item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                                          memory: MovieStep.workingMemory(info, transcode: false) + min(settings.columns, times.count) * cell.width * rows * cell.height * 6,
                                          property: { opened[$0] }) { temporary, name in
            let sheet = try ItemFailure.converting(context: "cannot make the sprites") {
                try Movie.sprites(path: item.source, info: info, settings: settings)
            }
            try ItemFailure.converting(.output, context: "cannot write the sprites") {
                try sheet.image.save(to: temporary, format: format, options: SaveOptions(quality: exporter.export.quality, strip: true))
            }
            imageName = (name.relative as NSString).lastPathComponent
            if settings.vtt {
                vtt = settings.vttText(times: times, movieLength: info.duration, image: imageName, cellWidth: cell.width, cellHeight: cell.height)
            }
        }
        guard case .written(let written) = exported else { return exported }
        if let vtt {
            let relative = (written.output.dropFirst(exporter.export.to.count + 1) as Substring)
            let name = try OutputName((String(relative) as NSString).deletingPathExtension + ".vtt", root: exporter.export.to)
            guard exporter.claims.claimNow(name.path, for: item.file.path) else {
                throw ItemFailure(.output, "its WebVTT file \(name.path) is also another item's output")
            }
            _ = try exporter.output.write(to: name, fileExtension: "vtt") { temporary in
                try ItemFailure.converting(.output, context: "cannot write the WebVTT file") {
                    try Data(vtt.utf8).write(to: URL(fileURLWithPath: temporary))
                }
            }
        }
        return .written(written)
    }

    static func sound(_ opened: OpenedItem, reader: AudioSource, spectrogram: SpectrogramSettings?, waveform: WaveformSettings?,
                      _ item: Item, job: Job, exporter: Exporter) throws -> StepOutcome {
        let bands = (spectrogram?.split ?? waveform?.split ?? false) ? max(1, reader.info.channels) : 1
        let width = spectrogram?.width ?? waveform?.width ?? 1, height = (spectrogram?.height ?? waveform?.height ?? 1) * bands
        try ImageStage.checkPixels(width: width, height: height, limit: job.maxPixels ?? ImageStage.defaultMaxPixels,
                                   of: spectrogram != nil ? "the spectrogram" : "the waveform")
        let format = format(exporter, fallback: .png)
        let exported = try exporter.write(item.file, ext: format.fileExtension, fileExtension: format.fileExtension,
                                          memory: AudioStep.workingMemory + width * height * 6, property: { opened[$0] }) { temporary, _ in
            let image = try ItemFailure.converting(context: spectrogram != nil ? "cannot draw the spectrogram" : "cannot draw the waveform") {
                if let spectrogram { return try reader.spectrogram(spectrogram) }
                return try reader.waveformImage(waveform ?? WaveformSettings())
            }
            try ItemFailure.converting(.output, context: "cannot write the picture") {
                try image.save(to: temporary, format: format, options: SaveOptions(quality: exporter.export.quality, strip: true))
            }
        }
        guard case .written(var written) = exported else { return exported }
        written.duration = reader.info.duration > 0 ? reader.info.duration : nil
        return .written(written)
    }
}
