import MedleyMedia
import MedleyYAML

/// A movie's own `transcode:` settings (docs/movies.md): a video codec, CRF, speed, size limits,
/// frame rate, keyframe interval and sound, or `videoCodec: copy` (a remux). A `videoQuality` preset
/// is a name for such settings; the keys given beside it override it.
public struct MovieTranscode: Sendable, Equatable {
    /// `videoCodec: copy` (with `audio: copy`): the packets copied into the output's container.
    public var remux = false
    /// What the encoders are asked (the preset's, or typeHigh's: source size, the codec's default CRF).
    public var encoding: VideoEncoding
    /// The audio and subtitle tracks, chapters and attachments that come along (all, by default).
    public var tracks = MovieTracks()

    /// The keys that belong to a movie's re-encode.
    static let keys = ["videoQuality", "scalingMode", "videoCodec", "crf", "speed", "maxWidth", "maxHeight", "fps",
                       "keyframeEvery", "audio", "audioTracks", "subtitles", "chapters", "bitRate", "targetSize", "passes", "bitDepth", "deinterlace", "crop", "hdr", "tonemap"]

    /// What a container (an output extension) cannot hold of these settings, with what to do; nil when it can.
    public func problem(inContainer ext: String) -> String? {
        let ext = ext.lowercased()
        if remux {
            guard ["mp4", "m4v", "mov", "mkv", "webm"].contains(ext) else {
                return "a movie is written as .mp4, .m4v, .mov, .mkv or .webm, not .\(ext)"
            }
            if case .encode(let codec, _, _, _)? = encoding.audio { return codec.problem(inContainer: ext) }
            return nil
        }
        if let problem = encoding.codec.problem(inContainer: ext) { return problem }
        if case .encode(let codec, _, _, _)? = encoding.audio { return codec.problem(inContainer: ext) }
        if encoding.audio == nil, ext == "webm" {
            return ".webm cannot hold AAC sound; add 'audio: {AVFormatIDKey: kAudioFormatOpus}' (or name the output .mkv)"
        }
        return nil
    }
}

extension TranscodeSettings {
    /// `AVFormatIDKey: copy` keeps the stream as it is: no key that would change it goes beside it.
    static func checkCopy(_ fields: TranscodeFields, _ settings: TranscodeSettings) {
        guard settings.copyAudio else { return }
        for key in ["AVSampleRateKey", "AVNumberOfChannelsKey", "AVEncoderAudioQualityKey", "AVSampleRateConverterAudioQualityKey",
                    "AVEncoderBitRateKey", "AVEncoderBitRatePerChannelKey", "AVLinearPCMBitDepthKey", "AVLinearPCMIsFloatKey",
                    "AVLinearPCMIsBigEndianKey", "preset", "gain", "normalize", "trim", "fade", "cut", "segment"] {
            guard let node = fields.nodes[key] else { continue }
            fields.error(node, "AVFormatIDKey: copy keeps the stream as it is; '\(key)' needs a re-encode",
                         suggestion: "remove '\(key)', or name a format in AVFormatIDKey")
        }
    }

    /// The movie keys beyond `videoQuality`/`scalingMode`; sets `settings.movie` when any movie key is given.
    static func readMovieEncoding(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        // A preset alone (with its scalingMode) stays the preset: MovieStep encodes it as before.
        guard MovieTranscode.keys.contains(where: { !["videoQuality", "scalingMode"].contains($0) && fields.nodes[$0] != nil })
        else { return }
        var encoding = (settings.videoQuality ?? .typeHigh).encoding
        var movie = MovieTranscode(encoding: encoding)
        if let (value, node) = fields.text("videoCodec") {
            if value == "copy" {
                movie.remux = true
                for key in ["videoQuality", "scalingMode", "crf", "speed", "maxWidth", "maxHeight", "fps", "keyframeEvery",
                            "bitRate", "targetSize", "passes", "bitDepth", "deinterlace", "crop", "hdr", "tonemap"] {
                    if let other = fields.nodes[key] {
                        fields.error(other, "videoCodec: copy keeps the pictures as they are; '\(key)' needs a re-encode",
                                     suggestion: "remove '\(key)', or name a codec: h264, hevc, av1 or vp9")
                    }
                }
            } else if let codec = VideoCodec(rawValue: value.lowercased()) ?? (value.lowercased() == "h265" ? .hevc : nil) {
                encoding.codec = codec
            } else {
                let names = VideoCodec.allCases.map(\.rawValue) + ["copy"]
                fields.error(node, "unknown videoCodec '\(value)'",
                             suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
            }
        }
        let codec = encoding.codec
        if settings.videoQuality == nil || codec != .h264 { encoding.crf = codec.defaultCRF }
        if let crf = fields.integer("crf", codec.crfRange) { encoding.crf = crf }
        if let (value, node) = fields.text("speed") {
            if VideoCodec.speedNames.contains(value) {
                encoding.x264Preset = value
            } else if let numbers = codec.speedNumbers, let n = Int(value), numbers.contains(n) {
                encoding.x264Preset = value
            } else {
                let numbers = codec.speedNumbers.map { " or \(codec.encoder)'s own \($0.lowerBound)…\($0.upperBound)" } ?? ""
                fields.error(node, "unknown speed '\(value)' for \(codec.rawValue)",
                             suggestion: DiagnosticSink.didYouMean(value, in: VideoCodec.speedNames)
                                 ?? "one of \(VideoCodec.speedNames.joined(separator: ", "))\(numbers)")
            }
        }
        let maxWidth = fields.integer("maxWidth", 2...16384), maxHeight = fields.integer("maxHeight", 2...16384)
        if maxWidth != nil || maxHeight != nil {
            encoding.boxWidth = maxWidth ?? 1 << 20
            encoding.boxHeight = maxHeight ?? 1 << 20
            encoding.upscale = false
        }
        if let (value, node) = fields.text("fps") {
            if let rate = MovieFrameRate(value) { encoding.frameRate = rate } else {
                fields.error(node, "fps is a frame rate from 1 to 240, like 30, 29.97 or 30000/1001, not '\(value)'")
            }
        }
        if let (value, node) = fields.text("keyframeEvery") {
            if let every = KeyframeInterval(value) {
                switch every {
                case .seconds(let s): encoding.keyframeSeconds = s; encoding.keyframeInterval = nil
                case .frames(let n): encoding.keyframeInterval = n; encoding.keyframeSeconds = nil
                }
            } else {
                fields.error(node, "keyframeEvery is seconds (2s, 0.5s; at most 60s) or frames (48f, 1…1000f), not '\(value)'",
                             suggestion: "2s is what streaming services ask for")
            }
        }
        readRateControl(fields, codec: codec, into: &encoding)
        readPictures(fields, codec: codec, into: &encoding)
        if let node = fields.nodes["audio"] { encoding.audio = readMovieAudio(node, fields: fields) }
        if let node = fields.nodes["audioTracks"] { movie.tracks.audio = readTrackSelection(node, key: "audioTracks", fields: fields) }
        if let node = fields.nodes["subtitles"] { readSubtitles(node, fields: fields, into: &movie.tracks) }
        if movie.remux, movie.tracks.burn != nil, let node = fields.nodes["subtitles"] {
            fields.error(node, "videoCodec: copy keeps the pictures as they are; burning subtitles in needs a re-encode",
                         suggestion: "name a codec: h264, hevc, av1 or vp9")
        }
        if let chapters = fields.boolean("chapters") { movie.tracks.chapters = chapters }
        if movie.remux, fields.nodes["audio"] == nil { encoding.audio = .copy }
        movie.encoding = encoding
        settings.movie = movie
    }

    /// `bitRate` (an average in bits/s: 2500k, 2.5M), `targetSize` (700MB: the rate from the
    /// duration), `passes: 2` and `bitDepth: 10`, checked against each other and the codec.
    private static func readRateControl(_ fields: TranscodeFields, codec: VideoCodec, into encoding: inout VideoEncoding) {
        if let (value, node) = fields.text("bitRate") {
            if let rate = Quantity.parse(value, units: ["k": 1000, "m": 1_000_000], allowing: ["b/s", "bps"]), rate >= 50_000, rate <= 500_000_000 {
                encoding.bitRate = Int(rate)
            } else {
                fields.error(node, "bitRate is the video's average bits per second from 50k to 500M (2500k, 2.5M), not '\(value)'")
            }
        }
        if let (value, node) = fields.text("targetSize") {
            let units: [String: Double] = ["kb": 1000, "mb": 1_000_000, "gb": 1_000_000_000, "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "k": 1000, "m": 1_000_000, "g": 1_000_000_000]
            if let bytes = Quantity.parse(value, units: units, allowing: []), bytes >= 100_000, bytes <= 1e13 {
                encoding.targetSize = Int(bytes)
                encoding.passes = 2
            } else {
                fields.error(node, "targetSize is the whole file's size with its unit (700MB, 4.7GB, 1GiB), not '\(value)'")
            }
            if let other = fields.nodes["bitRate"] {
                fields.error(other, "bitRate and targetSize both set the video's rate", suggestion: "keep one of them")
            }
        }
        if encoding.bitRate != nil || encoding.targetSize != nil, let crf = fields.nodes["crf"] {
            fields.error(crf, "crf is a constant quality; bitRate and targetSize spend a rate instead", suggestion: "remove 'crf'")
        }
        if let passes = fields.integer("passes", 1...2) {
            encoding.passes = passes
            if passes == 2, encoding.bitRate == nil, encoding.targetSize == nil, let node = fields.nodes["passes"] {
                fields.error(node, "two passes spend a bit rate; a constant quality (crf) needs one",
                             suggestion: "add 'bitRate: 2500k' or 'targetSize: 700MB'")
            }
        }
        if encoding.passes == 2, !codec.hasTwoPasses, let node = fields.nodes["passes"] ?? fields.nodes["targetSize"] {
            fields.error(node, "FFmpeg 5.1's SVT-AV1 encoder has no two-pass mode",
                         suggestion: "use videoCodec: hevc or vp9, or 'passes: 1' with a bitRate")
        }
        if let depth = fields.integer("bitDepth", 8...10) {
            guard depth == 8 || depth == 10, let node = fields.nodes["bitDepth"] else {
                if let node = fields.nodes["bitDepth"] { fields.error(node, "bitDepth is 8 or 10, not \(depth)") }
                return
            }
            encoding.tenBit = depth == 10
            if depth == 10, !codec.hasTenBit {
                fields.error(node, "10-bit H.264 (High 10) plays almost nowhere; Medley writes 10 bits as HEVC, AV1 or VP9",
                             suggestion: "videoCodec: hevc")
            }
        }
    }

    /// `deinterlace: auto | on | off`, `crop: none | auto | {top, bottom, left, right}`,
    /// `hdr: auto | keep | tonemap` and `tonemap: hable | mobius | reinhard | clip`.
    private static func readPictures(_ fields: TranscodeFields, codec: VideoCodec, into encoding: inout VideoEncoding) {
        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
            guard let (value, node) = fields.text(key) else { return nil }
            if let chosen = T(rawValue: value.lowercased()) { return chosen }
            let names = T.allCases.map(\.rawValue)
            fields.error(node, "unknown \(key) '\(value)'",
                         suggestion: DiagnosticSink.didYouMean(value, in: names) ?? "one of \(names.joined(separator: ", "))")
            return nil
        }
        if let mode = choice("deinterlace", Deinterlacing.self) { encoding.pictures.deinterlace = mode }
        if let curve = choice("tonemap", ToneMapCurve.self) { encoding.pictures.curve = curve }
        if let hdr = choice("hdr", HDRHandling.self) {
            encoding.pictures.hdr = hdr
            if hdr == .keep {
                if fields.nodes["bitDepth"] == nil { encoding.tenBit = true }
                if let node = fields.nodes["hdr"], !encoding.tenBit || !codec.hasTenBit {
                    fields.error(node, "hdr: keep needs 10-bit HEVC, AV1 or VP9",
                                 suggestion: codec.hasTenBit ? "remove 'bitDepth: 8'" : "videoCodec: hevc")
                }
            }
        }
        guard let node = fields.nodes["crop"] else { return }
        if let text = node.scalarText {
            switch text.lowercased() {
            case "auto": encoding.pictures.crop = .auto
            case "none": encoding.pictures.crop = .none
            default: fields.error(node, "crop takes auto, none or edges such as {top: 140, bottom: 140}, not '\(text)'")
            }
            return
        }
        guard case .mapping(let pairs, _) = node else {
            fields.error(node, "crop takes auto, none or a mapping of edges, found \(node.kindDescription)")
            return
        }
        var edges: [String: Int] = [:]
        let names = ["top", "bottom", "left", "right"]
        for (key, value) in pairs {
            guard let name = key.scalarText, names.contains(name) else {
                fields.error(key, "unknown crop edge '\(key.scalarText ?? "")'", suggestion: "top, bottom, left or right")
                continue
            }
            guard let text = value.scalarText, let pixels = Int(text), (0...8192).contains(pixels) else {
                fields.error(value, "crop's \(name) is pixels from 0 to 8192, not '\(value.scalarText ?? value.kindDescription)'")
                continue
            }
            edges[name] = pixels
        }
        encoding.pictures.crop = .edges(top: edges["top"] ?? 0, bottom: edges["bottom"] ?? 0, left: edges["left"] ?? 0,
                                        right: edges["right"] ?? 0)
    }

    /// `subtitles:` as a track selection (`all`, `[eng]`), or a mapping: `keep` (that selection),
    /// `burn` (`first`, `forced` or a language), `extract` (srt, vtt, ass: one or a list) and
    /// `beside` (files next to the movie muxed in).
    private static func readSubtitles(_ node: YAMLNode, fields: TranscodeFields, into tracks: inout MovieTracks) {
        guard case .mapping(let pairs, _) = node else {
            tracks.subtitles = readTrackSelection(node, key: "subtitles", fields: fields)
            return
        }
        let known = ["keep", "burn", "extract", "beside"]
        for (key, value) in pairs {
            guard let name = key.scalarText, known.contains(name) else {
                fields.error(key, "unknown key '\(key.scalarText ?? "")' in subtitles",
                             suggestion: DiagnosticSink.didYouMean(key.scalarText ?? "", in: known) ?? "known keys: \(known.joined(separator: ", "))")
                continue
            }
            switch name {
            case "keep": tracks.subtitles = readTrackSelection(value, key: "subtitles.keep", fields: fields)
            case "burn":
                guard let text = value.scalarText else {
                    fields.error(value, "subtitles.burn takes first, forced or one language, found \(value.kindDescription)")
                    continue
                }
                switch text.lowercased() {
                case "first": tracks.burn = .first
                case "forced": tracks.burn = .forced
                default:
                    if LanguageCode.isCode(text) { tracks.burn = .language(text) } else {
                        fields.error(value, "subtitles.burn takes first, forced or a language code (eng), not '\(text)'")
                    }
                }
            case "extract":
                let items: [YAMLNode]
                if case .sequence(let list, _) = value { items = list } else { items = [value] }
                for item in items {
                    if let text = item.scalarText?.lowercased(), let format = SubtitleFileFormat(rawValue: text == "webvtt" ? "vtt" : text) {
                        if !tracks.extract.contains(format) { tracks.extract.append(format) }
                    } else {
                        fields.error(item, "subtitles.extract writes srt, vtt or ass files, not \(item.scalarText.map { "'\($0)'" } ?? item.kindDescription)")
                    }
                }
            default:
                let inner = TranscodeFields(sink: fields.sink)
                inner.nodes["beside"] = value
                if let beside = inner.boolean("beside") { tracks.beside = beside }
            }
        }
    }

    /// `all`, `first`, `none`, a language code, or a list of language codes (HandBrake's language list).
    private static func readTrackSelection(_ node: YAMLNode, key: String, fields: TranscodeFields) -> TrackSelection {
        let example = "\(key): all, first, none, or languages such as [eng, fra]"
        func language(_ item: YAMLNode) -> String? {
            guard let code = item.scalarText, LanguageCode.isCode(code) else {
                fields.error(item, "\(key) names languages by their ISO 639 code (eng, fra, de), not \(item.scalarText.map { "'\($0)'" } ?? item.kindDescription)",
                             suggestion: example)
                return nil
            }
            return code
        }
        switch node {
        case .sequence(let items, _):
            let codes = items.compactMap(language)
            if items.isEmpty { fields.error(node, "\(key) lists no language", suggestion: "\(key): none keeps no track") }
            return .languages(codes)
        default:
            guard let text = node.scalarText else {
                fields.error(node, "\(key) takes all, first, none or a list of languages, found \(node.kindDescription)", suggestion: example)
                return .all
            }
            switch text.lowercased() {
            case "all": return .all
            case "first": return .first
            case "none": return .none
            default: return language(node).map { .languages([$0]) } ?? .all
            }
        }
    }

    /// `audio: copy`, or AVAudioRecorder keys for the sound: AVFormatIDKey (AAC, Opus, MP3, FLAC,
    /// ALAC), AVEncoderBitRateKey, AVSampleRateKey, AVNumberOfChannelsKey.
    private static func readMovieAudio(_ node: YAMLNode, fields: TranscodeFields) -> MovieAudio? {
        if let text = node.scalarText {
            if text == "copy" { return .copy }
            fields.error(node, "audio takes 'copy' or AVAudioRecorder settings, not '\(text)'",
                         suggestion: "audio: {AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 160000}")
            return nil
        }
        guard case .mapping(let pairs, _) = node else {
            fields.error(node, "audio takes 'copy' or a mapping of AVAudioRecorder settings, found \(node.kindDescription)")
            return nil
        }
        let known = ["AVFormatIDKey", "AVEncoderBitRateKey", "AVSampleRateKey", "AVNumberOfChannelsKey"]
        let inner = TranscodeFields(sink: fields.sink)
        for (key, value) in pairs {
            guard let name = key.scalarText else { continue }
            guard known.contains(name) else {
                fields.error(key, "unknown key '\(name)' in a movie's audio",
                             suggestion: DiagnosticSink.didYouMean(name, in: known) ?? "known keys: \(known.joined(separator: ", "))")
                continue
            }
            inner.nodes[name] = value
        }
        var codec = MovieAudioCodec.aac
        if let (value, at) = inner.text("AVFormatIDKey") {
            let table: [FormatID: MovieAudioCodec] = [.mpeg4AAC: .aac, .opus: .opus, .mpegLayer3: .mp3, .flac: .flac,
                                                      .appleLossless: .alac]
            if let format = FormatID(text: value), let chosen = table[format] { codec = chosen } else {
                fields.error(at, "a movie's sound is AAC, Opus, MP3, FLAC or ALAC, not '\(value)'",
                             suggestion: "kAudioFormatMPEG4AAC, kAudioFormatOpus, kAudioFormatMPEGLayer3, kAudioFormatFLAC or kAudioFormatAppleLossless")
            }
        }
        let bitRate = inner.integer("AVEncoderBitRateKey", 8000...1_536_000)
        var rate = inner.integer("AVSampleRateKey", 8000...192_000)
        if let chosen = rate, let at = inner.nodes["AVSampleRateKey"] {
            let allowed: [Int]? = codec == .opus ? [48000] : codec == .aac ? aacRates : codec == .mp3 ? mp3Rates : nil
            if let allowed, !allowed.contains(chosen) {
                fields.error(at, "\(codec.rawValue) cannot be encoded at \(chosen) Hz",
                             suggestion: "use \(allowed.map(String.init).joined(separator: ", "))")
                rate = nil
            }
        }
        let channels = inner.integer("AVNumberOfChannelsKey", 1...8) ?? 2
        guard inner.ok else { fields.error(node, "the movie's audio settings are not valid"); return nil }
        return .encode(codec: codec, bitRate: bitRate ?? (codec == .flac || codec == .alac ? nil : 128_000),
                       sampleRate: rate, channels: channels)
    }
}

/// `keyframeEvery: 2s` (seconds, turned into frames at the output's frame rate) or `48f` (frames).
enum KeyframeInterval: Equatable {
    case seconds(Double)
    case frames(Int)

    init?(_ text: String) {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in ["frames", "frame", "f"] where value.hasSuffix(suffix) {
            guard let n = Int(value.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), (1...1000).contains(n) else { return nil }
            self = .frames(n)
            return
        }
        let number = value.hasSuffix("s") ? String(value.dropLast()) : value
        guard let s = Double(number.trimmingCharacters(in: .whitespaces)), s.isFinite, s > 0, s <= 60 else { return nil }
        self = .seconds(s)
    }
}

extension SchemaReader {
    /// A movie's codecs against the container its export name's extension chooses, when the name
    /// ends in a literal one (`{stem}.webm`); a name whose extension is a template is checked per item.
    func checkMovieContainer(_ movie: MovieTranscode, exportNode: YAMLNode) {
        guard let nameNode = Self.field("name", of: exportNode), let name = nameNode.scalarText,
              let dot = name.lastIndex(of: ".") else { return }
        let ext = String(name[name.index(after: dot)...])
        guard !ext.isEmpty, !ext.contains("{"), !ext.contains("/") else { return }
        if let problem = movie.problem(inContainer: ext) {
            let split = problem.components(separatedBy: "; ")
            sink.error(nameNode, split[0], suggestion: split.count > 1 ? split.dropFirst().joined(separator: "; ") : nil)
        }
    }
}

/// A number with an optional unit suffix: `2500k`, `2.5M`, `700MB`, `1GiB` (case-insensitive).
enum Quantity {
    static func parse(_ text: String, units: [String: Double], allowing extra: [String]) -> Double? {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in extra where value.hasSuffix(suffix) { value = String(value.dropLast(suffix.count)) }
        var scale = 1.0
        // The longest unit that ends the text ("mib" before "b").
        for (unit, factor) in units.sorted(by: { $0.key.count > $1.key.count }) where value.hasSuffix(unit) {
            value = String(value.dropLast(unit.count))
            scale = factor
            break
        }
        if units.keys.contains(where: { $0.hasSuffix("b") }), scale == 1, value.hasSuffix("b") { value = String(value.dropLast()) }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite, number > 0 else { return nil }
        return number * scale
    }
}
