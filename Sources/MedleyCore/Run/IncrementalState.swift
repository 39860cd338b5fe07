import Foundation
import MedleyMedia
import MedleyStore

/// Incremental runs: what the last run did with each input of a job, read from the export
/// root's run state, so an unchanged item is listed again rather than redone; and each finished
/// item remembered once its output is in place.
final class IncrementalState {
    /// The job whose items it answers for.
    let job: Job
    /// Where finished items are recorded (nil in a dry run, which only reads).
    let store: RunState?
    /// What answers "what did the last run do with this input", one indexed query per item.
    let lookup: RunState
    /// `--force`: every item is done again.
    let force: Bool
    /// The job's settings hashed per kind of item (`JobSettings`).
    let settingsHash: (image: String, audio: String)
    /// Album mode: each track's album, whose loudness is part of the track's fingerprint.
    var albums: AlbumIndex?

    private init(job: Job, store: RunState?, lookup: RunState, force: Bool) {
        self.job = job
        self.store = store
        self.lookup = lookup
        self.force = force
        settingsHash = (ContentHash.hex(ContentHash.of(text: job.settings.image)),
                        ContentHash.hex(ContentHash.of(text: job.settings.audio)))
    }

    /// Opens the run state in `<to>/.medley/` (`Sharding.runStateName`) and loads what it knows of
    /// this job; nil when there is none to read. A dry run only reads it, and only if it is there.
    /// Its files must be regular files in the real `.medley` folder (`ExportRoot.checkRunState`),
    /// and SQLite opens it by a path without links.
    static func open(_ job: Job, export: ExportStage, root: ExportRoot?, options: RunOptions) throws -> IncrementalState? {
        let name = Sharding.runStateName(options.shard)
        guard let folder = try root?.medley ?? ExportRoot.inspect(export.to) else { return nil }
        if options.dryRun && folder.kind(of: name) == nil { return nil }
        try ExportRoot.checkRunState(named: name, in: folder, root: export.to)
        let path = folder.child(name)
        do {
            do {
                let store = try RunState(path: folder.realPath + "/" + name, readOnly: options.dryRun)
                // Read once now: SQLite opens lazily, and a WAL database it cannot read (no -shm on a
                // read-only file system) must be found here, not item by item.
                _ = try store.row(job: job.name, input: "")
                return IncrementalState(job: job, store: options.dryRun ? nil : store, lookup: store, force: options.force)
            } catch let error as StateError where options.dryRun {
                // A dry run on a read-only file system: no one can change the database there, and
                // SQLite cannot create the -shm file it otherwise reads a WAL database through.
                var info = statvfs()
                guard fstatvfs(folder.descriptor, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 else { throw error }
                let lookup = try RunState(path: folder.realPath + "/" + name, immutable: true)
                return IncrementalState(job: job, store: nil, lookup: lookup, force: options.force)
            }
        } catch let error as StateError {
            throw RunError.cannotStart("cannot use the run state \(path): \(error.description)")
        }
    }

    /// The last run's row for an item that needs no work, and why: its input, the settings for its
    /// kind and its output are as that run left them, and the job still selects it. Else nil
    /// (also when the run state cannot be read: then the item is simply done again).
    func unchanged(_ file: IngestedFile) -> (row: StateRow, reason: String)? {
        guard let row = try? lookup.row(job: job.name, input: file.key),
              let reason = unchanged(row, file), stillSelected(row) else { return nil }
        return (row, reason)
    }

    /// Size and modification time decide first; when only the time changed, the content hash does.
    private func unchanged(_ row: StateRow, _ file: IngestedFile) -> String? {
        guard !force, ManifestRecord.Status(rawValue: row.status) == .succeeded, let output = row.output else { return nil }
        guard row.settingsHash == settingsHash(kind: row.kind, input: file.key), row.size == file.size else { return nil }
        // The output itself, not a link put in its place.
        guard case .success(let info) = FileSystem.linkStatus(of: output), info.kind == .file, info.size == row.outputSize else { return nil }
        if row.modifiedNanoseconds != file.modifiedNanoseconds {
            guard let opened = try? InputFile.open(file), let hash = try? ContentHash.of(descriptor: opened.descriptor),
                  ContentHash.hex(hash) == row.contentHash else { return nil }
            // Same bytes, newer time (a touch, a copy): remember the time so the next run need not hash.
            var touched = row
            touched.modifiedNanoseconds = file.modifiedNanoseconds
            try? store?.save(job: job.name, touched)
        }
        return "unchanged since the last run"
    }

    /// Whether the job's media types and `where` still select an unchanged item, judged on the
    /// properties its last run recorded (the input is the same, so they are too). A changed
    /// `where` thus leaves out what it now excludes without redoing what it still selects.
    private func stillSelected(_ row: StateRow) -> Bool {
        // The common case needs no look at the record: no where, and media types that take every
        // item of the row's kind.
        if job.where == nil, let kind = MediaKind(rawValue: row.kind) {
            let types = MediaType.allCases.filter { $0.kind == kind }
            if types.allSatisfy(job.takes) { return true }
        }
        guard let record = try? ManifestRecord(line: row.record), let mediaType = record.mediaType,
              job.takes(mediaType) else { return false }
        guard let clause = job.where else { return true }
        // The record holds properties after the tag stage; where reads them before it. When the
        // two touch the same property, only a fresh look decides.
        let tagged = Set((job.tag?.assignments.map(\.property) ?? []) + (job.tag?.fromPath?.properties ?? []))
        guard tagged.isDisjoint(with: clause.propertyNames) else { return false }
        return clause.matches { record[property: $0] }
    }

    /// Records a finished item in the run state (after its output is in place: a crash between
    /// the two only means the item is done again). Returns the reason it could not be recorded.
    /// `line`: the entry's manifest line, already rendered (kept as the row's record).
    func remember(_ entry: inout ManifestRecord, _ file: IngestedFile, line: String) -> Error? {
        guard let store, let output = entry.output else { return nil }
        let kind = (entry.mediaType?.kind ?? .audio).rawValue
        let row = StateRow(input: file.key, size: file.size, modifiedNanoseconds: file.modifiedNanoseconds,
                           contentHash: entry.persistentID ?? "", kind: kind, settingsHash: settingsHash(kind: kind, input: file.key),
                           status: ManifestRecord.Status.succeeded.rawValue, output: output, outputSize: entry.bytes, record: line)
        do {
            try store.save(job: job.name, row)
            return nil
        } catch {
            // The output is in place and right; only the memory of it is missing, so the next run
            // does the item again.
            entry.warnings.append("not recorded in the run state (\(error)); the next run does it again")
            return error
        }
    }

    /// `ingest.afterwards.move`: the item's row, saved before its source moved, gets the manifest
    /// line that says where it went, so later runs still list the item (`movedItems`). Returns the
    /// reason it could not.
    func rememberMove(of input: String, line: String) -> String? {
        guard let store else { return nil }
        do {
            guard var row = try store.row(job: job.name, input: input) else { return nil }
            row.record = line
            try store.save(job: job.name, row)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The manifest lines of items whose sources earlier runs moved aside (`ingest.afterwards.move`):
    /// gone from the ingest, so no item of this run, but their outputs are in place and the job's
    /// manifest, playlist and report go on listing them. Skipped: sources moved by this run
    /// (`movedNow`), inputs back at their place, and outputs no longer there as written.
    func movedItems(except movedNow: (String) -> Bool, _ body: (String) -> Void) {
        guard let store else { return }
        try? store.succeededRows(job: job.name, recordContaining: "\"movedTo\"") { row in
            guard !movedNow(row.input), !FileSystem.exists(row.input), let output = row.output else { return }
            guard case .success(let info) = FileSystem.linkStatus(of: output), info.kind == .file, info.size == row.outputSize else { return }
            body(row.record)
        }
    }

    /// Which settings shape an item's output, by the content kind the run state files it under:
    /// image, audio, or for a movie both (its poster goes through the image settings, its re-encode
    /// through the transcode settings).
    /// In album mode an audio item's output also depends on its album's loudness, which is
    /// added (`AlbumIndex.fingerprint`): a changed album redoes its tracks.
    private func settingsHash(kind: String, input: String) -> String {
        switch MediaKind(rawValue: kind) {
        case .image?: return settingsHash.image
        case .movie?: return settingsHash.image + settingsHash.audio
        case .audio?, nil: return settingsHash.audio + (albums?.fingerprint(of: input) ?? "")
        }
    }
}
