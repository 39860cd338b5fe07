import Foundation
import MedleySystem
import MedleyFilters

/// What happened to a job or an item, as the `--events` JSON lines and the progress display
/// see it (the batch form of NSNotificationCenter's playback notifications).
public enum RunEvent: Sendable {
    case jobStarted(job: String)
    case itemStarted(job: String, input: String)
    /// `details`: what the item's stages measured (duration, metering per channel, `loudness` as
    /// the manifest has it: integrated LUFS, range LU, samplePeak dBFS, truePeak dBTP).
    case itemFinished(job: String, input: String, output: String, bytes: Int64, milliseconds: Double,
                      details: [(String, JSONValue)])
    /// `movedTo`: where `ingest.afterwards.move` put the input (nil: it stayed).
    case itemSkipped(job: String, input: String, output: String, reason: String, movedTo: String? = nil)
    /// `milliseconds`: time spent on the item before it failed (nil when not timed).
    case itemFailed(job: String, input: String, error: String, milliseconds: Double?)
    case jobFinished(job: String, counts: JobCounts, seconds: Double)
    /// Album mode: an album's loudness, measured now or (`reused`) known from the last run.
    case albumMeasured(job: String, album: AlbumLoudness, reused: Bool)
    /// `medley watch`: the catch-up pass is done and the ingest roots' `folders` are watched.
    case watchStarted(jobs: [String], folders: Int, settleSeconds: Double)
    /// `medley watch`: a batch of arrivals of a job is done (`items` taken in it); `counts` since the
    /// watch began.
    case batchFinished(job: String, items: Int, counts: JobCounts)
    /// `medley watch`: the job's manifest, playlist, summary and report were written again after
    /// its batches (`counts` since the watch began).
    case outputsRefreshed(job: String, counts: JobCounts)
    /// `medley watch`: the kernel's queue of folder events overflowed (or a folder could not be
    /// watched), so every ingest root is walked again.
    case watchRescan(reason: String)

    /// One line of JSON.
    public var json: JSONValue {
        var fields: [(String, JSONValue)]
        switch self {
        case .jobStarted(let job):
            fields = [("event", .string("jobStarted")), ("job", .string(job))]
        case .itemStarted(let job, let input):
            fields = [("event", .string("itemStarted")), ("job", .string(job)), ("input", .string(input))]
        case .itemFinished(let job, let input, let output, let bytes, let ms, let details):
            fields = [("event", .string("itemFinished")), ("job", .string(job)), ("input", .string(input)),
                      ("output", .string(output)), ("bytes", .number(Double(bytes))),
                      ("ms", .number((ms * 10).rounded() / 10))] + details
        case .itemSkipped(let job, let input, let output, let reason, let movedTo):
            fields = [("event", .string("itemSkipped")), ("job", .string(job)), ("input", .string(input)),
                      ("output", .string(output)), ("reason", .string(reason))]
                + (movedTo.map { [("movedTo", JSONValue.string($0))] } ?? [])
        case .itemFailed(let job, let input, let error, let ms):
            fields = [("event", .string("itemFailed")), ("job", .string(job)), ("input", .string(input))]
                + (ms.map { [("ms", JSONValue.number(($0 * 10).rounded() / 10))] } ?? []) + [
                      ("error", .string(error))]
        case .jobFinished(let job, let counts, let seconds):
            fields = [("event", .string("jobFinished")), ("job", .string(job)),
                      ("succeeded", .number(Double(counts.succeeded))), ("failed", .number(Double(counts.failed))),
                      ("skipped", .number(Double(counts.skipped))), ("ignored", .number(Double(counts.ignored))),
                      ("excluded", .number(Double(counts.excluded))),
                      ("seconds", .number((seconds * 1000).rounded() / 1000))]
        case .watchStarted(let jobs, let folders, let settle):
            fields = [("event", .string("watchStarted")), ("jobs", .array(jobs.map { .string($0) })),
                      ("folders", .number(Double(folders))), ("settle", .number(settle))]
        case .batchFinished(let job, let items, let counts):
            fields = [("event", .string("batchFinished")), ("job", .string(job)), ("items", .number(Double(items)))]
                + Self.countFields(counts)
        case .outputsRefreshed(let job, let counts):
            fields = [("event", .string("outputsRefreshed")), ("job", .string(job))] + Self.countFields(counts)
        case .watchRescan(let reason):
            fields = [("event", .string("watchRescan")), ("reason", .string(reason))]
        case .albumMeasured(let job, let album, let reused):
            fields = [("event", .string("albumMeasured")), ("job", .string(job))]
                + AlbumRecord(album).jsonFields + [("reused", .bool(reused))]
        }
        fields.append(("time", .string(Self.timestamp())))
        return .object(fields)
    }

    /// A job's counts as `batchFinished` and `outputsRefreshed` give them.
    static func countFields(_ counts: JobCounts) -> [(String, JSONValue)] {
        [("succeeded", .number(Double(counts.succeeded))), ("failed", .number(Double(counts.failed))),
         ("skipped", .number(Double(counts.skipped))), ("ignored", .number(Double(counts.ignored))),
         ("excluded", .number(Double(counts.excluded)))]
    }

    static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}

/// Appends events to a JSON-lines file (or standard output for `-`), one complete line per
/// write, so a reader following the file or pipe sees each event as it happens.
final class EventLog: @unchecked Sendable {
    // @unchecked: writes and `failure` are serialised by `lock`.
    private let handle: FileHandle
    private let path: String
    private let lock = NSLock()
    /// Set by the first failed write (a full disk, a closed pipe); no event is written after it.
    private var failure: String?

    init(path: String) throws {
        self.path = path
        if path == "-" {
            handle = FileHandle.standardOutput
            return
        }
        // open(2) rather than FileManager.createFile: that replaces the path atomically, which
        // would swap a named pipe a reader is waiting on for a plain file.
        let descriptor: Int32
        switch FileSystem.openForWriting(path, creating: true) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw RunError.cannotWrite(path: path, reason: error.text)
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    func write(_ event: RunEvent) {
        let line = Data((event.json.rendered() + "\n").utf8)
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil else { return }
        do {
            try handle.write(contentsOf: line)
        } catch {
            let reason = (error as NSError).localizedDescription
            failure = reason
            fputs(TerminalText.escaped("medley: cannot write events to \(path == "-" ? "standard output" : path): \(reason); no more events are written") + "\n", stderr)
        }
    }
}
