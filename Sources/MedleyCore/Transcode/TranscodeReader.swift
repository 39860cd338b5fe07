import MedleyMedia
import MedleyYAML

/// Reading the `transcode:` stage: AVAudioRecorder's settings keys, each checked alone and then
/// against the others (a rate the codec cannot take, two keys that exclude each other), and the
/// movie keys (`videoQuality`, `scalingMode`).
extension TranscodeSettings {
    /// Reads and checks the mapping; problems go to `sink` with their places.
    static func read(_ node: YAMLNode, sink: DiagnosticSink) -> TranscodeSettings? {
        guard case .mapping(let pairs, _) = node else {
            sink.error(node, "transcode must be a mapping of AVAudioRecorder settings, found \(node.kindDescription)")
            return nil
        }
        let fields = TranscodeFields(sink: sink)
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else { continue }
            guard keys.contains(key) else {
                fields.error(keyNode, "unknown key '\(key)' in transcode",
                             suggestion: DiagnosticSink.didYouMean(key, in: keys) ?? "known keys: \(keys.joined(separator: ", "))")
                continue
            }
            if fields.nodes[key] != nil { fields.error(keyNode, "'\(key)' is given twice in transcode") }
            fields.nodes[key] = value
        }
        var settings = TranscodeSettings()
        settings.setsAudio = fields.nodes.keys.contains { !MovieTranscode.keys.contains($0) }
        readMovie(fields, into: &settings)
        readMovieEncoding(fields, into: &settings)
        readPresetName(fields, into: &settings)
        readFormat(fields, into: &settings)
        readLevel(fields, into: &settings)
        readTrimAndFade(fields, into: &settings)
        readCut(fields, into: &settings)
        readSegment(fields, into: &settings)
        readPreset(fields, into: &settings)
        checkCopy(fields, settings)
        return fields.ok ? settings : nil
    }

    /// `videoQuality`, and `scalingMode` (which needs a videoQuality).
    private static func readMovie(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        if let (value, node) = fields.text("videoQuality") {
            if let quality = VideoQualityPreset(rawValue: value) { settings.videoQuality = quality } else {
                let names = VideoQualityPreset.allCases.map(\.rawValue)
                fields.error(node, "unknown videoQuality '\(value)'",
                             suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
            }
        }
        if let (value, node) = fields.text("scalingMode") {
            if let mode = MovieScalingMode(rawValue: value) { settings.scalingMode = mode } else {
                let names = MovieScalingMode.allCases.map(\.rawValue)
                fields.error(node, "unknown scalingMode '\(value)'",
                             suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
            }
            if fields.nodes["videoQuality"] == nil && fields.nodes["maxWidth"] == nil && fields.nodes["maxHeight"] == nil {
                fields.error(node, "scalingMode applies to movies re-encoded at a videoQuality", suggestion: "add 'videoQuality: typeMedium'")
            }
        }
    }

    /// `preset` (only `systemSound`).
    private static func readPresetName(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        guard let (value, node) = fields.text("preset") else { return }
        if value == "systemSound" { settings.systemSound = true } else {
            fields.error(node, "unknown transcode preset '\(value)'", suggestion: "the preset is 'systemSound'")
        }
    }

    /// The format, rate, channels, qualities, bit rates and PCM layout.
    private static func readFormat(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        if let (value, node) = fields.text("AVFormatIDKey") {
            if value == "copy" {
                settings.copyAudio = true
            } else if let format = FormatID(text: value) {
                settings.format = format
            } else {
                fields.error(node, "unknown AVFormatIDKey '\(value)'",
                             suggestion: DiagnosticSink.didYouMean(value, in: FormatID.allCases.map(\.rawValue))
                                 ?? "one of \(FormatID.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        settings.sampleRate = fields.integer("AVSampleRateKey", 1000...768_000)
        if settings.format == .opus, let rate = settings.sampleRate, ![8000, 12000, 16000, 24000, 48000].contains(rate),
           let node = fields.nodes["AVSampleRateKey"] {
            fields.error(node, "Opus cannot be encoded at \(rate) Hz", suggestion: "use 8000, 12000, 16000, 24000 or 48000")
        }
        if settings.format == .mpeg4AAC, let rate = settings.sampleRate, !aacRates.contains(rate), let node = fields.nodes["AVSampleRateKey"] {
            fields.error(node, "AAC cannot be encoded at \(rate) Hz",
                         suggestion: "use an MPEG-4 rate: \(aacRates.map(String.init).joined(separator: ", "))")
        }
        if settings.format == .mpegLayer3, let rate = settings.sampleRate, !TranscodeSettings.mp3Rates.contains(rate),
           let node = fields.nodes["AVSampleRateKey"] {
            fields.error(node, "MP3 cannot be encoded at \(rate) Hz",
                         suggestion: "use an MPEG audio rate: \(TranscodeSettings.mp3Rates.map(String.init).joined(separator: ", "))")
        }
        settings.channels = fields.integer("AVNumberOfChannelsKey", 1...8)
        settings.encoderQuality = fields.quality("AVEncoderAudioQualityKey") ?? .high
        settings.converterQuality = fields.quality("AVSampleRateConverterAudioQualityKey") ?? .medium
        settings.bitRate = fields.integer("AVEncoderBitRateKey", 8000...1_536_000)
        settings.bitRatePerChannel = fields.integer("AVEncoderBitRatePerChannelKey", 8000...320_000)
        if fields.nodes["AVEncoderBitRateKey"] != nil, let node = fields.nodes["AVEncoderBitRatePerChannelKey"] {
            fields.error(node, "give AVEncoderBitRateKey or AVEncoderBitRatePerChannelKey, not both")
        }
        if let depth = fields.integer("AVLinearPCMBitDepthKey", 8...64) {
            if [8, 16, 24, 32, 64].contains(depth) { settings.bitDepth = depth } else if let node = fields.nodes["AVLinearPCMBitDepthKey"] {
                fields.error(node, "AVLinearPCMBitDepthKey must be 8, 16, 24 or 32 (64 for float), not \(depth)")
            }
        }
        settings.isFloat = fields.boolean("AVLinearPCMIsFloatKey") ?? false
        if settings.isFloat, let depth = settings.bitDepth, depth != 32, depth != 64, let node = fields.nodes["AVLinearPCMBitDepthKey"] {
            fields.error(node, "float samples are 32 or 64 bits, not \(depth)")
        }
        settings.isBigEndian = fields.boolean("AVLinearPCMIsBigEndianKey")
    }

    /// `gain` or `normalize`, not both.
    private static func readLevel(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        if let (value, node) = fields.text("gain") {
            if let db = decibels(value, unit: "dB"), gainRange.contains(db) { settings.gain = pow10(db / 20) } else {
                fields.error(node, "gain is a level from -120dB to +120dB, like -3dB, not '\(value)'",
                             suggestion: "±120 dB spans the whole range of 24-bit audio; beyond it is silence or noise")
            }
        }
        if let node = fields.nodes["normalize"], LoudnessNormalization.isLoudness(node) {
            settings.loudness = LoudnessNormalization.read(node, fields: fields)
        } else if let node = fields.nodes["normalize"] {
            if case .mapping(let pairs, _) = node, pairs.count == 1, pairs[0].key.scalarText == "peak",
               let value = pairs[0].value.scalarText, let db = decibels(value, unit: "dBFS"), peakRange.contains(db) {
                settings.normalizePeak = db
            } else {
                fields.error(pairs(of: node)?.first { $0.key.scalarText == "peak" }?.value ?? node,
                             "normalize takes {peak: LEVEL} with a level from -120 to 0 dBFS, like {peak: -1dBFS}")
            }
        }
        if settings.gain != nil && (settings.normalizePeak != nil || settings.loudness != nil), let node = fields.nodes["normalize"] {
            fields.error(node, "give gain or normalize, not both", suggestion: "normalize computes its own gain; remove 'gain'")
        }
    }

    /// `preset: systemSound` is 16-bit linear PCM, whatever else says.
    private static func readPreset(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        guard settings.systemSound else { return }
        if settings.format != .linearPCM || settings.bitDepth.map({ $0 != 16 }) == true || settings.isFloat,
           let node = fields.nodes["preset"] {
            fields.error(node, "preset systemSound is 16-bit linear PCM; remove the conflicting format settings")
        }
        settings.format = .linearPCM
        settings.bitDepth = 16
    }
}

/// The `transcode:` mapping's values by key while it is read, and whether any was wrong.
final class TranscodeFields {
    let sink: DiagnosticSink
    var nodes: [String: YAMLNode] = [:]
    private(set) var ok = true

    init(sink: DiagnosticSink) { self.sink = sink }

    /// Reports a problem at `node`; the settings are then not used.
    func error(_ node: YAMLNode, _ message: String, suggestion: String? = nil) {
        sink.error(node, message, suggestion: suggestion)
        ok = false
    }

    /// Reports a problem at a place inside a node (a template's character); the settings are then not used.
    func error(at mark: SourceMark, _ message: String, suggestion: String? = nil) {
        sink.error(at: mark, message, suggestion: suggestion)
        ok = false
    }

    /// The scalar at `key`, or nil (reported when it is not a single value).
    func text(_ key: String) -> (String, YAMLNode)? {
        guard let node = nodes[key] else { return nil }
        guard let value = node.scalarText, !node.isNull else {
            error(node, "\(key) takes a single value, found \(node.kindDescription)")
            return nil
        }
        return (value, node)
    }

    /// A whole number in `range` at `key`, or nil.
    func integer(_ key: String, _ range: ClosedRange<Int>) -> Int? {
        guard let (value, node) = text(key) else { return nil }
        guard let n = Int(value), range.contains(n) else {
            error(node, "\(key) must be a whole number in \(range.lowerBound)…\(range.upperBound), not '\(value)'")
            return nil
        }
        return n
    }

    /// true/yes/1 or false/no/0 at `key`, or nil.
    func boolean(_ key: String) -> Bool? {
        guard let (value, node) = text(key) else { return nil }
        switch value.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            error(node, "\(key) must be true or false, not '\(value)'")
            return nil
        }
    }

    /// An `AVAudioQuality` by name or value.
    func quality(_ key: String) -> TranscodeSettings.Quality? {
        guard let (value, node) = text(key) else { return nil }
        guard let q = TranscodeSettings.Quality(text: value) else {
            error(node, "\(key) takes an AVAudioQuality, not '\(value)'",
                  suggestion: "AVAudioQuality.min, .low, .medium, .high or .max (0, 0x20, 0x40, 0x60, 0x7F)")
            return nil
        }
        return q
    }
}
