import Foundation
import MedleyMedia

/// Watches the ingest roots of the jobs, recursively, and keeps the files that arrive until they
/// are complete (`Arrivals`). A thread of its own reads the kernel's events, so none are lost
/// while items are processed: a folder created or moved in gets its watch at once and is then
/// listed, so files put in it before the watch was added are not missed; a queue overflow asks
/// for every root to be walked again (`Outcome.rescan`).
final class FolderWatcher: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `condition`; `events` is read by the reader thread only
    // once started (adds made before it starts, and under the lock after).
    /// What the next wait brought.
    enum Outcome: Equatable {
        /// Complete files, in byte-wise order of path.
        case files([String])
        /// Events were lost: every root must be walked again (the reason, for the console and events).
        case rescan(String)
        /// Nothing is due yet.
        case nothing
    }

    private let events: FolderEvents
    private let filters: [ArrivalFilter]
    private let condition = NSCondition()
    private var arrivals: Arrivals
    private var folders: [Int32: String] = [:]
    private var watches: [String: Int32] = [:]
    private var rescanReason: String?
    private var stopped = false
    private var finished = false
    /// Problems to say (a folder that cannot be watched), taken by `takeWarnings`.
    private var warnings: [String] = []
    /// Entries whose names are not UTF-8, as their lossy paths: each asks for one walk of the roots.
    private var undecodable: Set<String> = []

    /// The folders the roots name (a file root's folder), watched from the start.
    private let roots: Set<String>

    init(filters: [ArrivalFilter], settle: Double) throws {
        events = try FolderEvents()
        self.filters = filters
        roots = Set(filters.flatMap { $0.folders.map(\.path) })
        arrivals = Arrivals(settle: settle)
    }

    /// How many folders are watched now.
    var folderCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return watches.count
    }

    /// Watches every root folder and the folders below it the jobs walk, then starts reading events.
    /// Files already there are left to the catch-up pass.
    func start() {
        condition.lock()
        for root in roots.sorted() { addTree(root, files: nil) }
        condition.unlock()
        Thread.detachNewThread { [self] in readEvents() }
    }

    /// Stops reading events (the reader thread ends within its wait slice).
    func stop() {
        condition.lock()
        stopped = true
        while !finished { condition.wait() }
        condition.unlock()
    }

    /// What a folder watch could not do since the last call (each said once).
    func takeWarnings() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        let taken = warnings
        warnings = []
        return taken
    }

    /// Whether files are waiting to be complete.
    var hasPending: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !arrivals.isEmpty
    }

    /// Waits up to `seconds` for files to be complete, or for a rescan to be needed.
    func next(waiting seconds: Double) -> Outcome {
        let deadline = Self.now() + max(0, seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let reason = rescanReason {
                rescanReason = nil
                // Whatever was pending is found by the walk.
                arrivals = Arrivals(settle: arrivals.settle)
                return .rescan(reason)
            }
            let due = arrivals.take(at: Self.now(), state: Self.state)
            if !due.isEmpty { return .files(due) }
            let now = Self.now()
            if now >= deadline || stopped { return .nothing }
            // Pending files are looked at again every tenth of a second (their settle time runs without events).
            let slice = arrivals.isEmpty ? deadline - now : min(deadline - now, 0.1)
            _ = condition.wait(until: Date(timeIntervalSinceNow: slice))
        }
    }

    // MARK: the reader thread

    private func readEvents() {
        while true {
            condition.lock()
            let stopping = stopped
            condition.unlock()
            if stopping { break }
            let batch: [FolderEvents.Event]
            do {
                batch = try events.read(waiting: 200)
            } catch {
                condition.lock()
                warnings.append("cannot read folder events: \(error); the ingest roots are walked once more, but no later arrival is seen: start the watch again")
                rescanReason = "cannot read folder events: \(error)"
                condition.broadcast()
                condition.unlock()
                // The descriptor is broken: read no more (the roots are walked on each rescan only).
                break
            }
            guard !batch.isEmpty else { continue }
            condition.lock()
            for event in batch { handle(event) }
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// One event, under the lock.
    private func handle(_ event: FolderEvents.Event) {
        let change = event.change
        if change.contains(.overflow) {
            rescanReason = "the kernel's queue of folder events overflowed"
            // Folders made meanwhile may have no watch yet.
            for root in roots.sorted() { addTree(root, files: nil) }
            return
        }
        guard let folder = folders[event.watch] else { return }
        if event.name.isEmpty {
            if change.contains(.gone) {
                forget(folder: folder, watch: event.watch)
                if roots.contains(folder) {
                    warnings.append("the ingest root \(folder) was deleted or moved away: it is no longer watched "
                                    + "(start the watch again once it is back)")
                }
            }
            return
        }
        // Hidden entries are never ingested (and `.medley` holds Medley's own temporaries).
        if event.name.hasPrefix(".") { return }
        let path = FileSystem.join(folder, event.name)
        guard event.nameIsUTF8 else {
            // No path can be made of such a name: the walk reports it, as `run` does (an item failure
            // naming it), rather than the watch dropping it. Once per name, not per write to it.
            if !change.contains(.movedOut), !change.contains(.deleted), undecodable.insert(path).inserted {
                rescanReason = "\(path) has a name that is not valid UTF-8"
            }
            return
        }
        if change.contains(.folder) {
            if change.contains(.movedOut) || change.contains(.deleted) {
                forgetTree(path)
                arrivals.gone(path)
            }
            if change.contains(.created) || change.contains(.movedIn),
               filters.contains(where: { $0.descends(into: path) }) {
                // Moved in: its files are complete. Made here: its files may still be being written.
                addTree(path, files: change.contains(.movedIn) ? .complete : .settle)
            }
            return
        }
        let now = Self.now()
        if change.contains(.movedOut) || change.contains(.deleted) { arrivals.gone(path) }
        if change.contains(.created) || change.contains(.modified) { arrivals.written(path, at: now) }
        if change.contains(.closed) || change.contains(.movedIn) { arrivals.completed(path) }
        if change == .attributes { arrivals.touched(path) }
    }

    /// How files found while a folder is added are taken.
    private enum Found { case complete, settle }

    /// Watches `root` and every folder below it the jobs walk (without following links), then lists
    /// each: files found are noted (`files`), or left alone when nil. Iterative: no depth limit.
    private func addTree(_ root: String, files: Found?) {
        var stack = [root]
        while let folder = stack.popLast() {
            do {
                let watch = try events.add(folder: folder)
                if let old = folders[watch], old != folder { watches[old] = nil }
                folders[watch] = folder
                watches[folder] = watch
            } catch {
                warnings.append("cannot watch \(folder): \(error); files put there are found only when the roots are walked again")
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = FileSystem.join(folder, name)
                guard case .success(let info) = FileSystem.linkStatus(of: path) else { continue }
                switch (info.kind, info.isLink) {
                case (.directory, _):
                    if filters.contains(where: { $0.descends(into: path) }) { stack.append(path) }
                case (.file, _), (_, true):
                    switch files {
                    case .complete?: arrivals.completed(path)
                    case .settle?: arrivals.written(path, at: Self.now())
                    case nil: break
                    }
                default: break
                }
            }
        }
    }

    private func forget(folder: String, watch: Int32) {
        if folders[watch] == folder { folders[watch] = nil }
        if watches[folder] == watch { watches[folder] = nil }
    }

    /// A folder moved away or deleted: its watches no longer name paths under the roots.
    private func forgetTree(_ path: String) {
        let prefix = path + "/"
        for (folder, watch) in watches where folder == path || folder.hasPrefix(prefix) { forget(folder: folder, watch: watch) }
    }

    // MARK: clock and files

    /// Seconds on a clock that only goes forward.
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// A file's size and modification time, or nil when it is not a file (or a link to one) now.
    static func state(_ path: String) -> Arrivals.FileState? {
        guard case .success(let info) = FileSystem.status(of: path), info.kind == .file else { return nil }
        return Arrivals.FileState(size: info.size,
                                  modified: info.modifiedTime.seconds &* 1_000_000_000 &+ info.modifiedTime.nanoseconds)
    }
}
