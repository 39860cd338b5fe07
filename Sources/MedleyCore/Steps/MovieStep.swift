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

    /// Re-encodes the movie at the job's `videoQuality` into its output.
    static func reencode(_ opened: OpenedItem, info: MovieInfo, _ item: Item, job: Job,
                         exporter: Exporter) throws -> StepOutcome {
        guard let preset = job.transcode?.videoQuality else {
            throw ItemFailure(.unsupported, "a movie needs 'poster:' (its frame as an image) or 'transcode: {videoQuality: …}' in this job")
        }
        var result: MovieTranscodeResult?
        let exported = try exporter.write(item.file, ext: "mp4", memory: workingMemory(info, transcode: true),
                                          property: { opened[$0] }, check: { name in
            guard ["mp4", "m4v", "mov"].contains(name.ext) else {
                throw ItemFailure(.unsupported, "a videoQuality re-encode is H.264 + AAC in MP4; name the output .mp4, not .\(name.ext)")
            }
        }) { temporary, _ in
            result = try ItemFailure.converting(context: "cannot re-encode") {
                try Movie.transcode(path: item.source, to: temporary, preset: preset,
                                    mode: job.transcode?.scalingMode ?? .aspectFit)
            }
        }
        guard case .written(var written) = exported else { return exported }
        written.duration = result?.duration
        if let result {
            if result.damagedFrames > 0 {
                written.warnings.append("\(result.damagedFrames) damaged frame(s) in the source, re-encoded as the decoder concealed them")
            }
            for tag in result.tagsNotKept { written.warnings.append("container tag \(tag); not kept") }
            if job.transcode?.trim != nil || job.transcode?.fade != nil || job.transcode?.cut != nil {
                written.warnings.append("cut, trim and fade apply to audio items; this movie's sound was re-encoded without them")
            }
        }
        return .written(written)
    }
}
