import MedleyMedia
import MedleyTags

/// One row of `AudioFormatTable`: what Medley knows of one `AVFormatIDKey` value.
struct AudioFormatRow: Sendable {
    /// Core Audio's four-character code ("aac ", ".mp3").
    let fourCC: String
    /// The extension written when the export name does not choose one (docs/audio.md, "Containers").
    let defaultExtension: String
    /// The extensions FFmpeg writes the format into, by its muxer and encoder names, and the
    /// container that muxer makes (whose tag writer the output's tags go through).
    let ffmpeg: [(extensions: Set<String>, muxer: String, codec: String, container: AudioContainer)]
    /// Whether libsndfile writes the format into its containers (.caf, .wav, .aiff, .flac; which
    /// encodings each can hold is libsndfile's to say: `AudioOutputFormat.isWritable`).
    let sndfile: Bool
    /// Whether its outputs carry an ID3 tag (MP3, and PCM written as WAV or AIFF): `export.id3` applies.
    let id3: Bool
}

/// The one table of the audio formats a `transcode:` stage writes: AVAudioRecorder format IDs ↔
/// Core Audio codes ↔ default extensions ↔ the containers each goes in and the FFmpeg muxer and
/// encoder (or libsndfile) that write it. `TranscodeSettings.FormatID`, the audio stage's plan
/// and `export.id3`'s check read it; which extensions name a container is `AudioContainer`'s
/// table (MedleyTags), which the tag writers read too.
enum AudioFormatTable {
    static func row(_ format: TranscodeSettings.FormatID) -> AudioFormatRow {
        switch format {
        case .linearPCM: return AudioFormatRow(fourCC: "lpcm", defaultExtension: "caf", ffmpeg: [], sndfile: true, id3: true)
        case .mpeg4AAC: return AudioFormatRow(fourCC: "aac ", defaultExtension: "m4a", ffmpeg: [(["m4a", "mp4", "aac"], "ipod", "aac", .mp4)],
                                              sndfile: false, id3: false)
        case .appleLossless: return AudioFormatRow(fourCC: "alac", defaultExtension: "m4a", ffmpeg: [(["m4a"], "ipod", "alac", .mp4)],
                                                   sndfile: true, id3: false)
        case .flac: return AudioFormatRow(fourCC: "flac", defaultExtension: "flac", ffmpeg: [], sndfile: true, id3: false)
        case .opus: return AudioFormatRow(fourCC: "opus", defaultExtension: "ogg", ffmpeg: [(["ogg", "opus"], "ogg", "libopus", .ogg)],
                                          sndfile: false, id3: false)
        case .mpegLayer3: return AudioFormatRow(fourCC: ".mp3", defaultExtension: "mp3", ffmpeg: [(["mp3"], "mp3", "libmp3lame", .mp3)],
                                                sndfile: false, id3: true)
        case .appleIMA4: return AudioFormatRow(fourCC: "ima4", defaultExtension: "caf", ffmpeg: [(["caf"], "caf", "adpcm_ima_qt", .caf)],
                                               sndfile: false, id3: false)
        case .uLaw: return AudioFormatRow(fourCC: "ulaw", defaultExtension: "caf", ffmpeg: [], sndfile: true, id3: true)
        case .aLaw: return AudioFormatRow(fourCC: "alaw", defaultExtension: "caf", ffmpeg: [], sndfile: true, id3: true)
        }
    }

    /// The libsndfile container an extension names (.caf, .wav/.wave, .aif/.aiff/.aifc, .flac), by
    /// `AudioContainer`'s table; nil for the containers only FFmpeg writes.
    static func sndfileContainer(_ ext: String) -> AudioOutputFormat.Container? {
        switch AudioContainer(extension: ext) {
        case .caf: return .caf
        case .wav: return .wav
        case .aiff: return .aiff
        case .flac: return .flac
        case .mp4, .mp3, .ogg, nil: return nil
        }
    }
}
