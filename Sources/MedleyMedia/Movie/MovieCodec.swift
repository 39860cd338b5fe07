/// `transcode: {videoCodec: …}`: the video encoders Debian's FFmpeg carries. Hardware encoders are
/// not used.
public enum VideoCodec: String, Sendable, CaseIterable {
    case h264, hevc, av1, vp9

    /// FFmpeg's encoder.
    public var encoder: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .av1: return "libsvtav1"
        case .vp9: return "libvpx-vp9"
        }
    }

    /// The profile asked of the encoder (nil: its own default, which for 8-bit 4:2:0 is Main / Profile 0).
    public var profile: String? { self == .h264 ? "high" : nil }

    /// The constant rate factors the encoder takes, and its default.
    public var crfRange: ClosedRange<Int> { self == .h264 || self == .hevc ? 0...51 : 0...63 }
    public var defaultCRF: Int {
        switch self {
        case .h264: return 23
        case .hevc: return 28
        case .av1: return 35
        case .vp9: return 31
        }
    }

    /// x264's speed preset names, slowest last; every codec takes them (see `speedOption`).
    public static let speedNames = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                                    "slower", "veryslow"]

    /// The encoder's own speed numbers (SVT-AV1's preset, libvpx's cpu-used), fastest first; nil for
    /// x264 and x265, which take the names.
    public var speedNumbers: ClosedRange<Int>? {
        switch self {
        case .h264, .hevc: return nil
        case .av1: return 0...13
        case .vp9: return 0...8
        }
    }

    /// The value of the encoder's speed option for a name or number already validated: x264 and x265
    /// take the name; SVT-AV1 (preset 12 … 2) and libvpx-vp9 (cpu-used 8 … 0) get the number at the
    /// same place on their scale (the table in docs/movies.md).
    public func speedOption(_ speed: String) -> String {
        guard let index = Self.speedNames.firstIndex(of: speed) else { return speed }
        switch self {
        case .h264, .hevc: return speed
        case .av1: return String([12, 11, 10, 9, 8, 6, 4, 3, 2][index])
        case .vp9: return String([8, 7, 6, 5, 4, 2, 1, 1, 0][index])
        }
    }

    /// Whether FFmpeg 5.1's wrapper of the encoder runs two passes (SVT-AV1's does not).
    public var hasTwoPasses: Bool { self != .av1 }

    /// Whether Medley writes it at 10 bits (H.264's High 10 plays almost nowhere).
    public var hasTenBit: Bool { self != .h264 }

    /// The codec as ffprobe names it.
    public var probeName: String { rawValue }

    /// Whether a container (an output extension) can hold this codec, and what to do instead.
    public func problem(inContainer ext: String) -> String? {
        let allowed: [String: Set<VideoCodec>] = [
            "mp4": [.h264, .hevc, .av1, .vp9], "m4v": [.h264, .hevc, .av1, .vp9], "mov": [.h264, .hevc],
            "mkv": Set(VideoCodec.allCases), "webm": [.av1, .vp9],
        ]
        guard let set = allowed[ext] else {
            return "a movie is written as .mp4, .m4v, .mov, .mkv or .webm, not .\(ext)"
        }
        guard !set.contains(self) else { return nil }
        let others = VideoCodec.allCases.filter { set.contains($0) }.map(\.rawValue)
        let homes = allowed.keys.sorted().filter { allowed[$0]!.contains(self) && $0 != "m4v" }.map { "." + $0 }
        return ".\(ext) cannot hold \(rawValue); name the output \(homes.joined(separator: " or ")), or use videoCodec: \(others.joined(separator: " or "))"
    }
}

/// The sound of a re-encoded movie.
public enum MovieAudio: Sendable, Equatable {
    /// AAC at a bit rate and channel count (the presets: 128 kb/s stereo).
    case encode(codec: MovieAudioCodec, bitRate: Int?, sampleRate: Int?, channels: Int)
    /// The packets copied as they are (`-c:a copy`).
    case copy

    public static let presetDefault = MovieAudio.encode(codec: .aac, bitRate: 128_000, sampleRate: nil, channels: 2)
}

/// The audio encoders a movie's sound may be re-encoded with.
public enum MovieAudioCodec: String, Sendable, CaseIterable {
    case aac, opus, mp3, flac, alac, vorbis

    public var encoder: String {
        switch self {
        case .aac: return "aac"
        case .opus: return "libopus"
        case .mp3: return "libmp3lame"
        case .flac: return "flac"
        case .alac: return "alac"
        case .vorbis: return "libvorbis"
        }
    }

    /// Whether a container (an output extension) can hold it, and what to do instead.
    public func problem(inContainer ext: String) -> String? {
        let allowed: [String: Set<MovieAudioCodec>] = [
            "mp4": [.aac, .mp3, .opus, .flac, .alac], "m4v": [.aac, .mp3, .alac], "mov": [.aac, .mp3, .alac],
            "mkv": Set(MovieAudioCodec.allCases), "webm": [.opus, .vorbis],
        ]
        guard let set = allowed[ext], !set.contains(self) else { return nil }
        let others = MovieAudioCodec.allCases.filter { set.contains($0) }.map(\.rawValue)
        return ".\(ext) cannot hold \(rawValue) sound; use \(others.joined(separator: " or ")) (or name the output .mkv)"
    }
}
