import Foundation
import MedleyMedia

/// Subtitle files a movie re-encode reads beside its source (`subtitles: {beside: true}`) and
/// writes beside its output (`subtitles: {extract: [srt]}`), named as players look for them:
/// `film.srt`, `film.en.srt`, `film.en.forced.srt`.
/// A subtitle file beside a movie: its path (as FFmpeg opens it), language and track flags.
struct SubtitleFile {
    struct Flags: OptionSet {
        let rawValue: Int32
        static let forced = Flags(rawValue: 1), hearingImpaired = Flags(rawValue: 2), isDefault = Flags(rawValue: 4)
    }
    var path: String
    var language: String
    var flags: Flags
}

enum SubtitleFiles {
    static let extensions: Set<String> = ["srt", "vtt", "ass", "ssa"]
    /// At most this many files are muxed in from one folder for one movie.
    static let most = 32

    /// The subtitle files beside `source` whose name is its stem, an optional language and flags,
    /// and a subtitle extension; regular files only (a link is not followed), in name order.
    static func beside(_ source: String) -> [SubtitleFile] {
        let folder = FileSystem.parent(of: source)
        let stem = (FileSystem.lastComponent(of: source) as NSString).deletingPathExtension
        guard case .success(let listing) = FolderListing.open(folder, followingLink: false) else { return [] }
        var found: [SubtitleFile] = []
        while case .success(let entry?) = listing.next() {
            guard entry.type == .regular || entry.type == .unknown,
                  let name = String(validating: entry.name, as: UTF8.self),
                  let named = describe(name, stem: stem) else { continue }
            if entry.type == .unknown, listing.status(of: name)?.kind != .file { continue }
            found.append(SubtitleFile(path: FileSystem.join(folder, name), language: named.language, flags: named.flags))
        }
        return Array(found.sorted { $0.path < $1.path }.prefix(most))
    }

    /// The biggest subtitle file muxed in (a feature film's SRT is about 100 KB).
    static let largest: Int64 = 16 << 20

    /// The subtitle files beside `path` (the item's listed path), each opened without following a
    /// link: FFmpeg reads them through `/proc/self/fd/N`, so a file swapped for a link after the
    /// listing is not followed. A file that cannot be opened, or is over `largest`, is a warning.
    /// The caller closes the descriptors.
    static func open(beside path: String) -> (files: [SubtitleFile], descriptors: [Int32], warnings: [String]) {
        var files: [SubtitleFile] = [], descriptors: [Int32] = [], warnings: [String] = []
        for file in beside(path) {
            let name = FileSystem.lastComponent(of: file.path)
            guard case .success(let descriptor) = FileSystem.openForReadingWithoutLink(file.path) else {
                warnings.append("subtitle file \(name) not muxed in: it cannot be opened (or is a link)")
                continue
            }
            guard case .success(let status) = FileSystem.status(ofDescriptor: descriptor), status.kind == .file,
                  status.size <= largest else {
                FileSystem.close(descriptor)
                warnings.append("subtitle file \(name) not muxed in: not a regular file of at most \(largest >> 20) MB")
                continue
            }
            descriptors.append(descriptor)
            files.append(SubtitleFile(path: "/proc/self/fd/\(descriptor)", language: file.language, flags: file.flags))
        }
        return (files, descriptors, warnings)
    }

    /// For `stem.srt` no language, for `stem.en.forced.srt` "eng" (as ISO 639-2, which MP4 needs)
    /// and the forced flag; nil when `name` is not one of the stem's subtitle files.
    static func describe(_ name: String, stem: String) -> (language: String, flags: SubtitleFile.Flags)? {
        guard name.hasPrefix(stem + "."), name.count > stem.count + 1 else { return nil }
        var parts = name.dropFirst(stem.count + 1).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let ext = parts.popLast(), extensions.contains(ext.lowercased()) else { return nil }
        var flags: SubtitleFile.Flags = []
        parts.removeAll { part in
            switch part.lowercased() {
            case "forced": flags.insert(.forced)
            case "sdh", "cc", "hi": flags.insert(.hearingImpaired)
            case "default": flags.insert(.isDefault)
            default: return false
            }
            return true
        }
        if parts.isEmpty { return ("", flags) }
        guard parts.count == 1, LanguageCode.isCode(parts[0]) else { return nil }
        return (LanguageCode.threeLetter(parts[0]), flags)
    }

    /// The name of a kept subtitle's file beside the output: `stem.eng.srt`, `stem.fre.forced.srt`,
    /// `stem.2.srt` for a track without a language; `taken` avoids a name used twice.
    static func name(stem: String, stream: MovieStream, position: Int, format: SubtitleFileFormat, taken: inout Set<String>) -> String {
        var parts = [stem]
        parts.append(stream.language.isEmpty || stream.language == "und" ? String(position + 1) : stream.language)
        if stream.isForced { parts.append("forced") }
        if stream.isHearingImpaired { parts.append("sdh") }
        var name = (parts + [format.rawValue]).joined(separator: ".")
        if taken.contains(name) { name = (parts + [String(position + 1), format.rawValue]).joined(separator: ".") }
        taken.insert(name)
        return name
    }
}
