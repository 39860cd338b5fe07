import Foundation
import MedleyFilters
import MedleyMedia
import MedleyStore

/// Album mode's measurement pass: before a job writes anything, every audio item it would take is
/// identified, read, selected and tagged as its journey would, grouped into albums by
/// `AlbumGrouping.template`, and each album measured over all its tracks as one stream (their
/// gating blocks pooled: `LoudnessMeter.integrated(of:)`, not a mean of track values). The write
/// pass then hands each item its album's `AlbumLoudness`.
///
/// Crash-safe and incremental: each album's value is saved in the run state as soon as it is
/// measured, under a key made of its members (path, size, modification time, rate, channels) and
/// the job's audio settings, so a rerun measures only albums that changed or were not finished;
/// and the value is part of each track's fingerprint (`IncrementalState`), so a changed album
/// redoes its tracks and an unchanged one redoes nothing.
///
/// Sharded runs (`--shard k/n`) read every file's header and tags here, and take whole albums (by
/// the hash of the group text), never a track without its album.
///
/// Memory: one small `AlbumMember` per audio file of the ingest (its path and group), and the
/// loudness meters of the albums being measured, each track's kept until its album is complete.
/// Tracks are measured in album order, so at most `concurrency + 1` albums hold meters at once.
/// Measured with glibc's mallinfo2 at 48 kHz stereo, a meter without loudness range (integrated
/// and true peak) takes 1.06 MB when made plus 76 KB per 4 minutes of gating blocks (with loudness
/// range: 3.0 MB), so a 20-track album of 4-minute songs holds about 23 MB.
final class AlbumIndex: @unchecked Sendable {
    // @unchecked: the album values are set by the pass (under `lock`) and only read afterwards.
    private let lock = NSLock()
    /// Each member's group, by input path: every album track of the ingest, also another shard's.
    private var groups: [String: String] = [:]
    private var values: [String: AlbumLoudness] = [:]
    /// Per group: tracks that could not be measured, said to each track of the album.
    private var notes: [String: [String]] = [:]
    let shard: (index: Int, count: Int)?

    init(shard: (index: Int, count: Int)?) {
        self.shard = shard
    }

    /// The album of one input, as the write pass needs it.
    struct Membership {
        var group: String
        /// nil when none of its tracks could be measured (or the pass was not finished).
        var loudness: AlbumLoudness?
        var warnings: [String]
    }

    /// The album of the item at `input` (an absolute path), nil when it is in none.
    func album(of input: String) -> Membership? {
        lock.lock()
        defer { lock.unlock() }
        guard let group = groups[input] else { return nil }
        let loudness = values[group]
        var warnings = notes[group] ?? []
        if loudness == nil, warnings.isEmpty { warnings = ["the loudness of album '\(group)' is unknown"] }
        return Membership(group: group, loudness: loudness, warnings: warnings)
    }

    /// The album value by its group text.
    subscript(group: String) -> AlbumLoudness? {
        lock.lock()
        defer { lock.unlock() }
        return values[group]
    }

    /// Whether this shard takes `file`: an album track goes with its album (the hash of its group),
    /// anything else by its path, as without albums.
    func takes(_ file: IngestedFile) -> Bool {
        guard let shard else { return true }
        lock.lock()
        let group = groups[file.path]
        lock.unlock()
        guard let group else { return Sharding.takes(file.relativePath, shard: shard) }
        return Self.takes(group: group, shard: shard)
    }

    static func takes(group: String, shard: (index: Int, count: Int)?) -> Bool {
        guard let shard else { return true }
        return Sharding.shard(of: group, count: shard.count) == shard.index
    }

    /// What of the item's album its output depends on, for its incremental fingerprint: the group
    /// and the album's loudness and peaks to 0.01 dB ("" for an item in no album).
    func fingerprint(of input: String) -> String {
        guard let album = album(of: input) else { return "" }
        guard let loudness = album.loudness else { return "|album:" + album.group + ":unmeasured" }
        func hundredths(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }
        return "|album:" + album.group + ":" + hundredths(loudness.integrated)
            + ":" + hundredths(LoudnessMeasurement.decibels(loudness.samplePeak))
            + ":" + hundredths(LoudnessMeasurement.decibels(loudness.truePeak))
    }

    fileprivate func add(_ member: AlbumMember) {
        lock.lock()
        groups[member.file.path] = member.group
        lock.unlock()
    }

    fileprivate func set(_ value: AlbumLoudness, notes groupNotes: [String]) {
        lock.lock()
        values[value.group] = value
        if !groupNotes.isEmpty { notes[value.group] = groupNotes }
        lock.unlock()
    }

    fileprivate func note(_ group: String, _ notes: [String]) {
        lock.lock()
        self.notes[group] = notes
        lock.unlock()
    }
}

/// An audio item that belongs to an album: what the measurement needs to find and plan it again.
struct AlbumMember {
    let file: IngestedFile
    /// Its place in ingest order (tracks are measured in album order, then this).
    let index: Int
    /// The sniffed format, which picks the decoder.
    let format: String
    /// What the grouping template rendered; "/" + its relative path when it rendered nothing
    /// (an album of its own — no rendered group starts with "/").
    let group: String
    /// The rate and channels the write pass writes it at, which it is measured at.
    let sampleRate: Int
    let channels: Int
}

/// The measurement itself, given what the run provides: how to run work `--jobs` at once, how to
/// read a file up to the tag stage (`member`), the run state, and where to say what it did.
struct AlbumPass {
    let job: Job
    /// The job's transcode stage (nil: a tag-only job, whose audio is copied and measured as it is).
    let audio: AudioStage?
    let grouping: AlbumGrouping
    let shard: (index: Int, count: Int)?
    /// `--force`: measure albums the run state knows too.
    let force: Bool
    /// `--dry-run`: measure nothing; read the albums the run state knows.
    let dryRun: Bool
    let quiet: Bool
    /// Albums earlier runs measured (nil: no run state).
    let lookup: RunState?
    /// Where a measured album is saved (nil: nowhere, as in a dry run).
    let store: RunState?
    /// Runs every closure of the sequence, `--jobs` at once, pulling the next only when a slot is
    /// free; false when the run was stopped before the end.
    let inParallel: (AnySequence<() -> Void>) -> Bool
    /// Says a line on the console (in the colour given, if any).
    let say: (String, String?) -> Void
    /// An album measured now or (`reused`) known from the last run: its event.
    let measured: (AlbumLoudness, _ reused: Bool) -> Void

    /// Groups every audio item of the ingest (`member` reads one as its journey would, up to the
    /// tag stage), then measures the albums this run (or shard) takes that the run state does not
    /// already know. Returns the index the write pass reads; a stop request (SIGINT, a full disk)
    /// ends it early, with every album measured so far saved.
    func run(files: some Sequence<Result<IngestedFile, IngestError>>,
             member: @escaping (IngestedFile, Int) -> AlbumMember?) -> AlbumIndex {
        let index = AlbumIndex(shard: shard)
        // 1. Group: headers and tags only, every file (a shard must see whole albums).
        let collected = NSLock()
        var members: [AlbumMember] = []
        let complete = inParallel(AnySequence(files.enumerated().lazy.map { position, result in {
            guard case .success(let file) = result, let found = member(file, position) else { return }
            index.add(found)
            collected.lock()
            members.append(found)
            collected.unlock()
        } }))
        guard complete else { return index }

        // 2. Measure the albums this run takes, unless the run state knows them already.
        let settings = ContentHash.hex(ContentHash.of(text: job.settings.audio))
        var byGroup: [String: [AlbumMember]] = [:]
        for member in members where AlbumIndex.takes(group: member.group, shard: shard) {
            byGroup[member.group, default: []].append(member)
        }
        var queue: [AlbumMember] = []
        var keys: [String: String] = [:]
        var reused = 0
        for (group, tracks) in byGroup.sorted(by: { $0.key < $1.key }) {
            let key = Self.albumKey(group: group, members: tracks, settings: settings)
            keys[group] = key
            if let row = lookup?.album(job: job.name, key: key), !force {
                let value = AlbumLoudness(group: group, integrated: row.integrated, samplePeak: row.samplePeak,
                                          truePeak: row.truePeak, tracks: row.tracks)
                index.set(value, notes: [])
                reused += 1
                measured(value, true)
            } else {
                queue += tracks.sorted { $0.index < $1.index }
            }
        }
        if dryRun {
            // A dry run writes nothing, so it measures nothing: its listing shows albums already known.
            if !quiet, !queue.isEmpty {
                say("albums: \(Set(queue.map(\.group)).count) not measured in a dry run", nil)
            }
            return index
        }
        let count = measure(queue, index: index, keys: keys)
        if !quiet, !byGroup.isEmpty {
            say("albums: \(count) measured, \(reused) unchanged since the last run", nil)
        }
        return index
    }

    /// Measures `queue` (tracks in album order) concurrently; each album is pooled, saved and
    /// emitted as soon as its last track is measured, and its meters freed. Returns albums measured.
    private func measure(_ queue: [AlbumMember], index: AlbumIndex, keys: [String: String]) -> Int {
        final class Pending {
            var meters: [LoudnessMeter] = []
            var samplePeak = 0.0, truePeak = 0.0
            var remaining: Int
            var failures: [String] = []
            init(remaining: Int) { self.remaining = remaining }
        }
        let lock = NSLock()
        var pending: [String: Pending] = [:]
        for member in queue {
            let album = pending[member.group] ?? Pending(remaining: 0)
            album.remaining += 1
            pending[member.group] = album
        }
        var count = 0
        _ = inParallel(AnySequence(queue.lazy.map { member in {
            var meter: LoudnessMeter?
            var measurement: LoudnessMeasurement?
            var failure: String?
            do {
                (meter, measurement) = try self.measure(member)
            } catch {
                failure = "\(member.file.relativePath): \(error)"
            }
            lock.lock()
            guard let album = pending[member.group] else {
                lock.unlock()
                return
            }
            if let meter, let measurement {
                album.meters.append(meter)
                album.samplePeak = max(album.samplePeak, measurement.samplePeak)
                album.truePeak = max(album.truePeak, measurement.truePeak)
            }
            if let failure { album.failures.append(failure) }
            album.remaining -= 1
            let done = album.remaining == 0
            if done {
                pending[member.group] = nil
                count += 1
            }
            lock.unlock()
            if done { self.finish(album: member.group, meters: album.meters, samplePeak: album.samplePeak,
                                  truePeak: album.truePeak, failures: album.failures, index: index,
                                  key: keys[member.group]) }
        } }))
        return count
    }

    /// An album whose every track was measured: its pooled loudness, saved in the run state
    /// before anything is written (a crash after this only means it need not be measured again).
    private func finish(album group: String, meters: [LoudnessMeter], samplePeak: Double, truePeak: Double,
                        failures: [String], index: AlbumIndex, key: String?) {
        let notes = failures.isEmpty ? [] : ["album loudness measured without "
            + failures.joined(separator: "; ") + " (could not be measured)"]
        guard !meters.isEmpty else {
            index.note(group, notes + ["no track of album '\(group)' could be measured: its loudness is unknown"])
            return
        }
        let value = AlbumLoudness(group: group, integrated: LoudnessMeter.integrated(of: meters), samplePeak: samplePeak,
                                  truePeak: truePeak, tracks: meters.count)
        index.set(value, notes: notes)
        // An album with a track that could not be measured is measured again next time.
        if let key, failures.isEmpty, let store {
            do {
                try store.saveAlbum(job: job.name, AlbumRow(key: key, album: group, integrated: value.integrated,
                                                                    samplePeak: samplePeak, truePeak: truePeak,
                                                                    tracks: value.tracks))
            } catch {
                say("medley: album '\(group)': not recorded in the run state (\(error)); the next run measures it again", "31")
            }
        }
        measured(value, false)
    }

    /// The run-state key of an album: its group, each member's path, size, modification time and
    /// written rate and channels, and the job's audio settings (which shape what is measured).
    static func albumKey(group: String, members: [AlbumMember], settings: String) -> String {
        var text = settings + "\n" + group
        for member in members.sorted(by: { $0.file.path < $1.file.path }) {
            text += "\n\(member.file.path)\t\(member.file.size)\t\(member.file.modifiedNanoseconds)"
                + "\t\(member.sampleRate)\t\(member.channels)"
        }
        return ContentHash.hex(ContentHash.of(text: text)) + "-\(members.count)"
    }

    /// The stage and plan the write pass will use for a track (its rate and channels): the job's
    /// transcode, or — a job that copies audio with new tags — the stream as it is.
    static func measuringPlan(_ reader: AudioSource, format: String, audio: AudioStage?,
                              job: Job) throws -> (AudioStage, AudioStage.Plan) {
        guard let stage = try AudioStage.taking(reader, format: format, audio, job: job) else {
            return AudioStage.measuring(reader.info)
        }
        var warnings: [String] = []
        return (stage, try stage.plan(for: reader.info, ext: stage.defaultExtension, warnings: &warnings))
    }

    /// One track's loudness as the write pass will write it (mixed and resampled by its plan).
    private func measure(_ member: AlbumMember) throws -> (LoudnessMeter, LoudnessMeasurement) {
        let opened = try InputFile.open(member.file)
        defer { opened.close() }
        let reader = try AudioStage.open(opened.readPath, format: member.format)
        let (stage, plan) = try Self.measuringPlan(reader, format: member.format, audio: audio, job: job)
        let pass = try stage.measureLoudness(reader, plan: plan)
        guard let meter = pass.loudnessMeter, let measurement = pass.loudness else {
            throw ItemFailure(.stage, "its loudness could not be measured")
        }
        return (meter, measurement)
    }
}
