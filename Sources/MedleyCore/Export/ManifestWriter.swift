import Foundation
import MedleySystem

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
    private let file: AtomicFile
    private let lock = NSLock()
    private var failure: MediaError?
    private var closed = false

    init(root: ExportRoot, job: String, shard: (index: Int, count: Int)?) throws {
        name = Self.fileName(job: job, shard: shard)
        path = root.path + "/" + ExportRoot.folderName + "/" + name
        realPath = root.medley.realPath + "/" + name
        self.root = root
        do {
            file = try AtomicFile(in: root, suffix: "-" + name, open: true)
        } catch let failure as FileSystemFailure {
            throw RunError.cannotWrite(path: path, reason: failure.reason)
        }
    }

    static func fileName(job: String, shard: (index: Int, count: Int)?) -> String {
        "manifest-" + fileSafe(job) + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".jsonl"
    }

    /// Appends one rendered line; the system's failure (its errno, its words) the first time a line
    /// cannot be written, else nil.
    @discardableResult
    func append(line: String) -> MediaError? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, !closed else { return nil }
        guard let code = file.write(Array((line + "\n").utf8)) else { return nil }
        failure = MediaError.system("write", errno: code, path: path)
        return failure
    }

    /// Flushes the file to disk and renames it into place; throws when any line could not be
    /// written (the temporary file is removed: an incomplete manifest must not look complete).
    func finish() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        if failure == nil, let code = file.sync() { failure = MediaError.system("sync", errno: code, path: path) }
        do {
            if let failure { throw RunError.cannotWrite(path: path, reason: failure.message) }
            do {
                try file.commit(in: root.medley, as: name)
            } catch let failure as FileSystemFailure {
                throw RunError.cannotWrite(path: path, reason: failure.reason)
            }
        } catch {
            file.discard()
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
