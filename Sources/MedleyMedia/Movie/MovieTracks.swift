import CFFmpegShim
import Foundation

/// One stream of a movie file, as `Movie.streams` lists it (ffprobe's `-show_streams` in brief).
public struct MovieStream: Sendable, Equatable {
    public enum Kind: Int, Sendable { case video = 0, audio, subtitle, attachment, data, other }

    /// The stream's index in the file.
    public var index: Int
    public var kind: Kind
    /// As ffprobe's `codec_name`: "aac", "subrip", "hdmv_pgs_subtitle", "ttf", …
    public var codec: String
    /// The language tag as the file has it ("eng", "fre"); "" without one.
    public var language: String
    /// The title tag (an attachment's file name); "" without one.
    public var title: String
    public var isDefault: Bool
    public var isForced: Bool
    public var isHearingImpaired: Bool
    /// Cover art stored as a video stream.
    public var isAttachedPicture: Bool
    /// A text subtitle (SRT, ASS, WebVTT, mov_text), which can be converted between containers.
    public var isText: Bool
    public var channels: Int
    /// Bits per second the container states for the stream; 0 when it does not.
    public var bitRate: Int = 0
    /// An attachment's size in bytes.
    public var attachedBytes: Int = 0
    /// Its place among the file's streams of its kind, from 0 (ffmpeg's `0:s:N`).
    public var ordinal = 0

    /// "audio stream 2 (ac3, fra)", as warnings name it.
    public var described: String {
        let kindName: String
        switch kind {
        case .video: kindName = isAttachedPicture ? "cover picture" : "video"
        case .audio: kindName = "audio"
        case .subtitle: kindName = "subtitle"
        case .attachment: kindName = "attachment"
        case .data: kindName = "data"
        case .other: kindName = "stream"
        }
        let detail = [codec, language].filter { !$0.isEmpty }.joined(separator: ", ")
        return "\(kindName) stream \(index) (\(detail))"
    }
}

/// Which of a kind of track a re-encode keeps (`transcode: {audioTracks: …, subtitles: …}`), as
/// HandBrake's track lists choose them.
public enum TrackSelection: Sendable, Equatable {
    /// Every track of the kind, in the file's order (the default: nothing is dropped).
    case all
    /// The track marked default, else the first.
    case first
    /// None.
    case none
    /// The tracks in these languages (ISO 639-2 or 639-1 codes, `und` for untagged), in the list's
    /// order and the file's order within a language.
    case languages([String])
}

/// Which subtitle track is drawn onto the picture (`subtitles: {burn: …}`).
public enum SubtitleChoice: Sendable, Equatable {
    /// The track marked default, else the first.
    case first
    /// The first track marked forced (the foreign-language lines of a film).
    case forced
    /// The first track in this language.
    case language(String)
}

/// The subtitle files a re-encode writes beside its output (`subtitles: {extract: [srt]}`).
public enum SubtitleFileFormat: String, Sendable, CaseIterable {
    case srt, vtt, ass
}

/// What a re-encode or remux carries beside the picture.
public struct MovieTracks: Sendable, Equatable {
    public var audio: TrackSelection = .all
    public var subtitles: TrackSelection = .all
    public var chapters = true
    public var attachments = true
    /// One text subtitle drawn onto the picture through libass (and then not kept as a track).
    public var burn: SubtitleChoice?
    /// Each kept text subtitle also written beside the output in these formats.
    public var extract: [SubtitleFileFormat] = []
    /// SRT, WebVTT and ASS files beside the movie (`clip.srt`, `clip.en.srt`) muxed in as tracks.
    public var beside = false

    public init(audio: TrackSelection = .all, subtitles: TrackSelection = .all) {
        self.audio = audio
        self.subtitles = subtitles
    }

    /// The streams kept of `streams` (source indexes by kind) and a warning for each stream or
    /// language asked for that is not there, and each stream that no selection can keep (data
    /// tracks, a second picture, cover art).
    public func choose(from streams: [MovieStream], video: Int?)
        -> (audio: [Int], subtitles: [Int], attachments: [Int], burn: MovieStream?, warnings: [String]) {
        var warnings: [String] = []
        let sounds = streams.filter { $0.kind == .audio }
        var audio = Self.pick(audio, from: sounds, kind: "audio", warnings: &warnings)
        if audio.isEmpty, !sounds.isEmpty, case .languages(let asked) = self.audio {
            // A movie is not made silent by a language list it does not match: its main track stays
            // (one warning says both).
            let main = sounds.first(where: \.isDefault) ?? sounds[0]
            audio = [main.index]
            warnings.removeAll { $0.hasPrefix("no audio track in ") }
            let have = Set(sounds.map { $0.language.isEmpty ? "und" : $0.language }).sorted()
            warnings.append("no audio track in \(asked.joined(separator: ", ")) (the movie has \(have.joined(separator: ", "))); kept \(main.described)")
        }
        var subtitles = Self.pick(self.subtitles, from: streams.filter { $0.kind == .subtitle }, kind: "subtitle", warnings: &warnings)
        let burned = burn.flatMap { Self.pickBurn($0, from: streams.filter { $0.kind == .subtitle }, warnings: &warnings) }
        // A track drawn onto the picture is not also kept as a track (HandBrake's burn-in).
        if let burned { subtitles.removeAll { $0 == burned.index } }
        let attachments = self.attachments ? streams.filter { $0.kind == .attachment }.map(\.index) : []
        for stream in streams where stream.index != video {
            switch stream.kind {
            case .video: warnings.append("\(stream.described) not kept: a re-encode keeps one picture stream")
            case .data, .other: warnings.append("\(stream.described) not kept: Medley does not carry data streams")
            default: break
            }
        }
        return (audio, subtitles, attachments, burned, warnings)
    }

    static func pickBurn(_ choice: SubtitleChoice, from streams: [MovieStream], warnings: inout [String]) -> MovieStream? {
        let found: MovieStream?
        switch choice {
        case .first: found = streams.first(where: \.isDefault) ?? streams.first
        case .forced: found = streams.first(where: \.isForced)
        case .language(let code): found = streams.first { LanguageCode.canonical($0.language.isEmpty ? "und" : $0.language) == LanguageCode.canonical(code) }
        }
        guard let found else {
            let asked: String
            switch choice {
            case .first: asked = "any"
            case .forced: asked = "a forced"
            case .language(let code): asked = "a \(code)"
            }
            warnings.append("no subtitle burned in: the movie has no \(asked) subtitle track")
            return nil
        }
        guard found.isText else {
            warnings.append("\(found.described) not burned in: only text subtitles (SRT, ASS, WebVTT, mov_text) are drawn through libass")
            return nil
        }
        return found
    }

    static func pick(_ selection: TrackSelection, from streams: [MovieStream], kind: String, warnings: inout [String]) -> [Int] {
        switch selection {
        case .all: return streams.map(\.index)
        case .none: return []
        case .first: return (streams.first(where: \.isDefault) ?? streams.first).map { [$0.index] } ?? []
        case .languages(let asked):
            var chosen: [Int] = []
            for language in asked {
                let wanted = LanguageCode.canonical(language)
                let matching = streams.filter { LanguageCode.canonical($0.language.isEmpty ? "und" : $0.language) == wanted }
                if matching.isEmpty {
                    let have = Set(streams.map { $0.language.isEmpty ? "und" : $0.language }).sorted()
                    warnings.append("no \(kind) track in \(language) (the movie has \(have.isEmpty ? "none" : have.joined(separator: ", ")))")
                }
                for stream in matching where !chosen.contains(stream.index) { chosen.append(stream.index) }
            }
            return chosen
        }
    }
}

/// Language codes as files tag them: ISO 639-2/B (`fre`), 639-2/T (`fra`) and 639-1 (`fr`) name
/// one language; matching goes through one spelling.
public enum LanguageCode {
    /// 639-1 and 639-2/B codes → 639-2/T, for the languages whose codes differ.
    static let synonyms: [String: String] = [
        "en": "eng", "fr": "fra", "fre": "fra", "de": "deu", "ger": "deu", "es": "spa", "it": "ita", "pt": "por",
        "nl": "nld", "dut": "nld", "ja": "jpn", "zh": "zho", "chi": "zho", "ko": "kor", "ru": "rus", "pl": "pol",
        "sv": "swe", "da": "dan", "no": "nor", "nb": "nob", "nn": "nno", "fi": "fin", "cs": "ces", "cze": "ces",
        "sk": "slk", "slo": "slk", "hu": "hun", "ro": "ron", "rum": "ron", "el": "ell", "gre": "ell", "tr": "tur",
        "ar": "ara", "he": "heb", "hi": "hin", "th": "tha", "vi": "vie", "id": "ind", "ms": "msa", "may": "msa",
        "uk": "ukr", "bg": "bul", "hr": "hrv", "sr": "srp", "sl": "slv", "et": "est", "lv": "lav", "lt": "lit",
        "is": "isl", "ice": "isl", "fa": "fas", "per": "fas", "ca": "cat", "eu": "eus", "baq": "eus", "gl": "glg",
        "cy": "cym", "wel": "cym", "ga": "gle", "sq": "sqi", "alb": "sqi", "hy": "hye", "arm": "hye", "ka": "kat",
        "geo": "kat", "mk": "mkd", "mac": "mkd", "bo": "bod", "tib": "bod", "my": "mya", "bur": "mya",
    ]

    public static func canonical(_ code: String) -> String {
        let lower = code.trimmingCharacters(in: .whitespaces).lowercased()
        return synonyms[lower] ?? lower
    }

    /// A two-letter code as its three-letter ISO 639-2 code (`de` → `deu`); others as they are.
    public static func threeLetter(_ code: String) -> String {
        let lower = code.lowercased()
        return lower.count == 2 ? synonyms[lower] ?? lower : lower
    }

    /// Whether `code` looks like a language code (two or three letters), for validation.
    public static func isCode(_ code: String) -> Bool {
        (2...3).contains(code.count) && code.allSatisfy { $0.isASCII && $0.isLetter }
    }
}

extension Movie {
    /// Every stream of `path`, in file order, and the number of chapters.
    public static func streams(path: String) throws -> (streams: [MovieStream], chapters: Int) {
        final class Found { var streams: [MovieStream] = [] }
        let found = Found()
        var chapters: Int32 = 0
        _ = try withExtendedLifetime(found) {
            try checked("list the streams", path: path) { error, size -> Bool? in
                medley_movie_streams(path, { context, info in
                    guard let context, let info else { return }
                    var raw = info.pointee
                    let found = Unmanaged<Found>.fromOpaque(context).takeUnretainedValue()
                    found.streams.append(MovieStream(
                        index: Int(raw.index), kind: MovieStream.Kind(rawValue: Int(raw.kind)) ?? .other,
                        codec: cText(&raw.codec), language: cText(&raw.language), title: cText(&raw.title),
                        isDefault: raw.is_default != 0, isForced: raw.is_forced != 0,
                        isHearingImpaired: raw.is_hearing_impaired != 0, isAttachedPicture: raw.is_attached_pic != 0,
                        isText: raw.is_text != 0, channels: Int(raw.channels), bitRate: Int(raw.bit_rate),
                        attachedBytes: Int(raw.attached_bytes)))
                }, Unmanaged.passUnretained(found).toOpaque(), &chapters, error, size) == 0 ? true : nil
            }
        }
        var counts: [MovieStream.Kind: Int] = [:]
        for i in found.streams.indices {
            found.streams[i].ordinal = counts[found.streams[i].kind, default: 0]
            counts[found.streams[i].kind, default: 0] += 1
        }
        return (found.streams, Int(chapters))
    }

    /// The fields of each kept stream the output does not hold as the source had them, as warnings:
    /// `kept[i]` is the source stream behind output stream `i`.
    static func streamTagsNotKept(source: [MovieStream], written: [MovieStream], kept: [Int], container: String) -> [String] {
        var warnings: [String] = []
        for (position, index) in kept.enumerated() where position < written.count {
            guard let from = source.first(where: { $0.index == index }) else { continue }
            let to = written[position]
            var lost: [String] = []
            if !from.language.isEmpty, from.language != "und", LanguageCode.canonical(to.language) != LanguageCode.canonical(from.language) {
                lost.append("language \(from.language)")
            }
            if !from.title.isEmpty, to.title != from.title, from.kind != .attachment { lost.append("title \"\(from.title)\"") }
            if from.isForced, !to.isForced { lost.append("forced flag") }
            if from.isHearingImpaired, !to.isHearingImpaired { lost.append("hearing-impaired flag") }
            if !lost.isEmpty {
                warnings.append("\(from.described): .\(container) does not hold its \(lost.joined(separator: ", "))")
            }
        }
        return warnings
    }
}

/// A NUL-terminated C text field of a struct (a fixed-size char array) as a String.
func cText<T>(_ field: inout T) -> String {
    withUnsafeBytes(of: &field) { bytes in
        guard let base = bytes.bindMemory(to: CChar.self).baseAddress else { return "" }
        return String(cString: base)
    }
}

extension Movie {
    /// Writes the `nth` subtitle stream of `path` (counted among its subtitle streams from 0) as a
    /// text file at `output`: the text `ffmpeg -i path -map 0:s:N output.srt` writes. Returns the
    /// number of cues. A partial output is deleted when this throws.
    @discardableResult
    public static func extractSubtitle(path: String, nth: Int, to output: String, format: SubtitleFileFormat) throws -> Int {
        var cues: Int32 = 0
        do {
            _ = try checked("extract a subtitle", path: path) { error, size -> Bool? in
                cues = medley_movie_extract_subtitle(path, Int32(nth), output, format.rawValue, error, size)
                return cues >= 0 ? true : nil
            }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
        return Int(cues)
    }
}
