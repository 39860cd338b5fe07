import Foundation
import MedleyMedia

/// A movie as a source of audio (`media: [movie]` with a `transcode:` of audio settings only): its
/// sound track written as an audio output, the packets copied when the settings allow it
/// (`AVFormatIDKey: copy`, or the same codec into a container that holds it, nothing else changed),
/// else decoded and encoded by the audio stage like any audio item.
enum SoundtrackStep {
    /// Whether a job's transcode makes soundtracks of its movies: audio settings and no movie ones.
    static func applies(to job: Job) -> Bool {
        guard job.poster == nil, let settings = job.transcode else { return false }
        return settings.movie == nil && settings.videoQuality == nil && settings.setsAudio
    }

    /// The codec as ffprobe names it that an `AVFormatIDKey` encodes to, for the copy decision.
    static func codecName(_ format: TranscodeSettings.FormatID) -> String? {
        switch format {
        case .mpeg4AAC: return "aac"
        case .mpegLayer3: return "mp3"
        case .flac: return "flac"
        case .opus: return "opus"
        case .appleLossless: return "alac"
        default: return nil
        }
    }

    /// The extension a copied sound track of `codec` gets unless the export name says.
    static func copyExtension(codec: String) -> String {
        switch codec {
        case "aac", "alac": return "m4a"
        case "mp3": return "mp3"
        case "flac": return "flac"
        case "opus": return "opus"
        case "vorbis": return "ogg"
        case "ac3": return "ac3"
        case "eac3": return "eac3"
        default: return "mka"
        }
    }

    /// The containers a copied `codec` may go in (the ones whose muxers take it as it is).
    static func copyContainers(codec: String) -> Set<String> {
        switch codec {
        case "aac": return ["m4a", "m4b", "mp4", "mka", "aac", "mov"]
        case "alac": return ["m4a", "m4b", "mp4", "mka", "mov"]
        case "mp3": return ["mp3", "m4a", "mp4", "mka", "mov"]
        case "flac": return ["flac", "mka", "ogg", "mp4"]
        case "opus": return ["opus", "ogg", "mka", "webm", "mp4"]
        case "vorbis": return ["ogg", "mka", "webm"]
        case "ac3": return ["ac3", "mka", "mp4", "mov"]
        case "eac3": return ["eac3", "mka", "mp4"]
        default: return ["mka"]
        }
    }

    /// Whether the settings leave the sound as it is when its codec is `codec` at `rate` Hz with
    /// `channels`: the same format, and no rate, channels, bit rate or level change asked.
    static func copies(_ settings: TranscodeSettings, codec: String, rate: Int, channels: Int) -> Bool {
        if settings.copyAudio { return true }
        guard codecName(settings.format) == codec else { return false }
        return settings.sampleRate.map { $0 == rate } ?? true
            && settings.channels.map { $0 == channels } ?? true
            && settings.bitRate == nil && settings.bitRatePerChannel == nil && settings.bitDepth == nil
            && settings.gain == nil && settings.normalizePeak == nil && settings.loudness == nil
            && settings.trim == nil && settings.fade == nil && settings.cut == nil && settings.segment == nil && !settings.systemSound
    }

    /// Writes the movie's sound track: copied into an audio container, or through the audio stage.
    static func write(_ opened: OpenedItem, info: MovieInfo, _ item: Item, job: Job, audio: AudioStage?,
                      exporter: Exporter) throws -> StepOutcome {
        guard let codec = info.audioCodec, let settings = job.transcode else {
            throw ItemFailure(.unsupported, "the movie has no sound track to write as audio")
        }
        if copies(settings, codec: codec, rate: info.sampleRate, channels: info.channels) {
            let allowed = copyContainers(codec: codec)
            var result: MovieTranscodeResult?
            let exported = try exporter.write(item.file, ext: copyExtension(codec: codec), memory: AudioStep.workingMemory,
                                              property: { opened[$0] }, check: { name in
                guard allowed.contains(name.ext.lowercased()) else {
                    throw ItemFailure(.unsupported, "the sound track (\(codec)) is copied as it is and .\(name.ext) cannot hold it; "
                                      + "name the output .\(allowed.sorted().joined(separator: ", ."))"
                                      + (settings.copyAudio ? ", or name a format in AVFormatIDKey to re-encode it" : ""))
                }
            }) { temporary, name in
                result = try ItemFailure.converting(context: "cannot extract the sound track") {
                    try Movie.remux(path: item.source, to: temporary, container: name.ext.lowercased(), audioOnly: true)
                }
            }
            guard case .written(var written) = exported else { return exported }
            written.duration = result?.timing.audioEnd
            written.warnings += result?.timing.warnings ?? []
            return .written(written)
        }
        // A re-encode: the movie's sound read as an audio item's (the audio decoder takes its best audio stream).
        let media = try AudioStep.read(item, job: job)
        guard case .audio(let reader, let tags) = media.content else {
            throw ItemFailure(.unsupported, "the movie's sound track cannot be read as audio")
        }
        let stage = try AudioStage.taking(reader, format: item.sniffed.format, audio, job: job)?.part(item.file.segment)
        let outcome = try AudioStep.transcode(media, reader: reader, tags: tags, item, stage: stage, job: job, exporter: exporter)
        guard case .written(var written) = outcome else { return outcome }
        written.warnings = media.warnings + written.warnings
        return .written(written)
    }
}
