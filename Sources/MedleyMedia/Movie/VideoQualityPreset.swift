/// `transcode: {videoQuality: …}`: AVAssetExportSession's preset names, as H.264 (libx264, 4:2:0,
/// High profile) + AAC in MP4. Quality comes from a constant rate factor; the presets that name a
/// bit rate cap it with a VBV buffer of one second, so the average video rate of a clip of D
/// seconds stays under `maxBitRate · (1 + 1/D)` (and for long clips under `maxBitRate`).
///
/// | preset | picture | CRF | video cap | keyframes |
/// |---|---|---|---|---|
/// | typeHigh | source size | 18 | none | libx264's default (every 250 frames at most) |
/// | typeMedium | at most 1280×720 | 23 | 5 Mb/s | default |
/// | typeLow | at most 640×360 | 28 | 1 Mb/s | default |
/// | type640x480 | 640×480 box | 23 | 2.5 Mb/s | default |
/// | typeIFrame960x540 | 960×540 box | 18 | 30 Mb/s | every frame |
/// | typeIFrame1280x720 | 1280×720 box | 18 | 40 Mb/s | every frame |
///
/// "At most" boxes never enlarge; the fixed boxes scale up or down. Boxes apply to the picture as
/// displayed (a portrait clip goes in a 720×1280 box for typeMedium) and the scaling mode decides
/// how it fills them. The iFrame presets follow Apple's iFrame format: every frame a keyframe at
/// roughly 30 Mb/s (960×540) or 40 Mb/s (1280×720); here those rates are ceilings, and simple
/// pictures take less. All presets use libx264's `medium` speed preset and keep the frame rate.
/// Audio is AAC-LC, 128 kb/s, stereo, at the source's rate when it is 44.1 or 48 kHz, else at
/// 44.1 kHz for multiples of 11 025 Hz and 48 kHz for the rest.
public enum VideoQualityPreset: String, Sendable, CaseIterable {
    case typeHigh, typeMedium, typeLow, type640x480, typeIFrame960x540, typeIFrame1280x720

    /// The encoder settings this preset stands for.
    public var encoding: VideoEncoding {
        switch self {
        case .typeHigh:
            return VideoEncoding(boxWidth: nil, boxHeight: nil, upscale: false, crf: 18, maxBitRate: nil, keyframeInterval: nil)
        case .typeMedium:
            return VideoEncoding(boxWidth: 1280, boxHeight: 720, upscale: false, crf: 23, maxBitRate: 5_000_000, keyframeInterval: nil)
        case .typeLow:
            return VideoEncoding(boxWidth: 640, boxHeight: 360, upscale: false, crf: 28, maxBitRate: 1_000_000, keyframeInterval: nil)
        case .type640x480:
            return VideoEncoding(boxWidth: 640, boxHeight: 480, upscale: true, crf: 23, maxBitRate: 2_500_000, keyframeInterval: nil)
        case .typeIFrame960x540:
            return VideoEncoding(boxWidth: 960, boxHeight: 540, upscale: true, crf: 18, maxBitRate: 30_000_000, keyframeInterval: 1)
        case .typeIFrame1280x720:
            return VideoEncoding(boxWidth: 1280, boxHeight: 720, upscale: true, crf: 18, maxBitRate: 40_000_000, keyframeInterval: 1)
        }
    }
}

/// What a preset asks of the encoders.
public struct VideoEncoding: Sendable, Equatable {
    /// The box the picture is fitted to, as displayed; nil keeps the source size.
    public var boxWidth: Int?
    public var boxHeight: Int?
    /// Whether a picture smaller than the box is enlarged.
    public var upscale: Bool
    /// libx264's constant rate factor (lower is better and bigger).
    public var crf: Int
    /// Video bits per second the VBV holds the stream under (buffer: one second of it); nil: no cap.
    public var maxBitRate: Int?
    /// Frames from one keyframe to the next: 1 makes every frame a keyframe; nil: libx264's default.
    public var keyframeInterval: Int?
    /// The encoder's speed: x264/x265's preset name, SVT-AV1's preset or libvpx's cpu-used number
    /// (`VideoCodec.speedOption`).
    public var x264Preset: String = "medium"
    /// AAC bits per second and channels.
    public var audioBitRate: Int = 128_000
    public var audioChannels: Int = 2
    /// The video encoder (the presets: H.264).
    public var codec: VideoCodec = .h264
    /// A constant output frame rate (numerator, denominator); nil keeps the source's timestamps.
    public var frameRate: MovieFrameRate?
    /// Seconds from one keyframe to the next, turned into frames at the output's rate (overrides
    /// `keyframeInterval`).
    public var keyframeSeconds: Double?
    /// The sound: nil is AAC at `audioBitRate` and `audioChannels`.
    public var audio: MovieAudio?
    /// 10-bit 4:2:0 pictures (HEVC Main 10, VP9 profile 2, AV1 Main) instead of 8-bit.
    public var tenBit = false
    /// Rate control by an average video bit rate (bits/s) instead of `crf`.
    public var bitRate: Int?
    /// A size for the whole file (bytes): the video bit rate is worked out from the duration and
    /// the sound's rates, as HandBrake's target size does.
    public var targetSize: Int?
    /// 2: a first pass gathers the encoder's statistics, the second spends the bit rate by them.
    public var passes = 1
    /// Deinterlacing, black bars and HDR.
    public var pictures = MoviePictureSettings()

    public init(boxWidth: Int?, boxHeight: Int?, upscale: Bool, crf: Int, maxBitRate: Int?, keyframeInterval: Int?) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.upscale = upscale
        self.crf = crf
        self.maxBitRate = maxBitRate
        self.keyframeInterval = keyframeInterval
    }

    /// The AAC sample rate for a source rate: 44.1 and 48 kHz stay; other multiples of 11 025 Hz
    /// become 44.1 kHz, everything else 48 kHz.
    public static func audioSampleRate(forSource rate: Int) -> Int {
        if rate == 44_100 || rate == 48_000 { return rate }
        return rate > 0 && rate % 11_025 == 0 ? 44_100 : 48_000
    }
}

/// A frame rate as a fraction: 30000/1001 for NTSC's 29.97.
public struct MovieFrameRate: Sendable, Equatable {
    public var numerator: Int
    public var denominator: Int

    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// "30", "29.97" (read as 30000/1001, as ffmpeg's `ntsc` names), "30000/1001", "25fps"; nil for
    /// anything else or a rate outside 1…240.
    public init?(_ text: String) {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value.hasSuffix("fps") { value = String(value.dropLast(3)).trimmingCharacters(in: .whitespaces) }
        let parts = value.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 {
            (numerator, denominator) = (n, d)
        } else if let n = Int(value) {
            (numerator, denominator) = (n, 1)
        } else if let x = Double(value), x >= 1, x <= 240 {  // checked before any conversion to Int
            // 23.976, 29.97, 59.94: the NTSC rates x·1000/1001.
            let ntsc = (x * 1.001).rounded()
            if abs(ntsc / 1.001 - x) < 0.005 { (numerator, denominator) = (Int(ntsc) * 1000, 1001) } else {
                (numerator, denominator) = (Int((x * 1000).rounded()), 1000)
            }
        } else {
            return nil
        }
        guard (1.0...240.0).contains(self.value) else { return nil }
    }

    /// Frames per second.
    public var value: Double { Double(numerator) / Double(denominator) }
}
