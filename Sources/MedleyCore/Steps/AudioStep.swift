import Foundation
import MedleyMedia
import MedleyTags

/// The audio steps of an item's journey: its stream header and tags read into properties
/// (before `where`), then transcoded (mix, resample, level, meter) with its tags into its export.
enum AudioStep {
    /// Audio streams in 4096-frame blocks: its buffers, the resampler's banks and the encoder's state.
    static let workingMemory = 48 << 20

    /// Opens the stream and reads the tags of an audio item; tags that cannot be read are a
    /// warning, unless the job uses them (`CoverArt.tagUse`).
    static func read(_ item: Item, job: Job) throws -> OpenedItem {
        let reader = try AudioStage.open(item.source, format: item.sniffed.format)
        let (tags, tagWarnings, tagFailure) = AudioStage.readTags(item.source)
        if let tagFailure, let use = CoverArt.tagUse(job) {
            throw ItemFailure(.stage, "\(tagFailure); the job's \(use) needs them")
        }
        let properties = AudioProperties(file: item.file, persistentID: item.persistentID, info: reader.info,
                                         format: item.sniffed.format, tags: tags)
        return OpenedItem(content: .audio(reader: reader, tags: tags), mediaType: properties.mediaType,
                          properties: properties.values, warnings: tagWarnings)
    }

    /// Transcodes the stream into its output with the tags as the tag stage left them, then
    /// exports the cover art when `tag.artwork.export` asks.
    static func transcode(_ opened: OpenedItem, reader: AudioSource, tags: MediaTags, _ item: Item, stage: AudioStage?,
                          job: Job, exporter: Exporter, album: AlbumLoudness? = nil) throws -> StepOutcome {
        guard var stage else {
            return try AudioCopyStep.copy(opened, reader: reader, tags: tags, item, job: job, exporter: exporter, album: album)
        }
        // ReplayGain values are of the output as written: measured as it is encoded.
        if job.tag?.replayGain != nil { stage.measuresLoudness = true }
        var levelWarnings: [String] = []
        var planWarnings: [String] = []
        var plan: AudioStage.Plan?
        // Tags: the input's, as the tag stage left them, carried into the output's own fields.
        var outcome: AudioStage.Outcome?
        var dropped: [String] = []
        var converted: [String] = []
        var ext = ""
        let exported = try exporter.write(item.file, ext: stage.defaultExtension, memory: workingMemory, property: { opened[$0] },
                                          check: { plan = try stage.plan(for: reader.info, ext: $0.ext, warnings: &planWarnings) }) { temporary, name in
            guard let plan else { throw ItemFailure(.unsupported, "no transcode plan for \(name.path)") }
            ext = name.ext
            var artwork = tags.artwork
            if case .embed(let path)? = job.tag?.artwork { artwork = try CoverArt.artwork(fromFileAt: path) }
            var outputTags = AudioProperties.tags(from: opened.properties, artwork: artwork, read: tags)
            // The encoder writes a scratch file; the tag writer copies it, tagged, straight into
            // the output's temporary file (rather than rewriting that into a temporary of its own).
            let encoded = try exporter.output.scratchPath(fileExtension: ext)
            defer { exporter.output.removeScratch(encoded) }
            outcome = try stage.render(reader, plan: plan, to: encoded.path, album: album)
            var track = outcome?.loudness
            // A perceptual codec changes the level a little (an MP3 of noise measures a few tenths
            // of a LU below what it was made from): its ReplayGain values come from decoding it.
            if job.tag?.replayGain != nil, [.mpeg4AAC, .mpegLayer3, .opus].contains(stage.settings.format) {
                track = try AudioCopyStep.measure(try AudioStage.open(encoded.path, format: ext)).loudness
            }
            let written = ReplayGain.writtenAlbum(album, settings: stage.settings, normalization: outcome?.normalization)
            levelWarnings = ReplayGain.settle(&outputTags, replayGain: job.tag?.replayGain, track: track, album: written.album,
                                              albumNote: written.note, opus: stage.settings.format == .opus,
                                              levelChange: ReplayGain.levelChange(stage.settings, sourceChannels: reader.info.channels))
            let report = try ItemFailure.converting(.output, context: "cannot write tags") {
                try TagIO.write(outputTags, from: encoded.path, into: temporary, container: plan.container, id3: job.export?.id3 ?? .v2_4)
            }
            (dropped, converted) = (report.unsupported, report.converted)
        }
        guard case .written(var written) = exported else { return exported }
        written.warnings += planWarnings
        written.warnings += outcome?.warnings ?? []
        written.warnings += levelWarnings
        if let damaged = outcome?.damagedFrames, damaged > 0 {
            written.warnings.append("skipped \(damaged) damaged frame\(damaged == 1 ? "" : "s"); decoding resumed after each")
        }
        if let clipped = outcome?.clipped, clipped > 0 { written.warnings.append(AudioStage.clippingWarning(clipped)) }
        written.warnings += droppedWarnings(dropped, ext: ext)
        written.warnings += converted.map { "ID3v2.3: " + $0 }
        if !tags.uncarried.isEmpty {
            written.warnings.append("tags Medley does not model, not carried into the output: " + tags.uncarried.joined(separator: "; "))
        }
        written.duration = outcome?.duration
        written.meter = stage.metering ? outcome?.meter : nil
        written.loudness = job.analyzesLoudness ? outcome?.loudness.map(LoudnessRecord.init) : nil
        written.normalization = outcome?.normalization
        if case .export(let template)? = job.tag?.artwork, let artwork = tags.artwork {
            try CoverArt.export(artwork, template: template, for: item.file, exporter: exporter) { opened[$0] }
        }
        return .written(written)
    }

    /// Named properties (docs/library.md) the container cannot hold in one sentence; other tags (by their
    /// Vorbis field name) one each.
    static func droppedWarnings(_ dropped: [String], ext: String) -> [String] {
        let specKeys = dropped.filter { MediaTags.names.contains($0) || $0 == "artwork" || $0 == "podcastTitle" }
        var warnings: [String] = []
        if !specKeys.isEmpty {
            warnings.append(".\(ext) cannot hold \(specKeys.joined(separator: ", ")); not written")
        }
        for other in dropped where !specKeys.contains(other) {
            warnings.append(other.contains(" (") ? "\(other): .\(ext) holds one value per field"
                                                 : "\(other): .\(ext) has no field for it; not written")
        }
        return warnings
    }
}
