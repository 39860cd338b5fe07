import Foundation

/// Files that changed in watched folders and are not taken yet, and when each is complete:
/// closed after writing or moved in (at once, unless empty), or — for writers that never close,
/// and empty files — once its size and modification time have stayed the same for the settle time. A file written again
/// before it is taken waits again; a file deleted or moved away is forgotten.
///
/// Pure bookkeeping (times are passed in, the file's state is asked through a function), so the
/// rules are tested without folders or clocks. Not thread-safe: `FolderWatcher` guards it.
struct Arrivals {
    /// What is known of one file not taken yet.
    struct Pending: Equatable {
        /// Closed after writing or moved in since the last write.
        var complete: Bool
        /// The size and modification time last seen, and since when they have been so (seconds).
        var seen: FileState?
        var stableSince: Double
    }

    /// A file's size and modification time (nanoseconds).
    struct FileState: Equatable {
        let size: Int64
        let modified: Int64
    }

    let settle: Double
    private(set) var pending: [String: Pending] = [:]

    init(settle: Double) { self.settle = settle }

    var isEmpty: Bool { pending.isEmpty }

    /// Written to (created, modified): not complete until closed, moved in, or settled.
    mutating func written(_ path: String, at now: Double) {
        pending[path] = Pending(complete: false, seen: nil, stableSince: now)
    }

    /// Closed after writing, or moved in: complete now (unless written again before it is taken).
    mutating func completed(_ path: String) {
        pending[path] = Pending(complete: true, seen: nil, stableSince: 0)
    }

    /// Its times or permissions changed (touch, chmod): taken like a file closed after writing,
    /// unless it is still being written (then it waits as it did).
    mutating func touched(_ path: String) {
        if pending[path] == nil { completed(path) }
    }

    /// Deleted or moved away: forgotten, with everything below it when it was a folder.
    mutating func gone(_ path: String) {
        pending[path] = nil
        let prefix = path + "/"
        for key in pending.keys where key.hasPrefix(prefix) { pending[key] = nil }
    }

    /// The files complete at `now`, in byte-wise order of path, removed from the pending set.
    /// `state` gives a file's size and time, nil when it is no longer a file (then it is forgotten).
    mutating func take(at now: Double, state: (String) -> FileState?) -> [String] {
        var taken: [String] = []
        for (path, entry) in pending {
            guard let current = state(path) else {
                pending[path] = nil
                continue
            }
            // An empty file closed (made by one call, written by the next) is not taken at once:
            // it waits for writes, or for the settle time.
            if entry.complete, current.size > 0 {
                taken.append(path)
                continue
            }
            if current != entry.seen {
                pending[path] = Pending(complete: false, seen: current, stableSince: max(now, entry.stableSince))
            } else if now - entry.stableSince >= settle {
                taken.append(path)
            }
        }
        for path in taken { pending[path] = nil }
        return taken.sorted { FileEnumerator.precedesByteWise(Array($0.utf8), Array($1.utf8)) }
    }
}
