import Foundation
import MedleyFilters
import MedleyKernels

/// What happened to one item, as one line of the job's manifest (SPEC §9: input, persistentID,
/// output, status, error, properties, metering).
struct ManifestRecord {
    /// `excluded`: media the job's media types or `where` left out (listed so that every media
    /// file of the ingest is accounted for, which `medley merge` checks). `ignored`: a file that is
    /// not media, or media of a kind the job does not take, named with the reason.
    enum Status: String { case succeeded, skipped, failed, excluded, ignored }

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

/// Writes a job's manifest as JSON lines while the job runs, into a temporary file of this
/// process, and moves it into place — `<to>/.medley/manifest-<job>.jsonl`, or
/// `…-shard-K-of-N.jsonl` for one shard — when the job ends. A process killed mid-job leaves only
/// a temporary file, which the next run removes. A line that cannot be written (a full disk)
/// is reported, never a crash; the manifest is then not put in place, since it would lack items.
final class ManifestWriter: @unchecked Sendable {
    // @unchecked: appends and `failure` are serialised by `lock`.
    /// The manifest's path as the pipeline spells the export root (for messages and records).
    let path: String
    /// The same file by a path without links (to read it back once finished).
    let realPath: String
    private let name: String
    private let root: ExportRoot
    private let temporary: TemporaryFile
    private let descriptor: Int32
    private let lock = NSLock()
    private var failure: String?
    private var closed = false

    init(root: ExportRoot, job: String, shard: (index: Int, count: Int)?) throws {
        name = Self.fileName(job: job, shard: shard)
        path = root.path + "/" + ExportRoot.folderName + "/" + name
        realPath = root.medley.realPath + "/" + name
        self.root = root
        do {
            let (file, descriptor) = try root.createTemporary(suffix: "-" + name, keepOpen: true)
            guard let descriptor else { throw FileSystemFailure(path: file.path, kind: .system(EBADF)) }
            temporary = file
            self.descriptor = descriptor
        } catch let failure as FileSystemFailure {
            throw RunError.cannotWrite(path: path, reason: failure.reason)
        }
    }

    deinit {
        if !closed {
            close(descriptor)
            root.discard(temporary)
        }
    }

    static func fileName(job: String, shard: (index: Int, count: Int)?) -> String {
        "manifest-" + fileSafe(job) + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".jsonl"
    }

    /// Appends one record; the system's reason the first time a line cannot be written, else nil.
    @discardableResult
    func append(_ record: ManifestRecord) -> String? {
        append(line: record.json.rendered())
    }

    /// Appends a line already rendered (an unchanged item's line from the run state).
    @discardableResult
    func append(line: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, !closed else { return nil }
        guard let code = Descriptor.write(descriptor, Array((line + "\n").utf8)) else { return nil }
        failure = String(cString: strerror(code))
        return failure
    }

    /// Flushes the file to disk and renames it into place; throws when any line could not be
    /// written (the temporary file is removed: an incomplete manifest must not look complete).
    func finish() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        if failure == nil, let code = Descriptor.sync(descriptor) { failure = String(cString: strerror(code)) }
        close(descriptor)
        do {
            if let failure { throw RunError.cannotWrite(path: path, reason: failure) }
            do {
                try root.place(own: temporary, as: name)
            } catch let failure as FileSystemFailure {
                throw RunError.cannotWrite(path: path, reason: failure.reason)
            }
        } catch {
            root.discard(temporary)
            throw error
        }
    }

    /// A job name as a file name: letters, digits, `.`, `_` and `-`; anything else becomes `_`.
    static func fileSafe(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let safe = String(name.map { allowed.contains($0) ? $0 : "_" })
        return safe.hasPrefix(".") ? "_" + safe.dropFirst() : safe
    }
}
