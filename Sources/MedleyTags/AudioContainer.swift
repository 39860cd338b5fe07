import Foundation

/// The audio containers Medley reads, writes and tags, and the one table of the file extensions
/// that name each: files of one container can be named with any of its extensions (.ogg, .oga
/// and .opus are all Ogg). The tag writers, the copy of a stream with new tags and the transcode
/// stage's libsndfile outputs all read this table.
public enum AudioContainer: String, Sendable, CaseIterable {
    /// MPEG-4 (.m4a, .m4b, .m4p, .m4r, .mp4), MPEG audio (.mp3), FLAC, Ogg (.ogg, .oga, .opus),
    /// RIFF WAVE (.wav, .wave), AIFF and AIFF-C (.aif, .aiff, .aifc), Core Audio Format (.caf).
    case mp4, mp3, flac, ogg, wav, aiff, caf

    /// The container an extension names, any case, with or without its dot; nil for others.
    public init?(extension ext: String) {
        switch ext.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) {
        case "m4a", "m4b", "m4p", "mp4", "m4r": self = .mp4
        case "mp3": self = .mp3
        case "flac": self = .flac
        case "ogg", "oga", "opus": self = .ogg
        case "wav", "wave": self = .wav
        case "aif", "aiff", "aifc": self = .aiff
        case "caf": self = .caf
        default: return nil
        }
    }

    /// The MediaTags keys (and "artwork") the container's tags can hold.
    var tagKeys: Set<String> {
        switch self {
        case .mp4: return MP4Tags.keys
        case .mp3, .wav, .aiff: return ID3v2.keys
        case .flac, .ogg: return VorbisComments.keys
        case .caf: return CAFTags.keys
        }
    }
}
