import Foundation

/// Reads and writes the tags and cover art of every audio container Medley handles, in each
/// container's own fields (SPEC §4). The parsers and writers are Swift over the file's bytes:
/// the audio is copied byte for byte, never decoded or remuxed.
///
/// What each container holds (see each format's type for the exact fields):
/// - m4a/m4b/mp4 (MP4Tags), mp3 (ID3v2.4, or v2.3 when asked: ID3v23), wav and aif/aiff
///   (ChunkTags: an ID3v2 chunk of that version plus the native text chunks): every key but `podcastTitle`. ID3 marks only podcasts
///   (`mediaKind` audioBook is reported); MP4 marks music, podcast and audioBook.
/// - flac, ogg, opus (VorbisComments): every key but `podcastTitle` and `mediaKind`.
/// - caf (CAFTags): title, artist, albumTitle, genre, composer, albumTrackNumber, releaseDate,
///   comments, beatsPerMinute; no artwork.
/// No container has a field for a podcast's title. `mediaKind` "music" needs no field (a file
/// that says nothing is music), so it is never reported.
///
/// Tags outside these keys travel in `MediaTags.extra` by their Vorbis field name, through the
/// table in ExtraTags; several values of one field in `MediaTags.lists`. Readers skip what is
/// damaged (an ID3 frame, a FLAC block, a chunk past the end) and say so in `MediaTags.warnings`.
public enum TagIO {
    private enum Container {
        case mp4, mp3, flac, ogg, wav, aiff, caf

        init?(extension ext: String) {
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

        var keys: Set<String> {
            switch self {
            case .mp4: return MP4Tags.keys
            case .mp3, .wav, .aiff: return ID3v2.keys
            case .flac, .ogg: return VorbisComments.keys
            case .caf: return CAFTags.keys
            }
        }
    }

    /// Reads the tags and embedded cover art of any audio file Medley reads (M4A/MP4, MP3, FLAC, Ogg Vorbis, Opus, WAV, AIFF, CAF).
    public static func read(path: String) throws -> MediaTags {
        let file = try FileBytes(path: path)
        do {
            switch try sniff(file) {
            case .mp4: return try MP4Tags.read(file)
            case .mp3: return try MP3Tags.read(file)
            case .flac: return try FLACTags.read(file)
            case .ogg: return try OggTags.read(file)
            case .wav: return try ChunkTags.read(file, .wav)
            case .aiff: return try ChunkTags.read(file, .aiff)
            case .caf: return try CAFTags.read(file)
            }
        } catch let error as MediaError {
            throw error.saying("cannot read the tags of \(path): \(error.reason)", path: path)
        }
    }

    /// What a write did besides writing: what the container cannot hold (as the other `write`s
    /// return it) and, for ID3v2.3, each v2.4 form written in another one (a sentence each:
    /// "TSOP is ID3v2.4's; written as XSOP, v2.3's sort-name frame"), to report per item.
    public struct WriteReport: Sendable, Equatable {
        public var unsupported: [String]
        public var converted: [String]
    }

    /// The MediaTags keys (and "artwork") a container, named by output file extension ("m4a", "mp3", "flac", "ogg", "opus", "wav", "aif"/"aiff", "caf"), can hold.
    public static func supported(container ext: String) -> Set<String> {
        Container(extension: ext)?.keys ?? []
    }

    /// Writes `tags` (and artwork) into the finished, closed file at `path` whose container is `ext`, replacing whatever tags it had; atomically (write a sibling temporary file in the same folder, then rename over `path`; on error remove the temporary and leave `path` untouched). Returns, sorted, what this container cannot hold so the caller can report it per item: MediaTags keys and extra field names (not written), and "key (N values, written joined with "; ")" where it holds one value.
    @discardableResult public static func write(_ tags: MediaTags, toFileAt path: String, container ext: String) throws -> [String] {
        try write(tags, from: path, into: nil, container: ext, id3: .v2_4).unsupported
    }

    /// `write(_:toFileAt:container:)` with the ID3 version of an .mp3's tag or a WAV's or AIFF's
    /// ID3 chunk (other containers ignore it).
    @discardableResult public static func write(_ tags: MediaTags, toFileAt path: String, container ext: String,
                                                id3 version: ID3Version) throws -> WriteReport {
        try write(tags, from: path, into: nil, container: ext, id3: version)
    }

    /// Writes the file at `source` with `tags` (and artwork) straight into `destination`, an
    /// existing file of the caller's — a temporary output about to be renamed into place — so no
    /// temporary file of its own is made; `source` is left as it was. Returns what `write(_:toFileAt:container:)` returns.
    @discardableResult public static func write(_ tags: MediaTags, from source: String, into destination: String,
                                                container ext: String) throws -> [String] {
        try write(tags, from: source, into: Optional(destination), container: ext, id3: .v2_4).unsupported
    }

    /// `write(_:from:into:container:)` with the ID3 version of an .mp3's tag or a WAV's or AIFF's
    /// ID3 chunk (other containers ignore it).
    @discardableResult public static func write(_ tags: MediaTags, from source: String, into destination: String,
                                                container ext: String, id3 version: ID3Version) throws -> WriteReport {
        try write(tags, from: source, into: Optional(destination), container: ext, id3: version)
    }

    private static func write(_ tags: MediaTags, from path: String, into destination: String?, container ext: String,
                              id3 version: ID3Version) throws -> WriteReport {
        guard let container = Container(extension: ext) else { throw MediaError(.medley, "write tags", "cannot write tags into .\(ext) files", cause: .unsupported) }
        let keys = container.keys
        var unsupported = Set(TagValues.present(tags).keys.filter { !keys.contains($0) && !($0 == "mediaKind" && tags[$0] == "music") })
        if tags.artwork != nil, !keys.contains("artwork") { unsupported.insert("artwork") }
        var converted: [String] = []
        do {
            // Through a symbolic link to the file itself, so the rename replaces the file, not the link.
            // A copy into `destination` reads `path` as given: an item's checked `/proc/self/fd/N`
            // must stay the open file, not become a name that could be swapped since.
            let target = destination == nil ? URL(fileURLWithPath: path).resolvingSymlinksInPath().path : path
            let file = try FileBytes(path: target)
            let fill = { (output: ReplacementFile) throws in
                let rejected: [String]
                switch container {
                case .mp4: rejected = try MP4Tags.write(tags, to: file, into: output)
                case .mp3: (rejected, converted) = try MP3Tags.write(tags, to: file, into: output, id3: version)
                case .flac: rejected = try FLACTags.write(tags, to: file, into: output)
                case .ogg: rejected = try OggTags.write(tags, to: file, into: output)
                case .wav: (rejected, converted) = try ChunkTags.write(tags, to: file, into: output, .wav, id3: version)
                case .aiff: (rejected, converted) = try ChunkTags.write(tags, to: file, into: output, .aiff, id3: version)
                case .caf: rejected = try CAFTags.write(tags, to: file, into: output)
                }
                unsupported.formUnion(rejected)
            }
            if let destination {
                try ReplacementFile.fill(ReplacementFile(into: destination), fill)
            } else {
                try ReplacementFile.replace(target, fill)
            }
        } catch let error as MediaError {
            throw error.saying("cannot write the tags of \(path): \(error.reason)", path: path)
        } catch {
            throw MediaError(.system, "write tags", "cannot write the tags of \(path): \(error.localizedDescription)",
                             cause: MediaError.systemErrno(in: error).map { .system(errno: $0) } ?? .unspecified, path: path)
        }
        return WriteReport(unsupported: unsupported.sorted(), converted: converted)
    }

    /// The container from the file's first bytes, not its name (SPEC §3).
    private static func sniff(_ file: FileBytes) throws -> Container {
        var start: UInt64 = 0
        while let length = ID3v2.tagLength(header: try file.readPrefix(at: start, count: 10)) { start += UInt64(length) }
        let head = try file.readPrefix(at: start, count: 12)
        func at(_ offset: Int, _ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if at(0, "fLaC") { return .flac }
        if start > 0 { return .mp3 }
        if at(0, "OggS") { return .ogg }
        if at(0, "RIFF"), at(8, "WAVE") { return .wav }
        if at(0, "FORM"), at(8, "AIFF") || at(8, "AIFC") { return .aiff }
        if at(0, "caff") { return .caf }
        if at(4, "ftyp") || at(4, "moov") || at(4, "mdat") || at(4, "free") || at(4, "wide") { return .mp4 }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 { return .mp3 }
        throw MediaError(.medley, "read tags", "not an audio file whose tags Medley reads", cause: .corruptData)
    }
}
