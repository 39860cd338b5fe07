import Foundation
import MedleyMedia

/// The movie steps of an item's journey: its header read into properties (before `where`), the
/// pixel limit, and — without a poster — its re-encode at the job's `videoQuality` (H.264 + AAC in MP4).
enum MovieStep {
    /// A movie item's decoder, frames and (for a re-encode) x264's lookahead, by its picture size.
    static func workingMemory(_ info: MovieInfo, transcode: Bool) -> Int {
        let pixels = Double(max(0, info.width)) * Double(max(0, info.height))
        let bytes = transcode ? pixels * 120 + Double(96 << 20) : pixels * 40 + Double(48 << 20)
        return bytes < Double(Int.max / 2) ? Int(bytes) : Int.max / 2
    }

    /// Reads the header (streams, duration, container tags) of a movie item.
    static func read(_ item: Item) throws -> OpenedItem {
        let info = try ItemFailure.converting { try Movie.probe(path: item.source) }
        let properties = MovieProperties(file: item.file, persistentID: item.persistentID, info: info, format: item.sniffed.format)
        return OpenedItem(content: .movie(info), mediaType: .movie, properties: properties.values)
    }

    /// The pixel limit holds before a frame is decoded, as for images: the coded size is in the header.
    static func checkPixels(_ info: MovieInfo, job: Job) throws {
        guard info.width > 0 || info.height > 0 else { return }
        try ImageStage.checkPixels(width: info.width, height: info.height,
                                   limit: job.maxPixels ?? ImageStage.defaultMaxPixels, of: "the video stream")
    }

    /// Re-encodes the movie at the job's `videoQuality` or own settings (`MovieTranscode`) into its
    /// output, in the container its extension names; `videoCodec: copy` remuxes.
    static func reencode(_ opened: OpenedItem, info: MovieInfo, _ item: Item, job: Job,
                         exporter: Exporter) throws -> StepOutcome {
        let movie: MovieTranscode
        if let own = job.transcode?.movie {
            movie = own
        } else if let preset = job.transcode?.videoQuality {
            movie = MovieTranscode(encoding: preset.encoding)
        } else {
            throw ItemFailure(.unsupported, "a movie needs 'poster:' (its frame as an image) or 'transcode: {videoQuality: …}' in this job")
        }
        var result: MovieTranscodeResult?
        // Subtitle files beside the movie, opened now and closed when the step ends.
        let beside = movie.tracks.beside ? SubtitleFiles.open(beside: item.file.path) : (files: [], descriptors: [], warnings: [])
        defer { beside.descriptors.forEach { FileSystem.close($0) } }
        let exported = try exporter.write(item.file, ext: defaultExtension(movie), memory: workingMemory(info, transcode: !movie.remux),
                                          property: { opened[$0] }, check: { name in
            if let problem = movie.problem(inContainer: name.ext) { throw ItemFailure(.unsupported, problem) }
        }) { temporary, name in
            result = try ItemFailure.converting(context: movie.remux ? "cannot remux" : "cannot re-encode") {
                try Movie.transcode(path: item.source, to: temporary, encoding: movie.encoding,
                                    mode: job.transcode?.scalingMode ?? .aspectFit, container: name.ext.lowercased(),
                                    tracks: movie.tracks, copyVideo: movie.remux,
                                    subtitleFiles: beside.files.map { ($0.path, $0.language, $0.flags.rawValue) })
            }
        }
        guard case .written(var written) = exported else { return exported }
        if let result {
            written.duration = movie.remux ? info.duration : result.duration
            if result.damagedFrames > 0 {
                written.warnings.append("\(result.damagedFrames) damaged frame(s) in the source, re-encoded as the decoder concealed them")
            }
            for tag in result.tagsNotKept { written.warnings.append("container tag \(tag); not kept") }
            written.warnings += beside.warnings + result.tracksNotKept
            written.movie = MovieRecord(result.pictures, tracks: result.tracks, chapters: result.chapters)
            if !movie.tracks.extract.isEmpty {
                written.warnings += try extractSubtitles(result.keptSubtitles, formats: movie.tracks.extract, item, written: written,
                                                         exporter: exporter)
            }
            written.warnings += result.timing.warnings
            if job.transcode?.cut != nil {
                written.warnings.append("cut applies to audio items; this movie was re-encoded whole")
            }
            if job.transcode?.trim != nil || job.transcode?.fade != nil {
                written.warnings.append("trim and fade apply to audio items; this movie's sound was re-encoded without them")
            }
        }
        return .written(written)
    }

    /// Each kept text subtitle written beside the output in each format (`film.eng.srt`), as
    /// `ffmpeg -map 0:s:N film.eng.srt` writes it from the source; a picture subtitle is a warning.
    static func extractSubtitles(_ kept: [MovieStream], formats: [SubtitleFileFormat], _ item: Item, written: WrittenOutput,
                                 exporter: Exporter) throws -> [String] {
        var warnings: [String] = [], taken = Set<String>()
        let relative = String(written.output.dropFirst(exporter.export.to.count + 1))
        let folder = (relative as NSString).deletingLastPathComponent
        let stem = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension
        for (position, stream) in kept.enumerated() {
            guard stream.isText else {
                warnings.append("\(stream.described) not written as a file: it is a picture subtitle")
                continue
            }
            for format in formats {
                let file = SubtitleFiles.name(stem: stem, stream: stream, position: position, format: format, taken: &taken)
                let name = try OutputName(folder.isEmpty ? file : folder + "/" + file, root: exporter.export.to)
                guard exporter.claims.claimNow(name.path, for: item.file.path) else {
                    throw ItemFailure(.output, "its subtitle file \(name.path) is also another item's output")
                }
                _ = try exporter.output.write(to: name, fileExtension: format.rawValue) { temporary in
                    try ItemFailure.converting(.output, context: "cannot write the subtitle file \(file)") {
                        _ = try Movie.extractSubtitle(path: item.source, nth: stream.ordinal, to: temporary, format: format)
                    }
                }
            }
        }
        return warnings
    }

    /// `{ext}` when the export name leaves it to the settings: WebM for VP9 with Opus, else MP4.
    static func defaultExtension(_ movie: MovieTranscode) -> String {
        if !movie.remux, movie.encoding.codec == .vp9, case .encode(.opus, _, _, _)? = movie.encoding.audio { return "webm" }
        return "mp4"
    }
}
