import Foundation
import MedleyMedia

/// One item's journey through a job, top to bottom:
///
/// 1. **identify** — what the file is, from its bytes (`Ingest/Identify.swift`);
/// 2. **read** — its header and properties (`ImageStep`, `AudioStep`, `MovieStep`);
/// 3. **select** — the job's media types, then `where` (`Where/`);
/// 4. **tag** — `from_path` and `set` (`Tag/`);
/// 5. **render | transcode | poster** — filters, the audio stage, a movie's frame or re-encode,
///    each ending in the export (`Export/Exporter.swift`: name, claim, skip policy, atomic write);
/// 6. **remember** — the manifest line and the run state (`IncrementalState`);
/// 7. **afterwards** — `ingest.afterwards.move`: the source renamed aside (`Ingest/AfterwardsMove.swift`),
///    only once its output is in place and remembered.
///
/// An unchanged item (same input, same settings, output still in place) is listed from the last
/// run instead. Each step calls its stage; no stage calls back into the runner.
extension PipelineRunner {
    /// Takes one ingested file (number `index` in ingest order) through the job.
    func process(_ file: IngestedFile, _ context: JobContext, index: Int) {
        let job = context.job
        let started = Date()
        var announced = false
        var entry = ManifestRecord(job: job.name, item: file.relativePath, input: file.path, status: .failed)
        // A failed item releases its output name to the next item that wants it.
        var keepsClaim = false
        context.claims.begin(input: file.path, index: index)
        defer { context.claims.finish(input: file.path, index: index, keep: keepsClaim) }
        if let (row, reason) = context.incremental?.unchanged(file) {
            keepsClaim = record(context, unchanged: row, file: file, reason: reason)
            return
        }
        // Every reader of the item reads this one open file, checked to lie under the ingest root;
        // it is closed when the item ends.
        var input: InputFile?
        defer { input?.close() }
        do {
            try ResourceLimits.checkDescriptors()
            let opened = try InputFile.open(file)
            input = opened
            let file = opened.file

            // 1. identify: what is it, and could this job want it?
            guard let sniffed = try Identify.format(of: file, reading: opened) else {
                return record(context, ignored: entry, reason: "not an image, audio or movie file")
            }
            guard job.ingest.media.contains(where: { $0.selects(sniffed.kind) }) else {
                let wanted = job.ingest.media.map(\.rawValue).joined(separator: ", ")
                return record(context, ignored: entry, reason: "\(sniffed.format) \(sniffed.kind), not of the job's media types (\(wanted))")
            }
            guard let exporter = context.exporter else { throw ItemFailure(.unsupported, "the job has no export stage") }
            let item = Item(file: file, source: opened.readPath, sniffed: sniffed,
                            persistentID: try Identify.persistentID(of: opened))
            entry.persistentID = ContentHash.hex(item.persistentID)

            // 2. read: header and properties.
            var media = try read(item, context, &entry)

            // 3. select: media type, then `where` on the properties as read.
            try select(media, job)

            // 4. tag: properties from the path and templates (a path that does not fit is a warning).
            entry.warnings += try job.tag?.apply(to: &media.properties, relativePath: file.relativePath) ?? []
            emit(.itemStarted(job: job.name, input: file.path))
            announced = true

            // 5. render | transcode | poster, each into the export.
            try output(media, item, context, exporter: exporter, &entry)

            // 6. remember.
            // 7. afterwards: the source moved aside (`ingest.afterwards.move`), its output being in place
            //    and remembered; a dry run only says where it would go.
            keepsClaim = true
            if entry.status == .skipped {
                if !options.dryRun { moveAside(file, identity: Self.identity(of: opened), context, &entry) }
                record(context, skipped: entry)
                if options.dryRun { sayWouldMove(file, context) }
            } else {
                entry.status = .succeeded
                entry.markFinished()
                // One rendering of the line for the run state and the manifest; again only when
                // remembering failed, or the source moved, and that changed the entry.
                var line = entry.line
                if let failure = context.incremental?.remember(&entry, file, line: line) {
                    line = entry.line
                    noteFailure(failure, context)
                }
                if context.mover != nil {
                    moveAside(file, identity: Self.identity(of: opened), context, &entry)
                    line = entry.line
                }
                record(context, finished: entry, line: line, milliseconds: Date().timeIntervalSince(started) * 1000)
            }
        } catch let reason as NotSelected {
            entry.status = .excluded
            entry.error = reason.description
            entry.output = nil
            record(context, excluded: entry)
        } catch {
            // A file that failed before it was identified still gets its itemStarted, so every
            // itemFailed in the event stream has one.
            if !announced { emit(.itemStarted(job: job.name, input: file.path)) }
            entry.status = .failed
            let reason = input?.describing("\(error)") ?? "\(error)"
            record(context, failed: entry, reason: reason, cause: error, milliseconds: Date().timeIntervalSince(started) * 1000)
        }
    }

    /// Step 2: the item's header and properties, read by its kind's step.
    private func read(_ item: Item, _ context: JobContext, _ entry: inout ManifestRecord) throws -> OpenedItem {
        switch item.sniffed.kind {
        case .image:
            entry.mediaType = .image
            return try ImageStep.read(item, stage: context.image)
        case .audio:
            let media = try AudioStep.read(item, job: context.job, &entry)
            entry.mediaType = media.mediaType
            return media
        case .movie:
            let media = try MovieStep.read(item)
            entry.mediaType = media.mediaType
            return media
        }
    }

    /// Step 3: an item the job's media types or `where` leave out is excluded (not an error).
    func select(_ media: OpenedItem, _ job: Job) throws {
        guard job.ingest.media.contains(where: { $0.selects(mediaType: media.mediaType) }) else {
            throw NotSelected.mediaType(media.mediaType)
        }
        if let clause = job.where, !clause.matches({ media[$0] }) {
            throw NotSelected.where
        }
    }

    /// Step 5: the output of the item's kind — filters for an image, the audio stage for audio,
    /// a poster frame or a re-encode for a movie — each ending in the export.
    private func output(_ media: OpenedItem, _ item: Item, _ context: JobContext, exporter: Exporter,
                        _ entry: inout ManifestRecord) throws {
        let job = context.job
        switch media.content {
        case .image(let header, let messages):
            entry.properties = media.properties
            guard let stage = context.image else { throw ItemFailure(.unsupported, "the job has no image stage") }
            try ImageStep.render(media, header: header, messages: messages, item, stage: stage, exporter: exporter,
                                 threads: vipsThreads, &entry)
        case .audio(let reader, let tags):
            let stage = try AudioStep.stage(for: reader, format: item.sniffed.format, context.audio, job: job)
            entry.properties = media.properties
            // Album mode: the loudness of the item's album, measured by the album pass.
            let album = context.albums?.album(of: item.file.path)
            if let album {
                entry.album = album.loudness.map(AlbumRecord.init)
                entry.warnings += album.warnings
            }
            try AudioStep.transcode(media, reader: reader, tags: tags, item, stage: stage, job: job,
                                    exporter: exporter, album: album?.loudness, &entry)
        case .movie(let info):
            entry.properties = media.properties
            try MovieStep.checkPixels(info, job: job)
            if let poster = job.poster {
                try PosterStep.render(media, info: info, poster: poster, item, stage: context.image,
                                      exporter: exporter, &entry)
            } else {
                try MovieStep.reencode(media, info: info, item, job: job, exporter: exporter, &entry)
            }
        }
    }
}

/// Why the job leaves an item out (not a failure: the item is listed as excluded).
enum NotSelected: Error, CustomStringConvertible {
    /// Its media type is not among the job's.
    case mediaType(MediaType)
    /// `where` does not select it.
    case `where`

    var description: String {
        switch self {
        case .mediaType(let type): return "\(type.rawValue) is not among the job's media types"
        case .where: return "not selected by where"
        }
    }
}
