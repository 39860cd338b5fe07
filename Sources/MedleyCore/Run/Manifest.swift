import Foundation
import MedleyFilters
import MedleyKernels

/// What happened to one item, as one line of the job's manifest (SPEC §9: input, persistentID,
/// output, status, error, properties, metering).
struct ManifestRecord {
    /// `excluded`: media the job's media types or `where` left out (listed so that every media
    /// file of the ingest is accounted for, which `medley merge` checks).
    enum Status: String { case succeeded, skipped, failed, excluded }

    var job: String
    /// The input's path below its ingest root: the key that shards' manifests merge on.
    var item: String
    var input: String
    var status: Status
    var persistentID: String?
    var mediaType: String?
    var output: String?
    var bytes: Int64?
    var error: String?
    /// What the item's output could not keep (tags its container cannot hold).
    var warnings: [String] = []
    var properties: [(name: String, value: TemplateValue)] = []
    var meter: Meter?
    /// Seconds of audio written.
    var duration: Double?

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("job", .string(job)), ("item", .string(item)), ("input", .string(input)),
                                             ("status", .string(status.rawValue))]
        if let persistentID { fields.append(("persistentID", .string(persistentID))) }
        if let mediaType { fields.append(("mediaType", .string(mediaType))) }
        if let output { fields.append(("output", .string(output))) }
        if let bytes { fields.append(("bytes", .number(Double(bytes)))) }
        if let error { fields.append(("error", .string(error))) }
        if !warnings.isEmpty { fields.append(("warnings", .array(warnings.map { .string($0) }))) }
        if let duration { fields.append(("duration", .number((duration * 1000).rounded() / 1000))) }
        if let meter {
            let channels = 0..<meter.peak.count
            fields.append(("metering", .object([
                ("peakPower", .array(channels.map { .number(Self.decibels(meter.peakPower(channel: $0))) })),
                ("averagePower", .array(channels.map { .number(Self.decibels(meter.averagePower(channel: $0))) })),
            ])))
        }
        if !properties.isEmpty {
            fields.append(("properties", .object(properties.map { ($0.name, $0.value.json) })))
        }
        return .object(fields)
    }

    /// dBFS to 0.01 dB; silence (−∞) as AVAudioPlayer's floor, −160.
    static func decibels(_ value: Double) -> Double {
        value.isFinite ? (value * 100).rounded() / 100 : -160
    }
}

/// Writes a job's manifest as JSON lines while the job runs, into Medley's temporary folder, and
/// moves it into place — `<to>/.medley/manifest-<job>.jsonl`, or `…-shard-K-of-N.jsonl` for one
/// shard — when the job ends. A process killed mid-job leaves only a temporary file, which the
/// next run removes.
final class ManifestWriter: @unchecked Sendable {
    // @unchecked: appends are serialised by `lock`.
    let path: String
    private let temporary: String
    private let handle: FileHandle
    private let lock = NSLock()
    /// The first write that failed; nothing is appended after it.
    private var writeFailure: String?

    init(exportRoot: String, job: String, shard: (index: Int, count: Int)?) throws {
        let folder = exportRoot + "/.medley"
        let name = "manifest-" + Self.fileSafe(job) + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".jsonl"
        path = folder + "/" + name
        temporary = folder + "/tmp/\(getpid())-" + name
        try FileManager.default.createDirectory(atPath: folder + "/tmp", withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw RunError.cannotWrite(path: temporary, reason: String(cString: strerror(errno)))
        }
        self.handle = handle
    }

    func append(_ record: ManifestRecord) {
        append(line: record.json.rendered())
    }

    /// Appends a line already rendered (an unchanged item's line from the run state).
    func append(line: String) {
        let line = line + "\n"
        lock.lock()
        defer { lock.unlock() }
        guard writeFailure == nil else { return }
        // FileHandle.write(_:) traps on a failed write (a full disk); the throwing form lets the job report it.
        do {
            try handle.write(contentsOf: Data(line.utf8))
        } catch {
            writeFailure = (error as NSError).localizedDescription
        }
    }

    /// Flushes the file to disk and renames it into place; a manifest that could not be written whole is
    /// removed and reported instead.
    func finish() throws {
        lock.lock()
        defer { lock.unlock() }
        if let writeFailure {
            try? handle.close()
            unlink(temporary)
            throw RunError.cannotWrite(path: path, reason: writeFailure)
        }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary, path) == 0 else {
            throw RunError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// A job name as a file name: letters, digits, `.`, `_` and `-`; anything else becomes `_`.
    static func fileSafe(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let safe = String(name.map { allowed.contains($0) ? $0 : "_" })
        return safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe
    }
}
