import Foundation
import MedleyMedia
import MedleyYAML

/// AVAudioRecorder's settings dictionary (SPEC §8), validated: the `transcode:` stage.
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
        public var fourCC: String {
            switch self {
            case .linearPCM: return "lpcm"
            case .mpeg4AAC: return "aac "
            case .appleLossless: return "alac"
            case .flac: return "flac"
            case .opus: return "opus"
            case .mpegLayer3: return ".mp3"
            case .appleIMA4: return "ima4"
            case .uLaw: return "ulaw"
            case .aLaw: return "alaw"
            }
        }

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

        /// The libsamplerate converter SPEC §8 assigns to each quality.
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
    /// `preset: systemSound`: 16-bit linear PCM at the source rate, at most 30 s.
    public var systemSound = false
    /// `videoQuality:` (UIImagePickerController.QualityType names): movies are re-encoded to
    /// H.264 + AAC in MP4 at this preset.
    public var videoQuality: VideoQualityPreset?
    /// `scalingMode:` (MPMovieScalingMode): how a movie meets its preset's frame size.
    public var scalingMode: MovieScalingMode = .aspectFit
    /// Whether the settings say anything about audio (a format, rate, channels…), not only video.
    public var setsAudio = false

    /// MPEG-4 AAC sampling frequencies (ISO/IEC 14496-3, Table 1.18).
    public static let aacRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    static let keys = ["AVFormatIDKey", "AVSampleRateKey", "AVNumberOfChannelsKey", "AVEncoderAudioQualityKey",
                       "AVSampleRateConverterAudioQualityKey", "AVEncoderBitRateKey", "AVEncoderBitRatePerChannelKey",
                       "AVLinearPCMBitDepthKey", "AVLinearPCMIsFloatKey", "AVLinearPCMIsBigEndianKey",
                       "preset", "gain", "normalize", "videoQuality", "scalingMode"]

    /// Reads and checks the mapping; problems go to `sink` with their places.
    static func read(_ node: YAMLNode, sink: DiagnosticSink) -> TranscodeSettings? {
        guard case .mapping(let pairs, _) = node else {
            sink.error(node, "transcode must be a mapping of AVAudioRecorder settings, found \(node.kindDescription)")
            return nil
        }
        var settings = TranscodeSettings()
        var ok = true
        var fields: [String: YAMLNode] = [:]
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else { continue }
            guard keys.contains(key) else {
                sink.error(keyNode, "unknown key '\(key)' in transcode",
                           suggestion: DiagnosticSink.didYouMean(key, in: keys) ?? "known keys: \(keys.joined(separator: ", "))")
                ok = false
                continue
            }
            if fields[key] != nil { sink.error(keyNode, "'\(key)' is given twice in transcode"); ok = false }
            fields[key] = value
        }
        func text(_ key: String) -> (String, YAMLNode)? {
            guard let node = fields[key] else { return nil }
            guard let value = node.scalarText, !node.isNull else {
                sink.error(node, "\(key) takes a single value, found \(node.kindDescription)")
                ok = false
                return nil
            }
            return (value, node)
        }
        func integer(_ key: String, _ range: ClosedRange<Int>) -> Int? {
            guard let (value, node) = text(key) else { return nil }
            guard let n = Int(value), range.contains(n) else {
                sink.error(node, "\(key) must be a whole number in \(range.lowerBound)…\(range.upperBound), not '\(value)'")
                ok = false
                return nil
            }
            return n
        }
        func boolean(_ key: String) -> Bool? {
            guard let (value, node) = text(key) else { return nil }
            switch value.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default:
                sink.error(node, "\(key) must be true or false, not '\(value)'")
                ok = false
                return nil
            }
        }
        func quality(_ key: String) -> Quality? {
            guard let (value, node) = text(key) else { return nil }
            guard let q = Quality(text: value) else {
                sink.error(node, "\(key) takes an AVAudioQuality, not '\(value)'",
                           suggestion: "AVAudioQuality.min, .low, .medium, .high or .max (0, 0x20, 0x40, 0x60, 0x7F)")
                ok = false
                return nil
            }
            return q
        }

        settings.setsAudio = fields.keys.contains { !["videoQuality", "scalingMode"].contains($0) }
        if let (value, node) = text("videoQuality") {
            if let quality = VideoQualityPreset(rawValue: value) { settings.videoQuality = quality } else {
                let names = VideoQualityPreset.allCases.map(\.rawValue)
                sink.error(node, "unknown videoQuality '\(value)'",
                           suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
                ok = false
            }
        }
        if let (value, node) = text("scalingMode") {
            if let mode = MovieScalingMode(rawValue: value) { settings.scalingMode = mode } else {
                let names = MovieScalingMode.allCases.map(\.rawValue)
                sink.error(node, "unknown scalingMode '\(value)'",
                           suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
                ok = false
            }
            if fields["videoQuality"] == nil {
                sink.error(node, "scalingMode applies to movies re-encoded at a videoQuality", suggestion: "add 'videoQuality: typeMedium'")
                ok = false
            }
        }
        if let (value, node) = text("preset") {
            if value == "systemSound" { settings.systemSound = true } else {
                sink.error(node, "unknown transcode preset '\(value)'", suggestion: "the preset is 'systemSound'")
                ok = false
            }
        }
        if let (value, node) = text("AVFormatIDKey") {
            if let format = FormatID(text: value) {
                settings.format = format
            } else {
                sink.error(node, "unknown AVFormatIDKey '\(value)'",
                           suggestion: DiagnosticSink.didYouMean(value, in: FormatID.allCases.map(\.rawValue))
                               ?? "one of \(FormatID.allCases.map(\.rawValue).joined(separator: ", "))")
                ok = false
            }
        }
        settings.sampleRate = integer("AVSampleRateKey", 1000...768_000)
        if settings.format == .opus, let rate = settings.sampleRate, ![8000, 12000, 16000, 24000, 48000].contains(rate),
           let node = fields["AVSampleRateKey"] {
            sink.error(node, "Opus cannot be encoded at \(rate) Hz", suggestion: "use 8000, 12000, 16000, 24000 or 48000")
            ok = false
        }
        if settings.format == .mpeg4AAC, let rate = settings.sampleRate, !aacRates.contains(rate), let node = fields["AVSampleRateKey"] {
            sink.error(node, "AAC cannot be encoded at \(rate) Hz",
                       suggestion: "use an MPEG-4 rate: \(aacRates.map(String.init).joined(separator: ", "))")
            ok = false
        }
        settings.channels = integer("AVNumberOfChannelsKey", 1...8)
        settings.encoderQuality = quality("AVEncoderAudioQualityKey") ?? .high
        settings.converterQuality = quality("AVSampleRateConverterAudioQualityKey") ?? .medium
        settings.bitRate = integer("AVEncoderBitRateKey", 8000...1_536_000)
        settings.bitRatePerChannel = integer("AVEncoderBitRatePerChannelKey", 8000...320_000)
        if fields["AVEncoderBitRateKey"] != nil, let node = fields["AVEncoderBitRatePerChannelKey"] {
            sink.error(node, "give AVEncoderBitRateKey or AVEncoderBitRatePerChannelKey, not both")
            ok = false
        }
        if let depth = integer("AVLinearPCMBitDepthKey", 8...64) {
            if [8, 16, 24, 32, 64].contains(depth) { settings.bitDepth = depth } else if let node = fields["AVLinearPCMBitDepthKey"] {
                sink.error(node, "AVLinearPCMBitDepthKey must be 8, 16, 24 or 32 (64 for float), not \(depth)")
                ok = false
            }
        }
        settings.isFloat = boolean("AVLinearPCMIsFloatKey") ?? false
        if settings.isFloat, let depth = settings.bitDepth, depth != 32, depth != 64, let node = fields["AVLinearPCMBitDepthKey"] {
            sink.error(node, "float samples are 32 or 64 bits, not \(depth)")
            ok = false
        }
        settings.isBigEndian = boolean("AVLinearPCMIsBigEndianKey")
        if let (value, node) = text("gain") {
            if let db = Self.decibels(value, unit: "dB"), Self.gainRange.contains(db) { settings.gain = pow10(db / 20) } else {
                sink.error(node, "gain is a level from -120dB to +120dB, like -3dB, not '\(value)'",
                           suggestion: "±120 dB spans the whole range of 24-bit audio; beyond it is silence or noise")
                ok = false
            }
        }
        if let node = fields["normalize"] {
            if case .mapping(let pairs, _) = node, pairs.count == 1, pairs[0].key.scalarText == "peak",
               let value = pairs[0].value.scalarText, let db = Self.decibels(value, unit: "dBFS"), Self.peakRange.contains(db) {
                settings.normalizePeak = db
            } else {
                sink.error(Self.pairs(of: node)?.first { $0.key.scalarText == "peak" }?.value ?? node,
                           "normalize takes {peak: LEVEL} with a level from -120 to 0 dBFS, like {peak: -1dBFS}")
                ok = false
            }
        }
        if settings.gain != nil && settings.normalizePeak != nil, let node = fields["normalize"] {
            sink.error(node, "give gain or normalize, not both")
            ok = false
        }
        if settings.systemSound {
            if settings.format != .linearPCM || settings.bitDepth.map({ $0 != 16 }) == true || settings.isFloat,
               let node = fields["preset"] {
                sink.error(node, "preset systemSound is 16-bit linear PCM; remove the conflicting format settings")
                ok = false
            }
            settings.format = .linearPCM
            settings.bitDepth = 16
        }
        return ok ? settings : nil
    }

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

    private static func pairs(of node: YAMLNode) -> [(key: YAMLNode, value: YAMLNode)]? {
        if case .mapping(let pairs, _) = node { return pairs }
        return nil
    }
}

private func pow10(_ x: Double) -> Double { exp(x * 2.302585092994046) }
