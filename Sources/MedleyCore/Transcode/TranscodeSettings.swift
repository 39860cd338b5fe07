import Foundation
import MedleyMedia
import MedleyYAML

/// AVAudioRecorder's settings dictionary (docs/pipelines.md, "transcode"), validated: the `transcode:` stage.
public struct TranscodeSettings: Sendable, Equatable {
    /// `AVFormatIDKey` values, by Apple's constant names, four-character codes and raw values.
    public enum FormatID: String, Sendable, CaseIterable {
        case linearPCM = "kAudioFormatLinearPCM"
        case mpeg4AAC = "kAudioFormatMPEG4AAC"
        case appleLossless = "kAudioFormatAppleLossless"
        case flac = "kAudioFormatFLAC"
        case opus = "kAudioFormatOpus"
        case mpegLayer3 = "kAudioFormatMPEGLayer3"
        case appleIMA4 = "kAudioFormatAppleIMA4"
        case uLaw = "kAudioFormatULaw"
        case aLaw = "kAudioFormatALaw"

        /// Core Audio's four-character code.
        public var fourCC: String { AudioFormatTable.row(self).fourCC }

        /// The code as the UInt32 Core Audio stores (big-endian characters).
        public var rawCode: UInt32 { fourCC.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

        init?(text: String) {
            if let named = FormatID(rawValue: text) { self = named; return }
            if let coded = FormatID.allCases.first(where: { $0.fourCC == text || $0.fourCC.trimmingCharacters(in: .whitespaces) == text }) {
                self = coded
                return
            }
            if let number = UInt32(text), let coded = FormatID.allCases.first(where: { $0.rawCode == number }) {
                self = coded
                return
            }
            return nil
        }

    }

    /// `AVAudioQuality`.
    public enum Quality: Int, Sendable, CaseIterable {
        case min = 0, low = 0x20, medium = 0x40, high = 0x60, max = 0x7F

        init?(text: String) {
            let word = text.hasPrefix("AVAudioQuality.") ? String(text.dropFirst("AVAudioQuality.".count)) : text
            if let named = Quality.allCases.first(where: { "\($0)" == word }) { self = named; return }
            let number = word.hasPrefix("0x") ? Int(word.dropFirst(2), radix: 16) : Int(word)
            guard let number, let exact = Quality(rawValue: number) else { return nil }
            self = exact
        }

        /// The libsamplerate converter each quality picks (docs/pipelines.md, "transcode").
        public var converter: ResamplerQuality {
            switch self {
            case .min: return .linear
            case .low, .medium: return .sincFastest
            case .high: return .sincMedium
            case .max: return .sincBest
            }
        }
    }

    public var format: FormatID = .linearPCM
    /// nil: keep each item's own rate.
    public var sampleRate: Int?
    /// nil: keep each item's own channel count.
    public var channels: Int?
    public var encoderQuality: Quality = .high
    public var converterQuality: Quality = .medium
    public var bitRate: Int?
    public var bitRatePerChannel: Int?
    public var bitDepth: Int?
    public var isFloat = false
    public var isBigEndian: Bool?
    /// `gain: -3dB` as a linear factor.
    public var gain: Double?
    /// `normalize: {peak: -1dBFS}`: the peak to scale to, in dBFS.
    public var normalizePeak: Double?
    /// `normalize: {loudness: -16LUFS, …}` or a preset: loudness normalization (EBU R128).
    public var loudness: LoudnessNormalization?
    /// `trim: {silence: -50dB, …}`: leading and trailing silence removed.
    public var trim: SilenceTrim?
    /// `fade: {in: 0.5s, out: 2s}`.
    public var fade: Fade?
    /// `cut: {from: 10s, to: 40s}`: the part of the item kept, by time (before `trim` and `fade`).
    public var cut: TimeCut?
    /// `segment: {every: 10m}`: each recording split into numbered parts of this many seconds (the last
    /// holds the rest), each an item of its own (`path#segment=N`) with its own output.
    public var segment: Double?
    /// `preset: systemSound`: 16-bit linear PCM at the source rate, at most 30 s.
    public var systemSound = false
    /// `videoQuality:` (UIImagePickerController.QualityType names): movies are re-encoded to
    /// H.264 + AAC in MP4 at this preset.
    public var videoQuality: VideoQualityPreset?
    /// `scalingMode:` (MPMovieScalingMode): how a movie meets its preset's frame size.
    public var scalingMode: MovieScalingMode = .aspectFit
    /// Whether the settings say anything about audio (a format, rate, channels…), not only video.
    public var setsAudio = false
    /// A movie's own settings (videoCodec, crf, speed, …; docs/movies.md); nil without any.
    public var movie: MovieTranscode?
    /// `AVFormatIDKey: copy`: the stream copied as it is (a movie's soundtrack, an audio item's stream).
    public var copyAudio = false

    /// MPEG-4 AAC sampling frequencies (ISO/IEC 14496-3, Table 1.18).
    public static let aacRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
    /// The rates of MPEG-1, 2 and 2.5 Layer III: all an MP3 frame header can say.
    public static let mp3Rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    static let keys = ["AVFormatIDKey", "AVSampleRateKey", "AVNumberOfChannelsKey", "AVEncoderAudioQualityKey",
                       "AVSampleRateConverterAudioQualityKey", "AVEncoderBitRateKey", "AVEncoderBitRatePerChannelKey",
                       "AVLinearPCMBitDepthKey", "AVLinearPCMIsFloatKey", "AVLinearPCMIsBigEndianKey",
                       "preset", "gain", "normalize", "trim", "fade", "cut", "segment"] + MovieTranscode.keys

    /// Levels a gain may have: ±120 dB is a factor of a million either way, past the dynamic range
    /// of 24-bit audio (144 dB is the whole of it).
    static let gainRange = -120.0...120.0
    /// Peaks normalize may aim at (dBFS).
    static let peakRange = -120.0...0.0

    /// "-3dB", "-3 dB", "-3" → −3; nil for anything that is not a finite number ("nan", "inf",
    /// "1e400", which Double(_:) reads as NaN or infinity).
    static func decibels(_ text: String, unit: String) -> Double? {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.lowercased().hasSuffix(unit.lowercased()) { value = String(value.dropLast(unit.count)) }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
        return number
    }

    static func pairs(of node: YAMLNode) -> [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs, _) = node { return pairs }
        return nil
    }
}

/// 10 to the power `x`.
func pow10(_ x: Double) -> Double { exp(x * 2.302585092994046) }
