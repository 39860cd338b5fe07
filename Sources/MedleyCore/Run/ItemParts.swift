import MedleyMedia

/// The items one listed file gives a job: each page of a PDF under `ingest.page: all` (`PageItems`), each
/// part of a recording under `transcode.segment`, else the file itself. Used by the run's listing and by
/// a watch's arrivals alike, so both know an item by the same key.
enum ItemParts {
    /// The items of one listed file (a file that cannot be listed or read stays one item: its journey fails
    /// it with the reason).
    static func items(of listed: FileEnumerator.Element, job: Job) -> [FileEnumerator.Element] {
        guard case .success(let file) = listed else { return [listed] }
        return items(of: [file], job: job).map { .success($0) }
    }

    /// Files as the job's items.
    static func items(of files: [IngestedFile], job: Job) -> [IngestedFile] {
        if job.ingest.everyPage { return PageItems.items(of: files) }
        guard let every = job.transcode?.segment else { return files }
        return files.flatMap { file -> [IngestedFile] in
            guard let count = segmentCount(of: file, every: every, job: job) else { return [file] }
            return (1...count).map { file.segment(SegmentPart(number: $0, isLast: $0 == count)) }
        }
    }

    /// How many parts `transcode.segment` splits a file into: from its audio stream's length (exact for
    /// PCM, FLAC and MP3 with its encoder's delay and padding dropped; an MP4 or Ogg file's own count);
    /// a stream whose header gives no length is decoded once to count it. nil for a file that is not a
    /// recording the job transcodes as sound (an image, a movie re-encoded as a movie) or cannot be read.
    static func segmentCount(of file: IngestedFile, every: Double, job: Job) -> Int? {
        guard let opened = try? InputFile.open(file) else { return nil }
        defer { opened.close() }
        guard let sniffed = try? Identify.format(of: opened.file, reading: opened), job.takes(sniffed.kind) else { return nil }
        switch sniffed.kind {
        case .audio: break
        case .movie where job.animation == nil && job.sprites == nil && SoundtrackStep.applies(to: job): break
        default: return nil
        }
        guard let reader = try? AudioStage.open(opened.readPath, format: sniffed.format) else { return nil }
        let rate = reader.info.sampleRate
        var frames = reader.info.frames
        if frames <= 0 { frames = (try? reader.meterToEnd().frames) ?? 0 }
        guard rate > 0, frames > 0 else { return nil }
        return TimeCut.segmentCount(length: Double(frames) / Double(rate), rate: rate, every: every, cut: job.transcode?.cut)
    }
}
