import Foundation

/// Reads and writes the tags and cover art of every audio container Medley handles, in each
/// container's own fields (docs/metadata.md, "Containers and fields"). The parsers and writers are Swift over the file's bytes:
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
/// table in ExtraTags; several values of one field as `TagValue.texts`. Readers skip what is
/// damaged (an ID3 frame, a FLAC block, a chunk past the end) and say so in `MediaTags.warnings`.
public enum TagIO {
    /// Reads the tags and embedded cover art of any audio file Medley reads (M4A/MP4, MP3, FLAC, Ogg Vorbis, Opus, WAV, AIFF, CAF).
    public static func read(path: String) throws -> MediaTags {
        let file = try FileBytes(path: path)
        do {
            return try read(file, try sniff(file))
        } catch let error as TagIOError {
            throw TagIOError("cannot read the tags of \(path): \(error.reason)", errno: error.errno)
        }
    }

    /// Whether the CAF file at `path` has a data chunk of unknown size (−1: it runs to the end of the file), which
    /// libsndfile 1.2 calls malformed and FFmpeg reads.
    public static func cafDataRunsToEnd(path: String) -> Bool {
        guard let file = try? FileBytes(path: path) else { return false }
        return CAFTags.dataRunsToEnd(file)
    }

    /// `read(path:)` over a whole file's bytes in memory, the container found from its first bytes;
    /// the error's words do not name a file.
    public static func read(bytes: [UInt8]) throws -> MediaTags {
        let source = MemoryBytes(bytes)
        return try read(source, try sniff(source))
    }

    /// The tags in `bytes` read by the parser of the container named by `ext` (as `supported(container:)` names them),
    /// whatever the first bytes say: each parser on its own, for fuzzing.
    public static func read(bytes: [UInt8], container ext: String) throws -> MediaTags {
        guard let container = AudioContainer(extension: ext) else { throw TagIOError("cannot read tags from .\(ext) files") }
        return try read(MemoryBytes(bytes), container)
    }

    private static func read(_ file: ByteSource, _ container: AudioContainer) throws -> MediaTags {
        switch container {
        case .mp4: return try MP4Tags.read(file)
        case .mp3: return try MP3Tags.read(file)
        case .flac: return try FLACTags.read(file)
        case .ogg: return try OggTags.read(file)
        case .wav: return try ChunkTags.read(file, .wav)
        case .aiff: return try ChunkTags.read(file, .aiff)
        case .caf: return try CAFTags.read(file)
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
        AudioContainer(extension: ext)?.tagKeys ?? []
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

    /// `write(_:from:into:container:id3:)` into a container already decided (the audio stage's
    /// plan says which container its writer made), rather than named by an extension.
    @discardableResult public static func write(_ tags: MediaTags, from source: String, into destination: String,
                                                container: AudioContainer, id3 version: ID3Version) throws -> WriteReport {
        try write(tags, from: source, into: Optional(destination), container: container, id3: version)
    }

    /// The bytes of a whole file whose container is `ext` with `tags` (and artwork) written in place
    /// of the tags it had, as `write(_:toFileAt:container:id3:)` writes them, and its report.
    public static func write(_ tags: MediaTags, toBytes bytes: [UInt8], container ext: String,
                             id3 version: ID3Version = .v2_4) throws -> (bytes: [UInt8], report: WriteReport) {
        let output = MemorySink()
        let report = try write(tags, from: MemoryBytes(bytes), container: try container(ext), id3: version, into: output)
        return (output.bytes, report)
    }

    private static func container(_ ext: String) throws -> AudioContainer {
        guard let container = AudioContainer(extension: ext) else { throw TagIOError("cannot write tags into .\(ext) files") }
        return container
    }

    private static func write(_ tags: MediaTags, from path: String, into destination: String?, container ext: String,
                              id3 version: ID3Version) throws -> WriteReport {
        try write(tags, from: path, into: destination, container: try container(ext), id3: version)
    }

    private static func write(_ tags: MediaTags, from path: String, into destination: String?, container: AudioContainer,
                              id3 version: ID3Version) throws -> WriteReport {
        do {
            // Through a symbolic link to the file itself, so the rename replaces the file, not the link.
            // A copy into `destination` reads `path` as given: an item's checked `/proc/self/fd/N`
            // must stay the open file, not become a name that could be swapped since.
            let target = destination == nil ? URL(fileURLWithPath: path).resolvingSymlinksInPath().path : path
            let file = try FileBytes(path: target)
            var report = WriteReport(unsupported: [], converted: [])
            let fill = { (output: ReplacementFile) throws in
                report = try write(tags, from: file, container: container, id3: version, into: output)
            }
            if let destination {
                try ReplacementFile.fill(ReplacementFile(into: destination), fill)
            } else {
                try ReplacementFile.replace(target, fill)
            }
            return report
        } catch let error as TagIOError {
            throw TagIOError("cannot write the tags of \(path): \(error.reason)", errno: error.errno)
        } catch {
            throw TagIOError("cannot write the tags of \(path): \(error.localizedDescription)", errno: TagIOError.posixCode(of: error))
        }
    }

    /// `file` with `tags` written by `container`'s writer into `output`.
    private static func write(_ tags: MediaTags, from file: ByteSource, container: AudioContainer, id3 version: ID3Version,
                              into output: ByteSink) throws -> WriteReport {
        let keys = container.tagKeys
        var unsupported = Set(TagValues.present(tags).keys.filter { !keys.contains($0) && !($0 == "mediaKind" && tags.entries[$0] == .text("music")) })
        if tags.artwork != nil, !keys.contains("artwork") { unsupported.insert("artwork") }
        var converted: [String] = []
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
        return WriteReport(unsupported: unsupported.sorted(), converted: converted)
    }

    /// The container from the file's first bytes, not its name (docs/library.md, "Ingest").
    private static func sniff(_ file: ByteSource) throws -> AudioContainer {
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
        throw TagIOError("not an audio file whose tags Medley reads")
    }
}
