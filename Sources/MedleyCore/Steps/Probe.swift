import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyTags

/// `medley probe`: the properties Medley reads from one file, without a pipeline.
public enum Probe {
    /// `metering`: also decode the whole audio stream for peak and average power per channel.
    /// `loudness`: also decode it for its EBU R128 loudness (`loudnessValues`).
    public static func properties(ofFileAt path: String, metering: Bool = false,
                                  loudness: Bool = false) throws -> [(name: String, value: TemplateValue)] {
        let info: FileSystem.Status
        switch FileSystem.status(of: path) {
        case .success(let status): info = status
        case .failure(let error):
            let cause = MediaError.system("stat", errno: error.code, path: path)
            throw ItemFailure(.input, cause.message, cause: cause)
        }
        guard info.kind == .file else { throw ItemFailure(.input, "not a regular file") }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let file = IngestedFile(
            path: absolute, root: (absolute as NSString).deletingLastPathComponent,
            relativePath: (absolute as NSString).lastPathComponent, size: info.size,
            modified: Date(timeIntervalSince1970: Double(info.modifiedTime.seconds)))
        guard let sniffed = try Identify.format(of: file) else {
            throw ItemFailure(.input, "not a recognised image, audio or movie file")
        }
        let persistentID: UInt64
        do {
            persistentID = try ContentHash.ofFile(at: absolute)
        } catch let error as MediaError {
            throw ItemFailure(error, .input)
        }
        if sniffed.kind == .audio {
            return try audioProperties(file, persistentID: persistentID, format: sniffed.format, metering: metering,
                                       loudness: loudness)
        }
        if sniffed.kind == .movie {
            do {
                return MovieProperties(file: file, persistentID: persistentID, info: try Movie.probe(path: absolute),
                                       format: sniffed.format).values + notMeasured(loudness)
            } catch let error as MediaError {
                throw ItemFailure(error)
            }
        }
        if sniffed == .raw { return try RawProbe.properties(file, persistentID: persistentID) + notMeasured(loudness) }
        try Vips.start()
        // libvips' and GLib's messages while the header and metadata are read are this file's
        // warnings, as in a run, never raw lines on stderr.
        var messages = LibraryMessages()
        var values: [(name: String, value: TemplateValue)]
        var metadataWarnings: [String] = []
        do {
            values = try Vips.collectingMessages(into: &messages) {
                let image = try VipsImage.open(absolute, access: .sequential)
                let properties = ImageProperties(file: file, persistentID: persistentID, image: image, format: sniffed.format)
                metadataWarnings = properties.warnings
                return properties.values
            }
        } catch {
            let reason = (error as? MediaError)?.reason ?? "\(error)"
            throw ItemFailure(.decode, "cannot decode: " + ([reason] + messages.lines).joined(separator: "; "))
        }
        metadataWarnings.forEach { messages.note($0) }
        if !messages.lines.isEmpty { values.append(("warnings", .text(messages.lines.joined(separator: "; ")))) }
        return values + notMeasured(loudness)
    }

    /// `--meter` or `--loudness` on audio that cannot be decoded: said, not silently skipped.
    static func notMeasured(audio asked: Bool) -> [(name: String, value: TemplateValue)] {
        asked ? [("loudnessNote", .text("the audio cannot be decoded: nothing was measured"))] : []
    }

    /// `--loudness` on a file that is not audio: said, not silently skipped.
    static func notMeasured(_ loudness: Bool) -> [(name: String, value: TemplateValue)] {
        loudness ? [("loudnessNote", .text("not an audio file: loudness is measured for audio files only"))] : []
    }
}

extension Probe {
    /// Header properties, plus metering of the whole stream (AVAudioPlayer's peak and average
    /// power) when asked.
    static func audioProperties(_ file: IngestedFile, persistentID: UInt64, format: String,
                                metering: Bool, loudness: Bool = false) throws -> [(name: String, value: TemplateValue)] {
        let reader: AudioSource
        do {
            reader = try AudioStage.open(file.path, format: format)
        } catch let failure as ItemFailure {
            // The tags are read without the decoder (as mutagen and taggers read them): a file
            // whose audio FFmpeg refuses still shows them, with the decoder's reason as a warning.
            let (tags, warnings, tagFailure) = AudioStage.readTags(file.path)
            guard tagFailure == nil, !(tags.entries.isEmpty && tags.extra.isEmpty && tags.artwork == nil) else { throw failure }
            return AudioProperties.undecodable(file: file, persistentID: persistentID, format: format, tags: tags,
                                               warnings: ["the audio cannot be decoded (\(failure.reason)); only the tags were read"] + warnings)
                + notMeasured(audio: metering || loudness)
        }
        let (tags, warnings, _) = AudioStage.readTags(file.path)
        var values = AudioProperties(file: file, persistentID: persistentID, info: reader.info, format: format,
                                     tags: tags).values
        if !warnings.isEmpty { values.append(("warnings", .text(warnings.joined(separator: "; ")))) }
        // What the tags hold that no property names, so a transcode cannot carry it (MediaTags.uncarried).
        if !tags.uncarried.isEmpty { values.append(("tagsNotCarried", .text(tags.uncarried.joined(separator: "; ")))) }
        if let artwork = tags.artwork {
            values.append(("artworkType", .text(artwork.mimeType)))
            values.append(("artworkBytes", .integer(artwork.data.count)))
        }
        do {
            if metering { values += AudioProperties.metering(try reader.meterToEnd()) }
            if loudness {
                if metering { try reader.rewind() }
                values += loudnessValues(try reader.loudnessToEnd(), sampleRate: reader.info.sampleRate,
                                         damagedFrames: reader.damagedFrames)
            }
        } catch let error as MediaError {
            throw ItemFailure(error)
        }
        return values
    }

    /// The stream's EBU R128 loudness at its own rate and channels, to 0.01 as the manifest has it
    /// (`LoudnessRecord`): `integratedLoudness` LUFS, `loudnessRange` LU, `samplePeak` dBFS,
    /// `truePeak` dBTP. What has no value (silence has no loudness and no peak; a stream shorter
    /// than one 400 ms block has no integrated loudness) is left out and said in `loudnessNote`.
    static func loudnessValues(_ measurement: LoudnessMeasurement, sampleRate: Int,
                               damagedFrames: Int = 0) -> [(name: String, value: TemplateValue)] {
        let record = LoudnessRecord(measurement)
        var values: [(name: String, value: TemplateValue)] = []
        var notes: [String] = []
        if let integrated = record.integrated {
            values.append(("integratedLoudness", .number(integrated)))
        } else {
            let seconds = Double(measurement.frames) / Double(max(1, sampleRate))
            notes.append(seconds < 0.4 ? String(format: "%.3f s is shorter than one 400 ms block: no integrated loudness", seconds)
                                       : "nothing above the −70 LUFS gate: no integrated loudness")
        }
        values.append(("loudnessRange", .number(record.range)))
        if let peak = record.samplePeak { values.append(("samplePeak", .number(peak))) }
        if let peak = record.truePeak { values.append(("truePeak", .number(peak))) }
        if record.samplePeak == nil { notes.append("digital silence: no peak") }
        if damagedFrames > 0 { notes.append("measured around \(damagedFrames) damaged frame\(damagedFrames == 1 ? "" : "s") the decoder skipped") }
        if !notes.isEmpty { values.append(("loudnessNote", .text(notes.joined(separator: "; ")))) }
        return values
    }
}
