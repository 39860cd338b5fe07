import Foundation
import MedleySystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleySystem

/// An export root as one medley process writes it: the root and its `.medley/` folder held open
/// (`SafeFolder`: no link under the root is ever followed), a lock that keeps a second run off the
/// same root (`claim`), and this process's share of `.medley/tmp/`.
///
/// Temporary files. Each process that writes picks a random run id and holds an `flock`ed lock
/// file `tmp/run-<id>.lock` for as long as it runs; its temporary files are named `<id>-…`
/// (created with `O_EXCL`, so no two processes ever share one, whatever host or PID namespace they
/// run in). At start, a process removes what provably belongs to runs that are over: the files of
/// a run whose lock it can take (`LOCK_EX|LOCK_NB` succeeds only when the holder is dead — locks
/// die with their process), and files whose run has no lock file at all (a run creates its lock
/// before its first file and removes it after its last). It never judges by process id, which
/// means nothing across hosts and PID namespaces (every pod's medley is PID 1).
///
/// Locks are `flock(2)` locks: they hold between processes, containers and PID namespaces of one
/// host. On NFS, Linux emulates `flock` with POSIX byte-range locks (NLM or NFSv4 locking): they
/// hold across clients only where the server supports locking.
final class ExportRoot: @unchecked Sendable {
    // @unchecked: `counter` is guarded by `lock`; the rest is set before the run's items start.
    static let folderName = ".medley"

    /// The export root as the pipeline names it.
    let path: String
    let root: SafeFolder
    /// `<to>/.medley`, a real folder.
    let medley: SafeFolder
    /// `<to>/.medley/tmp`, once `prepareTemporaryArea` has run.
    private(set) var temporary: SafeFolder?
    /// This process's run id (16 hex digits from the system's random source).
    let runID = String(format: "%016llx", UInt64.random(in: 1...UInt64.max))
    private var runLock: Int32 = -1
    private var rootLocks: [Int32] = []
    private let lock = NSLock()
    private var counter = 0

    private init(path: String, root: SafeFolder, medley: SafeFolder) {
        self.path = path
        self.root = root
        self.medley = medley
    }

    deinit {
        finish()
        rootLocks.forEach { Descriptor.close($0) }
    }

    /// Opens (creating) the export root and its `.medley/` folder for writing.
    static func open(_ path: String) throws -> ExportRoot {
        do {
            let root = try SafeFolder.open(path, creating: true)
            let medley = try root.folder(folderName, creating: true)
            return ExportRoot(path: path, root: root, medley: medley)
        } catch let failure as FileSystemFailure {
            throw startFailure(failure, root: path)
        }
    }

    /// `<to>/.medley` for reading only (a dry run), or nil when it does not exist; never creates
    /// anything, and refuses a `.medley` that is a link.
    static func inspect(_ path: String) throws -> SafeFolder? {
        do {
            guard let root = try? SafeFolder.open(path, creating: false), root.kind(of: folderName) != nil else { return nil }
            return try root.folder(folderName, creating: false)
        } catch let failure as FileSystemFailure {
            throw startFailure(failure, root: path)
        }
    }

    /// A problem with the export root that keeps a run from starting (exit 2: nothing was run).
    static func startFailure(_ failure: FileSystemFailure, root: String) -> RunError {
        switch failure.kind {
        case .link:
            return .cannotStart("\(failure.path) is a symbolic link; Medley keeps its own files only in real folders inside "
                                + "the export root and never follows a link there — remove the link and run again")
        case .notFolder:
            return .cannotStart("\(failure.path) is not a folder; Medley keeps its own files there — move it away and run again")
        case .notFile:
            return .cannotStart("\(failure.path) is not a regular file of its own (a folder, a device, or a file with other "
                                + "hard links); Medley keeps its own data there — move it away and run again")
        case .system(let code):
            // A read-only file system is the export root's as a whole, whichever file met it first.
            return .cannotStart("cannot write to \(code == EROFS ? root : failure.path): \(failure.reason)")
        }
    }

    // MARK: the root lock

    /// Keeps other runs off this export root for as long as this process runs: `.medley/lock`,
    /// exclusive for an unsharded run or a merge, shared by shards, each of which also holds
    /// `.medley/lock-shard-K-of-N` exclusively. Another process holding what this one needs makes
    /// it fail at once, naming the holder (its pid, host and command are written in the lock
    /// file), or with `wait`, blocks until the holder ends (`waiting` says so first).
    func claim(shard: (index: Int, count: Int)?, wait: Bool, command: String, waiting: (String) -> Void) throws {
        let global = try lockFile("lock")
        try acquire(global, name: "lock", exclusive: shard == nil, wait: wait, waiting: waiting)
        guard let shard else {
            record(command, in: global)
            return
        }
        let own = try lockFile("lock-shard-\(shard.index)-of-\(shard.count)")
        try acquire(own, name: "lock-shard-\(shard.index)-of-\(shard.count)", exclusive: true, wait: wait, waiting: waiting)
        record(command, in: own)
    }

    private func lockFile(_ name: String) throws -> Int32 {
        do {
            let descriptor = try medley.openFile(name, flags: O_RDWR | O_CREAT)
            rootLocks.append(descriptor)
            // Medley writes its pid into the lock: never into a file that is also elsewhere.
            guard let info = Descriptor.status(descriptor), info.kind == .file, info.linkCount == 1 else {
                throw FileSystemFailure(path: medley.child(name), kind: .notFile)
            }
            return descriptor
        } catch let failure as FileSystemFailure {
            throw Self.startFailure(failure, root: path)
        }
    }

    private func acquire(_ descriptor: Int32, name: String, exclusive: Bool, wait: Bool, waiting: (String) -> Void) throws {
        guard let refused = Descriptor.lock(descriptor, exclusive: exclusive, wait: false) else { return }
        guard refused == EWOULDBLOCK else { throw lockFailure(name, refused) }
        let other = holder(descriptor, name: name)
        guard wait else {
            throw RunError.cannotStart("\(other) is writing to \(path); wait for it or use another export root")
        }
        waiting("medley: waiting for \(other) to finish writing to \(path)")
        if let failed = Descriptor.lock(descriptor, exclusive: exclusive, wait: true) { throw lockFailure(name, failed) }
    }

    private func lockFailure(_ name: String, _ code: Int32) -> RunError {
        .cannotStart("cannot lock \(medley.child(name)): \(String(cString: strerror(code))) (the file system must support "
                     + "flock; on NFS that needs the server's locking)")
    }

    /// Who holds `name`: an exclusive holder wrote itself into the file; a shared `.medley/lock`
    /// is held by shards, each written in its own lock file.
    private func holder(_ descriptor: Int32, name: String) -> String {
        if name == "lock", Descriptor.isUnlocked(descriptor, exclusive: false) {
            for shardLock in medley.names().sorted() where shardLock.hasPrefix("lock-shard-") {
                guard let other = try? medley.openFile(shardLock, flags: O_RDWR) else { continue }
                defer { Descriptor.close(other) }
                if Descriptor.isUnlocked(other, exclusive: true) { continue }
                return Self.describe(Descriptor.readAll(other))
            }
            return "another medley run"
        }
        return Self.describe(Descriptor.readAll(descriptor))
    }

    /// "another medley run (pid 12 on host-a)" from a lock file's "12 host-a run" line.
    static func describe(_ content: String) -> String {
        let parts = content.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, Int32(parts[0]) != nil else { return "another medley run" }
        return "another medley \(parts[2]) (pid \(parts[0]) on \(parts[1]))"
    }

    private func record(_ command: String, in descriptor: Int32) {
        _ = Descriptor.replaceContent(descriptor, with: Array("\(getpid()) \(Self.hostName) \(command)\n".utf8))
    }

    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown-host" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty || name.contains(" ") ? "unknown-host" : name
    }()

    // MARK: the run state

    /// Checks, before anything is written, that Medley's own files in `.medley` are what they
    /// should be: `tmp` a real folder, the lock files and the run state (`checkRunState`) regular
    /// files. A link planted at any of them stops the run with nothing written.
    func checkOwnFiles(runState name: String, shard: (index: Int, count: Int)?) throws {
        if let kind = medley.kind(of: "tmp"), kind != S_IFDIR {
            throw Self.startFailure(FileSystemFailure(path: medley.child("tmp"), kind: kind == S_IFLNK ? .link : .notFolder), root: path)
        }
        for lock in ["lock"] + (shard.map { ["lock-shard-\($0.index)-of-\($0.count)"] } ?? []) {
            guard let kind = medley.kind(of: lock), kind != S_IFREG else { continue }
            throw Self.startFailure(FileSystemFailure(path: medley.child(lock), kind: kind == S_IFLNK ? .link : .notFile), root: path)
        }
        try Self.checkRunState(named: name, in: medley, root: path)
    }


    /// The run state's database and its -wal, -shm and -journal files must be regular files of
    /// their own in the real `.medley` folder: SQLite creates its table in whatever file it opens
    /// and switches it to WAL, so a link (or a hard link) planted there would turn that onto a
    /// file outside the root.
    static func checkRunState(named name: String, in folder: SafeFolder, root: String) throws {
        for file in [name, name + "-wal", name + "-shm", name + "-journal"] {
            guard let info = folder.status(of: file), info.kind != .file || info.linkCount != 1 else { continue }
            let kind: FileSystemFailure.Kind = info.isLink ? .link : .notFile
            throw startFailure(FileSystemFailure(path: folder.child(file), kind: kind), root: root)
        }
    }

    // MARK: temporary files

    /// Creates `.medley/tmp/` and this process's lock in it, then removes what runs that are over
    /// left there.
    func prepareTemporaryArea(command: String) throws {
        let name = "run-\(runID).lock"
        do {
            // A run that finishes removes an empty tmp/ folder: if that happens between our mkdir
            // and our create, make it again.
            for _ in 0..<16 {
                let folder = try medley.folder("tmp", creating: true)
                let descriptor: Int32
                do {
                    descriptor = try folder.openFile(name, flags: O_RDWR | O_CREAT | O_EXCL)
                } catch let failure as FileSystemFailure where failure.errorCode == ENOENT {
                    continue
                }
                // Uncontended but for a cleaner that found the file before this lock was taken:
                // it may have removed the name, so the lock must be on the file still named so.
                _ = Descriptor.lock(descriptor, exclusive: true, wait: true)
                guard Self.sameFile(descriptor, folder, name) else {
                    Descriptor.close(descriptor)
                    continue
                }
                record(command, in: descriptor)
                runLock = descriptor
                temporary = folder
                removeLeftovers(folder)
                return
            }
            throw FileSystemFailure(path: medley.child("tmp"), kind: .system(ENOENT))
        } catch let failure as FileSystemFailure {
            throw Self.startFailure(failure, root: path)
        }
    }

    /// Whether `descriptor` is the file `name` in `folder` (same device and inode).
    static func sameFile(_ descriptor: Int32, _ folder: SafeFolder, _ name: String) -> Bool {
        guard let held = Descriptor.status(descriptor), let named = folder.status(of: name) else { return false }
        return held.identity == named.identity
    }

    /// The run id a temporary file belongs to: the part before its first "-" (a tag writer's
    /// sibling file starts with "."), or nil for names not made by Medley.
    static func owner(of name: String) -> String? {
        let bare = name.hasPrefix(".") ? name.dropFirst() : Substring(name)
        guard let dash = bare.firstIndex(of: "-"), dash != bare.startIndex, !bare.hasPrefix("run-") else { return nil }
        return String(bare[..<dash])
    }

    private func removeLeftovers(_ folder: SafeFolder) {
        let names = folder.names()
        for name in names where name.hasPrefix("run-") && name.hasSuffix(".lock") && name != "run-\(runID).lock" {
            let run = String(name.dropFirst(4).dropLast(5))
            let descriptor: Int32
            do {
                descriptor = try folder.openFile(name, flags: O_RDWR)
            } catch {
                // A link by that name is no run's lock: remove the link itself.
                if (error as? FileSystemFailure)?.kind == .link { folder.remove(name) }
                continue
            }
            defer { Descriptor.close(descriptor) }
            // Taken: its run is over (a live run holds it). Then its files go, and its lock last.
            guard Descriptor.lock(descriptor, exclusive: true, wait: false) == nil, Self.sameFile(descriptor, folder, name) else { continue }
            for file in names where Self.owner(of: file) == run { folder.remove(file) }
            folder.remove(name)
        }
        // Files of a run without a lock file: looked up now, after the listing, because a run's
        // lock exists from before its first file until after its last.
        for name in folder.names() {
            guard let run = Self.owner(of: name), run != runID, folder.kind(of: "run-\(run).lock") == nil else { continue }
            folder.remove(name)
        }
    }

    /// A new, empty temporary file of this process, `<run id>-<n><suffix>` (created with O_EXCL).
    /// `keepOpen`: its descriptor is returned, open for writing.
    func createTemporary(suffix: String, keepOpen: Bool = false) throws -> (file: TemporaryFile, descriptor: Int32?) {
        guard let folder = temporary else { throw FileSystemFailure(path: medley.child("tmp"), kind: .system(ENOENT)) }
        while true {
            lock.lock()
            counter += 1
            let name = "\(runID)-\(counter)\(suffix)"
            lock.unlock()
            do {
                let descriptor = try folder.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL)
                let file = TemporaryFile(name: name, path: folder.realPath + "/" + name)
                if keepOpen { return (file, descriptor) }
                Descriptor.close(descriptor)
                return (file, nil)
            } catch let failure as FileSystemFailure where failure.errorCode == EEXIST {
                continue
            }
        }
    }

    /// Removes a temporary file of this process.
    func discard(_ file: TemporaryFile) {
        temporary?.remove(file.name)
    }

    /// The size of a temporary file (it must be a regular file, not a link).
    func size(of file: TemporaryFile) throws -> Int64 {
        guard let folder = temporary, let info = folder.status(of: file.name), info.kind == .file else {
            throw ItemFailure(.output, "the encoder left no file")
        }
        return info.size
    }

    /// Moves a finished temporary file to `name` under the root, creating its folders; every
    /// folder on the way must be a real one (a link there is refused, before anything is made
    /// through it).
    func place(_ file: TemporaryFile, at name: OutputName) throws {
        guard let folder = temporary else { throw FileSystemFailure(path: medley.child("tmp"), kind: .system(ENOENT)) }
        guard let last = name.components.last else { throw ItemFailure(.output, "an empty output name") }
        let destination = try root.folder(at: Array(name.components.dropLast()), creating: true)
        try folder.move(file.name, to: destination, as: last)
    }

    /// Writes `bytes` to `relative` under the root atomically: a temporary file of this process,
    /// synced, then renamed into place (every folder on the way a real one).
    func writeFile(_ relative: String, _ bytes: [UInt8]) throws {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = components.last else { throw FileSystemFailure(path: path, kind: .notFile) }
        try writeFile(in: root.folder(at: Array(components.dropLast()), creating: true), as: last, bytes)
    }

    /// Writes `bytes` to `name` in `folder` (under the root) atomically.
    func writeFile(in folder: SafeFolder, as name: String, _ bytes: [UInt8]) throws {
        let file = try AtomicFile(in: self, suffix: "-" + name, open: true)
        do {
            if let failed = file.write(bytes) ?? file.sync() { throw FileSystemFailure(path: folder.child(name), kind: .system(failed)) }
            try file.commit(in: folder, as: name)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Moves a finished temporary file to `name` in `folder` (a folder under the root).
    func place(_ file: TemporaryFile, in folder: SafeFolder, as name: String) throws {
        guard let temporary else { throw FileSystemFailure(path: medley.child("tmp"), kind: .system(ENOENT)) }
        try temporary.move(file.name, to: folder, as: name)
    }

    /// Writes a file of Medley's own, `.medley/<name>`, atomically.
    func writeOwnFile(_ name: String, _ bytes: [UInt8]) throws {
        try writeFile(in: medley, as: name, bytes)
    }

    /// A folder under the root, created if needed, every component a real folder.
    func folder(_ relative: String) throws -> SafeFolder {
        try root.folder(at: relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init), creating: true)
    }

    /// `destination` (an absolute path under the root, as the runner builds it) relative to the root.
    func relative(_ destination: String) throws -> String {
        guard destination.hasPrefix(path + "/") else {
            throw ItemFailure(.output, "refused to write \(destination): it is not under the export root \(path)")
        }
        return String(destination.dropFirst(path.count + 1))
    }

    /// Ends this process's use of the temporary area: its lock goes, and `tmp/` too when empty.
    func finish() {
        guard let folder = temporary, runLock >= 0 else { return }
        for name in folder.names() where Self.owner(of: name) == runID { folder.remove(name) }
        folder.remove("run-\(runID).lock")
        Descriptor.close(runLock)
        runLock = -1
        temporary = nil
        medley.removeFolder("tmp")
    }
}

extension ExportRoot {
    /// Opens the export roots a run writes (`export.to` of its jobs), before any job starts: every
    /// one checked for Medley's own files, then locked against other runs in one order (so two
    /// waiting runs cannot deadlock), then its temporary area made and cleaned. Two paths naming
    /// one folder share its root. A root that cannot be used stops the run here, with nothing
    /// written, and the roots opened so far are let go. `waiting` is told when a lock is held by
    /// another run (`wait`) and again with nil once every lock is held.
    static func openForRun(_ paths: [String], shard: (index: Int, count: Int)?, wait: Bool, command: String,
                           waiting: (String?) -> Void) throws -> [String: ExportRoot] {
        var roots: [String: ExportRoot] = [:]
        var byRealPath: [String: ExportRoot] = [:]
        do {
            for path in Set(paths).sorted() {
                let root = try open(path)
                let real = root.root.realPath
                if byRealPath[real] == nil { byRealPath[real] = root }
                roots[path] = byRealPath[real]
            }
            let ordered = byRealPath.sorted { $0.key < $1.key }.map(\.value)
            let runState = Sharding.runStateName(shard)
            for root in ordered { try root.checkOwnFiles(runState: runState, shard: shard) }
            for root in ordered { try root.claim(shard: shard, wait: wait, command: command) { waiting($0) } }
            waiting(nil)
            for root in ordered { try root.prepareTemporaryArea(command: command) }
        } catch {
            byRealPath.values.forEach { $0.finish() }
            throw error
        }
        return roots
    }
}


/// A temporary file of this process: its name in `.medley/tmp/` and a path to it without links.
struct TemporaryFile: Sendable {
    let name: String
    let path: String
}

/// Whether a failure's cause is a full disk — ENOSPC, EDQUOT or SQLITE_FULL, kept in the error
/// from the adapter that met it — and the system's words for it ("No space left on device", or
/// "Disk quota exceeded" for EDQUOT). Decided by case: words that merely mention a full disk are not one.
enum DiskFull {
    static func words(for error: Error) -> String? {
        guard let classified = error as? ClassifiedError, classified.failureClass == .diskFull else { return nil }
        return String(cString: strerror(classified.systemErrno == EDQUOT ? EDQUOT : ENOSPC))
    }
}


/// Tells a job's own outputs from its inputs when its export root lies inside an ingest root
/// (`from: [photos]`, `to: photos/sepia`). Paths are compared as written first and, where the
/// export root is inside an ingest root, by their real paths too, so no symbolic link — to the
/// ingest root or to the export root — makes Medley take its outputs for new inputs.
final class OwnOutputs {
    // Used by the one thread that enumerates (its cache is not shared).
    let exportRoot: String
    /// The export root with links resolved (as far as it exists).
    let realExportRoot: String
    /// Whether files can be inside the export root under a path that does not say so.
    let mustResolve: Bool
    /// Files come folder by folder: each folder is resolved once.
    private var lastFolder: String?
    private var lastFolderIsOwn = false

    init(exportRoot: String, ingestRoots: [String]) {
        self.exportRoot = exportRoot
        realExportRoot = FileSystem.realPath(exportRoot)
        let real = realExportRoot
        mustResolve = ingestRoots.contains { root in
            guard case .success(let plan) = FileEnumerator.RootPlan.make(root),
                  let folder = FileSystem.resolvedPath(plan.location) else { return false }
            return FileSystem.isWithin(real, directory: folder)
        }
    }

    func contains(_ path: String) -> Bool {
        if FileSystem.isWithin(path, directory: exportRoot) { return true }
        guard mustResolve else { return false }
        // A file that is itself a link is judged by where it leads.
        if FileSystem.isLink(path) {
            guard let real = FileSystem.resolvedPath(path) else { return false }
            return FileSystem.isWithin(real, directory: realExportRoot)
        }
        let folder = FileSystem.parent(of: path)
        if folder != lastFolder {
            lastFolder = folder
            lastFolderIsOwn = FileSystem.resolvedPath(folder).map { FileSystem.isWithin($0, directory: realExportRoot) } ?? false
        }
        return lastFolderIsOwn
    }
}
