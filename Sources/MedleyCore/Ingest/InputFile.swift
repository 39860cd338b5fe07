import Foundation
import MedleyMedia

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

import MedleySystem

/// An ingested file opened once for its whole item, after checking that what was opened lies under the ingest root.
///
/// The listing and the reading of a file are apart in time, and in that time the file (or a folder on its path) can
/// be replaced by a symbolic link to anywhere. So an item never reads its input by path: it opens it here, and every
/// reader of the item — the content hash, the sniffer, libvips, libsndfile, FFmpeg, the tag readers — reads this one
/// open file, through `readPath` (`/proc/self/fd/N`, which reopens the open file itself, never a name) or the
/// descriptor. The bytes hashed for `persistentID` are then the bytes decoded.
///
/// How it is opened:
/// - A file the walk reached without a link: from the root folder, one component at a time with `O_NOFOLLOW`
///   (folders also `O_DIRECTORY`), so a link anywhere on the path fails the item.
/// - A file reached through a link that stayed inside the root (which ingest follows): by its path, links followed.
/// - Either way, the opened file must then be a regular file whose canonical path lies under the root as it was
///   resolved when the walk began, and that path must name the very file opened (same device and inode).
public final class InputFile {
    /// The file as listed, with the size and modification time of what was opened.
    public let file: IngestedFile
    /// The open descriptor (read-only, close-on-exec); closed by `close()` or when this object goes.
    public private(set) var descriptor: Int32
    /// The path decoders open: `/proc/self/fd/N` when the system has it, else the checked canonical path.
    public let readPath: String

    private init(file: IngestedFile, descriptor: Int32, readPath: String) {
        self.file = file
        self.descriptor = descriptor
        self.readPath = readPath
    }

    deinit { close() }

    /// Closes the descriptor (idempotent). Decoders must be done with `readPath` by then.
    public func close() {
        guard descriptor >= 0 else { return }
        FileSystem.close(descriptor)
        descriptor = -1
    }

    /// A message from a decoder with `readPath` put back as the path a person knows.
    public func describing(_ message: String) -> String {
        guard readPath != file.path else { return message }
        var result = ""
        var rest = Substring(message)
        while let range = rest.range(of: readPath) {
            result += rest[..<range.lowerBound]
            // "/proc/self/fd/1" is also the start of "/proc/self/fd/12": only whole numbers are ours.
            if let next = rest[range.upperBound...].first, next.isNumber {
                result += rest[range]
            } else {
                result += file.path
            }
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// Opens `file` for reading, or throws an `ItemFailure` saying why it may not or cannot be read.
    public static func open(_ file: IngestedFile) throws -> InputFile {
        let descriptor = file.throughLink ? try openFollowingLinks(file) : try openWithoutLinks(file)
        let opened: FileSystem.Status
        switch FileSystem.status(ofDescriptor: descriptor) {
        case .success(let status): opened = status
        case .failure(let error):
            FileSystem.close(descriptor)
            throw failure(error.code, file)
        }
        guard opened.kind == .file else {
            FileSystem.close(descriptor)
            throw ItemFailure(.input, "it is no longer a regular file (it was replaced after it was listed); not read")
        }
        // The open file must be named by a path under the root: a link swapped in anywhere cannot pass.
        guard let canonical = FileSystem.resolvedPath(file.path),
              FileSystem.isWithin(canonical, directory: file.canonicalRoot) else {
            FileSystem.close(descriptor)
            throw ItemFailure(.input, "it now resolves outside the ingest root \(file.canonicalRoot) (a symbolic link replaced it or a folder on its path after it was listed); not read")
        }
        guard case .success(let named) = FileSystem.status(of: canonical), named.identity == opened.identity else {
            FileSystem.close(descriptor)
            throw ItemFailure(.input, "it changed while it was being opened (replaced after it was listed); not read")
        }
        // O_NONBLOCK only kept a FIFO swapped in from blocking the open; reads of a regular file ignore it.
        FileSystem.clearNonBlocking(descriptor)
        return InputFile(file: file.with(size: opened.size, modified: opened.modified), descriptor: descriptor,
                         readPath: FileSystem.hasProcFileDescriptors ? "/proc/self/fd/\(descriptor)" : canonical)
    }

    /// From the root folder, one name at a time, never through a link.
    private static func openWithoutLinks(_ file: IngestedFile) throws -> Int32 {
        let names = file.relativePath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch FileSystem.openForReading(below: file.root, names) {
        case .success(let descriptor):
            return descriptor
        case .failure(.folderIsLink(let name)):
            throw ItemFailure(.input, "the folder \(name) on its path was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
        case .failure(.notBelowRoot):
            throw ItemFailure(.input, "its relative path \(file.relativePath) cannot be opened below the root")
        case .failure(.fileIsLink):
            throw ItemFailure(.input, "it was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
        case .failure(.system(let error)):
            throw failure(error.code, file)
        }
    }

    /// A file ingest reached through a link inside the root: the link is followed, the result checked by the caller.
    private static func openFollowingLinks(_ file: IngestedFile) throws -> Int32 {
        switch FileSystem.openForReading(file.path) {
        case .success(let descriptor): return descriptor
        case .failure(let error): throw failure(error.code, file)
        }
    }

    /// The system's reason, in the words a person needs (a vanished file, the descriptor limit).
    static func failure(_ code: Int32, _ file: IngestedFile) -> ItemFailure {
        let cause = MediaError.system("open", errno: code, path: file.path)
        switch code {
        case ENOENT, ENOTDIR:
            return ItemFailure(.input, "it vanished after it was listed", cause: cause)
        case EMFILE, ENFILE:
            return ItemFailure(.input, "cannot open it: \(FileSystem.errorText(code)) (\(ResourceLimits.descriptorLimitText))", cause: cause)
        default:
            return ItemFailure(.input, "cannot open it: \(FileSystem.errorText(code))", cause: cause)
        }
    }
}


/// The first step of every item's journey: what the file is (image, audio or movie, and its
/// format) from its bytes and streams, and its persistentID. `medley probe` and `medley merge`
/// identify files through the same code as a run.
enum Identify {
    /// Content type from the bytes; libvips' own sniffing for images the table does not know.
    /// Files that are not media are ignored, unless their name says they should be (a `.jpg`
    /// that is text is a broken photo, not a stray file).
    /// `reading`: the item's open file, which is what is read (the name still decides what the file claims to be).
    static func format(of file: IngestedFile, reading input: InputFile? = nil) throws -> SniffedFormat? {
        let ext = ItemProperties.split(fileName: (file.relativePath as NSString).lastPathComponent).ext.lowercased()
        let claimsMedia = mediaExtensions.contains(ext)
        let source = input?.readPath ?? file.path
        do {
            let sniffed = try input.map { try ContentSniffer.sniff(descriptor: $0.descriptor, path: file.path) }
                ?? ContentSniffer.sniff(fileAt: file.path)
            // A NEF, ARW or DNG has TIFF's bytes: its name and LibRaw decide (a plain TIFF stays one).
            if let raw = RawRecognition.byLibRaw(sniffed, ext: ext, path: source) { return raw }
            if let sniffed {
                if let refined = byStreams(sniffed, path: source) { return refined }
            } else if let header = try? ContentSniffer.readHeader(of: source), ContentSniffer.Header(header).has("ftyp", at: 4),
                      let streams = StreamProbe.streams(ofFileAt: source), streams.video || streams.audio {
                // An ISO media file whose brands the table does not know (vendors invent them):
                // libavformat's streams decide before libvips is asked.
                return SniffedFormat(kind: streams.video ? .movie : .audio, format: "mp4")
            }
        } catch IngestError.empty {
            if claimsMedia { throw ItemFailure(.input, "empty file (0 bytes)") }
            return nil
        } catch {
            throw ItemFailure(.input, "\(error)", cause: error)
        }
        // libvips takes any file with "<svg" in its first bytes for an SVG (a script that writes one); the sniffer
        // has already recognised the real ones (XML with an <svg> root).
        if let loader = Vips.loader(forFileAt: source), !loader.hasPrefix("csv"), !loader.hasPrefix("matrix"),
           !(loader.lowercased().contains("svg") && !claimsMedia) {
            return SniffedFormat(kind: .image, format: loader.replacingOccurrences(of: "load", with: ""))
        }
        if claimsMedia {
            throw ItemFailure(.input, "not a recognised image, audio or movie file (its content does not match the .\(ext) name)")
        }
        return nil
    }

    /// Containers that hold audio, video or both: the streams decide. An MP4, MOV, 3GP or
    /// Matroska file without a video stream (cover art aside) is audio; an Ogg file with one
    /// (Theora) is a movie. A file libavformat cannot read keeps what its bytes said, except a
    /// QuickTime file known only by its first atom, which needs libavformat's word.
    static func byStreams(_ sniffed: SniffedFormat, path: String) -> SniffedFormat? {
        let movieContainers: Set<String> = ["mp4", "mov", "3gp", "mkv", "webm"]
        guard movieContainers.contains(sniffed.format) || ["m4a", "m4b", "ogg", "ogv"].contains(sniffed.format) else {
            return sniffed
        }
        let header = try? ContentSniffer.readHeader(of: path)
        let ftypless = sniffed.format == "mov" && header.map { !ContentSniffer.Header($0).has("ftyp", at: 4) } == true
        guard let streams = StreamProbe.streams(ofFileAt: path) else { return ftypless ? nil : sniffed }
        if streams.video {
            return SniffedFormat(kind: .movie, format: sniffed.format == "ogg" ? "ogv" : sniffed.format)
        }
        if streams.audio {
            return SniffedFormat(kind: .audio, format: sniffed.format == "ogv" ? "ogg" : sniffed.format)
        }
        return ftypless ? nil : sniffed
    }

    static let mediaExtensions: Set<String> = Set<String>([
        "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "jxl", "bmp", "svg", "svgz",
        "wav", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "m4a", "m4b", "aac",
        "mp4", "m4v", "mov", "3gp", "3g2", "mkv", "mka", "webm", "avi", "ogv",
    ]).union(RawRecognition.extensions)

    /// The XXH3 hash of the file's bytes (docs/library.md, "Properties": stable across runs and machines), read from the open file
    /// the decoders read.
    static func persistentID(of input: InputFile) throws -> UInt64 {
        do {
            return try ContentHash.of(descriptor: input.descriptor)
        } catch let error as MediaError {
            throw ItemFailure(error, .input)
        }
    }
}
