
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MedleyMedia

/// The process's resource limits (`ulimit -n`, `ulimit -v`, `ulimit -d`) and what they leave for items.
///
/// Running out of either is not an item's ordinary failure: libdispatch crashes the process when its worker monitor
/// cannot open `/proc/<tid>/stat` (EMFILE), and glib recurses until the stack overflows when it cannot allocate the
/// text of its own out-of-memory message. So a run keeps below both limits rather than meeting them: it runs no more
/// items at once than the descriptors allow, and admits image items against a memory budget (`MemoryBudget`).
public enum ResourceLimits {
    // MARK: descriptors

    /// The soft limit on open files, or nil when unlimited.
    public static var descriptorLimit: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return limit.rlim_cur > rlim_t(Int.max) ? nil : Int(limit.rlim_cur)
    }

    /// "the limit on open files (ulimit -n) is 24", for messages.
    public static var descriptorLimitText: String {
        descriptorLimit.map { "the limit on open files (ulimit -n) is \($0)" } ?? "no limit on open files is set"
    }

    /// Descriptors one item may hold at once: its input (Medley's own, and libvips' or FFmpeg's reopening of it),
    /// the temporary output, and one more for a scratch frame, a libvips temporary file or a tag rewrite
    /// (counted on image, audio and movie jobs: three at most for images).
    public static let descriptorsPerItem = 4
    /// What a job opens besides its items once the run has started: the export root, `.medley` and `tmp`
    /// held open (ExportRoot), the root's lock and the run's lock, the run state (database, WAL, shared
    /// memory), the manifest, a summary or report file, libdispatch's signal, timer, event and poll
    /// descriptors (counted: 15 on a running image job).
    public static let descriptorsPerJob = 15
    /// Kept free at all times: libdispatch crashes the process when its worker monitor cannot open a `/proc`
    /// file, and libraries open a file now and then.
    public static let descriptorHeadroom = 2

    /// Descriptors open now (`/proc/self/fd`, or by asking each number up to the limit).
    public static func openDescriptorCount() -> Int {
        FileSystem.openDescriptorCount(askingUpTo: min(descriptorLimit ?? 4096, 65536))
    }

    /// How many items may run at once within the descriptor limit, given what is open now; with a note for the
    /// person when that is fewer than asked. Never less than one (each item then checks again before it opens
    /// anything, `checkDescriptors()`).
    public static func concurrency(requested: Int) -> (concurrency: Int, note: String?) {
        guard let limit = descriptorLimit else { return (requested, nil) }
        let free = limit - openDescriptorCount() - descriptorsPerJob - descriptorHeadroom
        let fits = max(1, free / descriptorsPerItem)
        guard fits < requested else { return (requested, nil) }
        return (fits, "medley: \(descriptorLimitText): running \(fits) item\(fits == 1 ? "" : "s") at once instead of \(requested) "
                    + "(each needs up to \(descriptorsPerItem) open files; raise it with ulimit -n to run more)")
    }

    /// Throws an item failure when the descriptors still free would not see one more item through, so the
    /// process never meets its limit.
    static func checkDescriptors() throws {
        // Counting costs a listing of /proc/self/fd per item; under a limit this high no run comes near it.
        guard let limit = descriptorLimit, limit < 1 << 16 else { return }
        let free = limit - openDescriptorCount()
        if free < descriptorsPerItem + descriptorHeadroom {
            throw ItemFailure(.limit, "not started: \(free) open files are free, an item needs up to \(descriptorsPerItem) "
                              + "besides \(descriptorHeadroom) kept free (\(descriptorLimitText))")
        }
    }
}

extension ResourceLimits {
    // MARK: memory

    /// A finite limit on the process's memory and the figure in `/proc/self/status` it is counted against.
    public struct MemoryLimit: Sendable {
        public let bytes: Int
        /// "ulimit -v" (address space) or "ulimit -d" (data).
        public let flag: String
        /// "VmSize" or "VmData".
        let field: String
    }

    /// The finite memory limits (RLIMIT_AS, RLIMIT_DATA) of this process.
    public static var memoryLimits: [MemoryLimit] {
        var limits: [MemoryLimit] = []
        for (resource, flag, field) in [(Int32(RLIMIT_AS.rawValue), "ulimit -v", "VmSize"),
                                        (Int32(RLIMIT_DATA.rawValue), "ulimit -d", "VmData")] {
            var limit = rlimit()
            guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { continue }
            limits.append(MemoryLimit(bytes: Int(clamping: limit.rlim_cur), flag: flag, field: field))
        }
        return limits
    }

    /// Settings that must precede the first threads: under a memory limit, at most two malloc arenas (glibc's
    /// default of eight per core reserves 64 MB of address space each, which alone can use `ulimit -v` up).
    public static func prepareProcess() {
        if !memoryLimits.isEmpty { ProcessMemory.limitMallocArenas(2) }
    }

    /// Bytes a `/proc/self/status` line gives ("VmSize:  638392 kB"), or nil.
    static func status(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return number.map { $0.multipliedReportingOverflow(by: 1024).overflow ? Int.max : $0 * 1024 }
        }
        return nil
    }

    /// The stack each new thread reserves (glibc takes the soft RLIMIT_STACK; 2 MB when unlimited).
    static var threadStackBytes: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 2 << 20 }
        return Int(clamping: limit.rlim_cur)
    }

    /// The malloc arenas `prepareProcess` allows, as address space reserved (64 MB each).
    static let arenaReserve = 2 * (64 << 20)
    /// Kept back for allocations no estimate sees (Swift's own, glib's, SQLite's page cache).
    static let memorySlack = 64 << 20

    /// The budget items are admitted against under the tightest memory limit, or nil when memory is unlimited:
    /// what the limit leaves beyond what the process uses now, the malloc arenas, the stacks of `threads` item
    /// threads and some slack. May be zero or less: then every item that needs memory fails with the reason.
    static func memoryBudget(threads: Int) -> MemoryBudget? {
        var best: (free: Int, limit: MemoryLimit)?
        for limit in memoryLimits {
            let used = status(limit.field) ?? 0
            let reserve = arenaReserve + memorySlack + threads * threadStackBytes
            let free = limit.bytes - used - reserve
            if best == nil || free < best?.free ?? 0 { best = (free, limit) }
        }
        return best.map { MemoryBudget(total: max(0, $0.free), limit: $0.limit) }
    }

    /// "1024 MB" (decimal, as the rest of Medley's messages).
    static func megabytes(_ bytes: Int) -> String {
        "\(Int((Double(bytes) / 1e6).rounded())) MB"
    }
}

/// Memory items may use at once under a memory limit. An item takes its estimate before it decodes and gives it
/// back when it ends; items wait their turn (first come, first served), and one that alone needs more than the
/// whole budget fails at once with the reason.
final class MemoryBudget: @unchecked Sendable {
    // @unchecked: `available`, `waiting` and `nextTicket` are guarded by `condition`.
    let total: Int
    let limit: ResourceLimits.MemoryLimit
    private var available: Int
    private var waiting: [Int] = []
    private var nextTicket = 0
    private let condition = NSCondition()

    init(total: Int, limit: ResourceLimits.MemoryLimit) {
        self.total = total
        self.limit = limit
        available = total
    }

    /// Waits until `bytes` are free, then takes them; give them back with `release`. Throws when `bytes` is more
    /// than the whole budget.
    func acquire(_ bytes: Int) throws {
        guard bytes <= total else {
            throw ItemFailure(.limit, "needs about \(ResourceLimits.megabytes(bytes)) of memory, over the memory limit "
                              + "(\(limit.flag)) of \(ResourceLimits.megabytes(limit.bytes)), which leaves "
                              + "\(ResourceLimits.megabytes(total)) for items; not decoded")
        }
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        waiting.append(ticket)
        while waiting.first != ticket || available < bytes { condition.wait() }
        waiting.removeFirst()
        available -= bytes
        condition.broadcast()
    }

    func release(_ bytes: Int) {
        condition.lock()
        available += bytes
        condition.broadcast()
        condition.unlock()
    }
}


/// `--shard K/N`: which process of N takes an item, decided by its path below the ingest root
/// alone, so every machine and every run agrees without talking to the others.
enum Sharding {
    /// Whether the shard `(k, n)` (k counted from 1) takes the item at `relativePath`; every
    /// item when the run is not sharded.
    static func takes(_ relativePath: String, shard: (index: Int, count: Int)?) -> Bool {
        guard let (k, n) = shard else { return true }
        return self.shard(of: relativePath, count: n) == k
    }

    /// The shard (counted from 1) of `count` that takes the item at `relativePath`.
    static func shard(of relativePath: String, count: Int) -> Int {
        Int(stableHash(relativePath) % UInt64(max(1, count))) + 1
    }

    /// FNV-1a over the relative path: the same share on every machine and every run.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// `state.sqlite`, or `state-shard-K-of-N.sqlite` for one shard (so shards on shared storage
    /// never write the same database).
    static func runStateName(_ shard: (index: Int, count: Int)?) -> String {
        "state" + (shard.map { "-shard-\($0.index)-of-\($0.count)" } ?? "") + ".sqlite"
    }
}
