import Foundation
import MedleyMedia
import MedleyStore

/// One item's journey through a job, top to bottom:
///
/// 1. **identify** — what the file is, from its bytes (`Ingest/InputFile.swift`);
/// 2. **read** — its header and properties (`Steps/`: `ImageStep`, `AudioStep`, `MovieStep`);
/// 3. **select** — the job's media types, then `where` (`Job.takes`/`Job.select` below, `Where/`);
/// 4. **tag** — `from_path` and `set` (`Tag/`);
/// 5. **render | transcode | poster** — filters, the audio stage, a movie's frame or re-encode
///    (`Steps/`), each ending in the export (`Export/Exporter.swift`: name, claim, skip policy,
///    atomic write) and returning a `StepOutcome`;
/// 6. **remember** — the run state (`IncrementalState`);
/// 7. **afterwards** — `ingest.afterwards.move`: the source renamed aside (`Ingest/AfterwardsMove.swift`),
///    only once its output is in place and remembered.
///
/// An unchanged item (same input, same settings, output still in place) is listed from the last
/// run instead. Each step calls its stage; no stage calls back into the runner. Steps 1–5 return
/// the item's outcome (`ItemOutcome`), which `OutcomeRecorder` tells once (manifest line, event,
/// console line).
struct ItemJourney {
    let session: RunSession
    let context: JobContext

    private var options: RunOptions { session.options }
    private var recorder: OutcomeRecorder { OutcomeRecorder(session: session, context: context) }

    /// Takes one ingested file (number `index` in ingest order) through the job.
    func run(_ file: IngestedFile, index: Int) {
        let job = context.job
        let started = Date()
        var announced = false
        var entry = ManifestRecord(job: job.name, item: file.itemName, input: file.path, status: .failed)
        entry.page = file.page
        entry.segment = file.segment?.number
        // A failed item releases its output name to the next item that wants it.
        var keepsClaim = false
        context.claims.begin(input: file.key, index: index)
        defer { context.claims.finish(input: file.key, index: index, keep: keepsClaim) }
        if let (row, reason) = context.incremental?.unchanged(file) {
            keepsClaim = unchanged(row, file: file, reason: reason)
            return
        }
        // Every reader of the item reads this one open file, checked to lie under the ingest root;
        // it is closed when the item ends.
        var input: InputFile?
        defer { input?.close() }
        let outcome: ItemOutcome
        do {
            try ResourceLimits.checkDescriptors()
            let opened = try InputFile.open(file)
            input = opened
            outcome = try travel(opened, &entry, announced: &announced)
        } catch let reason as NotSelected {
            outcome = .excluded(reason)
        } catch {
            outcome = .failed(error, reason: input?.describing("\(error)") ?? "\(error)")
        }
        entry.settle(outcome, finished: Date())
        let milliseconds = { Date().timeIntervalSince(started) * 1000 }
        switch outcome {
        case .written:
            // 6. remember, 7. afterwards: the source moved aside (`ingest.afterwards.move`), its
            //    output being in place and remembered.
            keepsClaim = true
            // One rendering of the line for the run state and the manifest; again only when
            // remembering failed, or the source moved, and that changed the entry.
            var line = entry.line
            if let failure = context.incremental?.remember(&entry, file, line: line) {
                line = entry.line
                session.noteFailure(failure, of: job)
            }
            if context.mover != nil {
                moveAside(file, identity: Self.identity(of: input), &entry)
                line = entry.line
            }
            recorder.record(outcome, entry, line: line, milliseconds: milliseconds())
        case .skipped:
            // A dry run only says where the source would go.
            keepsClaim = true
            if !options.dryRun { moveAside(file, identity: Self.identity(of: input), &entry) }
            recorder.record(outcome, entry)
            if options.dryRun { sayWouldMove(file) }
        case .excluded, .ignored:
            recorder.record(outcome, entry)
        case .failed:
            // A file that failed before it was identified still gets its itemStarted, so every
            // itemFailed in the event stream has one.
            if !announced { session.emit(.itemStarted(job: job.name, input: file.path)) }
            recorder.record(outcome, entry, milliseconds: milliseconds())
        }
    }

    /// Steps 1–5 of an item whose file is open: its outcome, the record gathering what each step
    /// learnt on the way (persistentID, media type, properties, warnings, album). `announced`: set once
    /// its itemStarted is sent.
    private func travel(_ opened: InputFile, _ entry: inout ManifestRecord, announced: inout Bool) throws -> ItemOutcome {
        let job = context.job
        let file = opened.file

        // 1. identify: what is it, and could this job want it?
        guard let sniffed = try Identify.format(of: file, reading: opened) else {
            return .ignored("not an image, audio or movie file")
        }
        guard job.takes(sniffed.kind) else {
            let wanted = job.ingest.media.map(\.rawValue).joined(separator: ", ")
            return .ignored("\(sniffed.format) \(sniffed.kind), not of the job's media types (\(wanted))")
        }
        // The exporter and the image stage (filters, encoder; a movie's poster) both come from the
        // job's `export:` (`JobRunner.makeContext`): asked once, here.
        guard let exporter = context.exporter, var image = context.image else {
            throw ItemFailure(.unsupported, "the job has no export stage")
        }
        if let page = file.page { image = image.page(page) }
        let item = Item(file: file, source: opened.readPath, sniffed: sniffed,
                        persistentID: try Identify.persistentID(of: opened))
        entry.persistentID = ContentHash.hex(item.persistentID)

        // 2. read: header and properties.
        var media = try read(item, image: image, &entry)

        // 3. select: media type, then `where` on the properties as read.
        try job.select(media.mediaType) { media[$0] }

        // 4. tag: properties from the path and templates (a path that does not fit is a warning).
        entry.warnings += try job.tag?.apply(to: &media.properties, relativePath: file.relativePath) ?? []
        session.emit(.itemStarted(job: job.name, input: file.path))
        announced = true

        // 5. render | transcode | poster, each into the export.
        return try output(media, item, exporter: exporter, image: image, &entry).item
    }

    /// Step 2: the item's header and properties, read by its kind's step.
    private func read(_ item: Item, image: ImageStage, _ entry: inout ManifestRecord) throws -> OpenedItem {
        let media: OpenedItem
        switch item.sniffed.kind {
        case .image:
            // An image that cannot be read is still listed as an image.
            entry.mediaType = .image
            media = try ImageStep.read(item, stage: image)
        case .audio:
            media = try AudioStep.read(item, job: context.job)
        case .movie:
            media = try MovieStep.read(item)
        }
        entry.mediaType = media.mediaType
        entry.warnings += media.warnings
        return media
    }

    /// Step 5: the output of the item's kind — filters for an image, the audio stage for audio,
    /// a poster frame or a re-encode for a movie — each ending in the export.
    private func output(_ media: OpenedItem, _ item: Item, exporter: Exporter, image: ImageStage,
                        _ entry: inout ManifestRecord) throws -> StepOutcome {
        let job = context.job
        switch media.content {
        case .image(let header, let messages):
            entry.properties = media.properties
            return try ImageStep.render(media, header: header, messages: messages, item, stage: image, exporter: exporter,
                                        threads: session.vipsThreads)
        case .audio(let reader, let tags):
            if job.spectrogram != nil || job.waveform != nil {
                entry.properties = media.properties
                return try PictureSteps.sound(media, reader: reader, spectrogram: job.spectrogram, waveform: job.waveform, item,
                                              job: job, exporter: exporter)
            }
            let stage = try AudioStage.taking(reader, format: item.sniffed.format, context.audio, job: job)?.part(item.file.segment)
            entry.properties = media.properties
            // Album mode: the loudness of the item's album, measured by the album pass.
            let album = context.albums?.album(of: item.file.path)
            if let album {
                entry.album = album.loudness.map(AlbumRecord.init)
                entry.warnings += album.warnings
            }
            return try AudioStep.transcode(media, reader: reader, tags: tags, item, stage: stage, job: job,
                                           exporter: exporter, album: album?.loudness)
        case .movie(let info):
            entry.properties = media.properties
            try MovieStep.checkPixels(info, job: job)
            if let animation = job.animation {
                return try PictureSteps.animation(media, info: info, settings: animation, item, job: job, exporter: exporter)
            }
            if let sprites = job.sprites {
                return try PictureSteps.sprites(media, info: info, settings: sprites, item, job: job, exporter: exporter)
            }
            if let poster = job.poster {
                return try PosterStep.render(media, info: info, poster: poster, item, stage: image, exporter: exporter)
            }
            if SoundtrackStep.applies(to: job) {
                return try SoundtrackStep.write(media, info: info, item, job: job, audio: context.audio, exporter: exporter)
            }
            return try MovieStep.reencode(media, info: info, item, job: job, exporter: exporter)
        }
    }

    /// Album mode's grouping (`Transcode/AlbumPass.swift`): one file through steps 1–4 only, and the album it belongs to; nil
    /// for anything that is not an audio item the job selects (the write pass says why).
    func albumMember(_ file: IngestedFile, index: Int, grouping: AlbumGrouping) -> AlbumMember? {
        let job = context.job
        guard context.audio != nil || job.tag != nil, let opened = try? InputFile.open(file) else { return nil }
        defer { opened.close() }
        do {
            guard let sniffed = try Identify.format(of: opened.file, reading: opened), sniffed.kind == .audio,
                  job.takes(sniffed.kind) else { return nil }
            // The content hash reads every byte: only when the grouping or `where` asks for it.
            let wantsID = grouping.template.properties.contains("persistentID")
                || job.where?.propertyNames.contains("persistentID") == true
            let item = Item(file: opened.file, source: opened.readPath, sniffed: sniffed,
                            persistentID: wantsID ? try Identify.persistentID(of: opened) : 0)
            var media = try AudioStep.read(item, job: job)
            try job.select(media.mediaType) { media[$0] }
            _ = try job.tag?.apply(to: &media.properties, relativePath: file.relativePath)
            guard case .audio(let reader, _) = media.content else { return nil }
            let (_, plan) = try AlbumPass.measuringPlan(reader, format: sniffed.format, audio: context.audio, job: job)
            let group = (try? grouping.template.render { media[$0] }) ?? "/" + file.relativePath
            return AlbumMember(file: file, index: index, format: sniffed.format, group: group,
                               sampleRate: plan.sampleRate, channels: plan.channels)
        } catch {
            return nil
        }
    }


    /// An item unchanged since the last run: listed from its run-state row. Returns whether it
    /// keeps its output (false: another item's claim came first).
    private func unchanged(_ row: StateRow, file: IngestedFile, reason: String) -> Bool {
        let output = row.output ?? "", input = file.path
        session.emit(.itemStarted(job: context.job.name, input: input))
        var entry = ManifestRecord(job: context.job.name, item: file.itemName, input: input, status: .failed)
        entry.page = file.page
        entry.segment = file.segment?.number
        do {
            try context.exporter?.claim(output, for: file.key)
        } catch {
            entry.persistentID = row.contentHash
            let outcome = ItemOutcome.failed(error, reason: "\(error)")
            entry.settle(outcome, finished: Date())
            recorder.record(outcome, entry)
            return false
        }
        // Its output is in place: a source the last run could not move aside yet (killed between the
        // two) is moved now, and its line says so.
        let (line, movedTo) = moveAside(unchanged: row, file: file)
        entry.movedTo = movedTo
        recorder.record(.skipped(output: output, .unchanged(reason)), entry, line: line)
        if options.dryRun { sayWouldMove(file) }
        return true
    }
}


/// What a job takes, decided here for the three moments that ask: a file's sniffed kind (before it
/// is read: the journey, album mode's grouping, `medley merge`), an item's media type and
/// properties once read (the journey's select step, with `where`), and an unchanged item's
/// stored record (`IncrementalState`).
extension Job {
    /// Whether the job's media types could take a file of this kind.
    func takes(_ kind: MediaKind) -> Bool { ingest.media.contains { $0.selects(kind) } }

    /// Whether the job's media types take an item of this type.
    func takes(_ type: MediaType) -> Bool { ingest.media.contains { $0.selects(mediaType: type) } }

    /// Throws why the job leaves out an item of `type` whose properties are `property`: its media
    /// type, then `where` (not an error: the item is listed as excluded).
    func select(_ type: MediaType, _ property: (String) -> TemplateValue?) throws {
        guard takes(type) else { throw NotSelected.mediaType(type) }
        if let clause = self.where, !clause.matches(property) { throw NotSelected.where }
    }
}
