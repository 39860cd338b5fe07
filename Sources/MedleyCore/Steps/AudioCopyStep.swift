import Foundation
import MedleyMedia
import MedleyTags

/// The audio output of a job that tags but does not transcode (`tag:` without `transcode:`): the
/// input's stream copied byte for byte, in its own container, with the tags as the tag stage left
/// them — and, with `tag.replayGain`, the ReplayGain values of that very stream, measured by one
/// decode pass (nothing is re-encoded, so the values are exact for the copy).
enum AudioCopyStep {
    /// Measures the stream's loudness as decoded, at its own rate and channels (no mix, no
    /// resample): what a player of the copy hears. The reader is left at its end.
    static func measure(_ reader: AudioSource) throws -> AudioStage.Pass {
        let (stage, plan) = AudioStage.measuring(reader.info)
        return try stage.measureLoudness(reader, plan: plan)
    }

    /// Copies the item's stream with its new tags into its export. `album` is the loudness of the
    /// item's album (ReplayGain album mode).
    static func copy(_ opened: OpenedItem, reader: AudioSource, tags: MediaTags, _ item: Item, job: Job, exporter: Exporter,
                     album: AlbumLoudness?) throws -> StepOutcome {
        let format = item.sniffed.format
        let sourceExt = (item.file.path as NSString).pathExtension.lowercased()
        guard let container = AudioContainer(extension: format) ?? AudioContainer(extension: sourceExt) else {
            throw ItemFailure(.unsupported, "\(format) audio cannot take new tags without re-encoding; add a 'transcode' stage")
        }
        // `{ext}` is the input's own extension when it names this container, else the format's.
        let ext = AudioContainer(extension: sourceExt) == container ? sourceExt : format
        let opus = format == "opus"
        var measured: AudioStage.Pass?
        var warnings: [String] = []
        var dropped: [String] = []
        var converted: [String] = []
        var written = ""
        let exported = try exporter.write(item.file, ext: ext, memory: AudioStep.workingMemory, property: { opened[$0] },
                                          check: { name in
            guard AudioContainer(extension: name.ext) == container else {
                throw ItemFailure(.unsupported, "the job copies the audio without re-encoding (no 'transcode' stage), so its "
                                  + "\(format) stream cannot become .\(name.ext); name the output .\(ext) or add a 'transcode' stage")
            }
        }) { temporary, name in
            written = name.ext
            var artwork = tags.artwork
            if case .embed(let path)? = job.tag?.artwork { artwork = try CoverArt.artwork(fromFileAt: path) }
            var outputTags = AudioProperties.tags(from: opened.properties, artwork: artwork, read: tags)
            if let replayGain = job.tag?.replayGain {
                let pass = try measure(reader)
                measured = pass
                guard pass.frames > 0 else { throw ItemFailure(.decode, "no audio: the stream decodes to 0 frames") }
                warnings += ReplayGain.settle(&outputTags, replayGain: replayGain, track: pass.loudness, album: album,
                                              opus: opus, levelChange: nil)
            }
            let report = try ItemFailure.converting(.output, context: "cannot write tags") {
                try TagIO.write(outputTags, from: item.source, into: temporary, container: written, id3: job.export?.id3 ?? .v2_4)
            }
            dropped = report.unsupported
            converted = report.converted
        }
        guard case .written(var output) = exported else { return exported }
        output.warnings += warnings
        if reader.damagedFrames > 0 {
            output.warnings.append("skipped \(reader.damagedFrames) damaged frame\(reader.damagedFrames == 1 ? "" : "s") while measuring; the copy keeps them as they are")
        }
        output.warnings += AudioStep.droppedWarnings(dropped, ext: written)
        output.warnings += converted.map { "ID3v2.3: " + $0 }
        if !tags.uncarried.isEmpty {
            output.warnings.append("tags Medley does not model, not carried into the output: " + tags.uncarried.joined(separator: "; "))
        }
        if let measured, reader.info.sampleRate > 0 {
            output.duration = Double(measured.frames) / Double(reader.info.sampleRate)
        } else if reader.info.frames > 0 {
            output.duration = reader.info.duration
        }
        if case .export(let template)? = job.tag?.artwork, let artwork = tags.artwork {
            try CoverArt.export(artwork, template: template, for: item.file, exporter: exporter) { opened[$0] }
        }
        return .written(output)
    }
}
