import Foundation
import MedleyMedia

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
        if let loader = Vips.loader(forFileAt: source), !loader.hasPrefix("csv"), !loader.hasPrefix("matrix") {
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

    static let mediaExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "jxl", "bmp",
        "wav", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "m4a", "m4b", "aac",
        "mp4", "m4v", "mov", "3gp", "3g2", "mkv", "mka", "webm", "avi", "ogv",
    ]

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
