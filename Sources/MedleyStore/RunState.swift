import CSQLite
import Foundation
import MedleySystem

/// What the last run did with one input, as stored in the run state.
public struct StateRow: Sendable, Equatable {
    /// Absolute input path: the key, with the job name.
    public var input: String
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var modifiedNanoseconds: Int64
    /// XXH3 of the input's bytes, 16 hex digits.
    public var contentHash: String
    /// "image" or "audio": which of the job's settings shaped the output.
    public var kind: String
    /// Hash of the job settings that shape this item's output.
    public var settingsHash: String
    /// "succeeded" or "failed".
    public var status: String
    public var output: String?
    public var outputSize: Int64?
    /// The item's manifest line (JSON), reused when the item is skipped as unchanged.
    public var record: String

    public init(input: String, size: Int64, modifiedNanoseconds: Int64, contentHash: String, kind: String,
                settingsHash: String, status: String, output: String?, outputSize: Int64?, record: String) {
        self.input = input
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.contentHash = contentHash
        self.kind = kind
        self.settingsHash = settingsHash
        self.status = status
        self.output = output
        self.outputSize = outputSize
        self.record = record
    }
}

/// An album's loudness as the run state keeps it: measured once for one list of members (`key`,
/// their fingerprint), so an unchanged album is not measured again.
public struct AlbumRow: Sendable, Equatable {
    /// The fingerprint of the album's members and the settings they were measured with.
    public var key: String
    /// The album's group text.
    public var album: String
    /// Integrated loudness, LUFS (nil: silent).
    public var integrated: Double?
    /// The highest sample and true peak, linear.
    public var samplePeak: Double
    public var truePeak: Double
    public var tracks: Int

    public init(key: String, album: String, integrated: Double?, samplePeak: Double, truePeak: Double, tracks: Int) {
        self.key = key
        self.album = album
        self.integrated = integrated
        self.samplePeak = samplePeak
        self.truePeak = truePeak
        self.tracks = tracks
    }
}

/// Problems with the state database, each with SQLite's failure (its words, its result code and the
/// system's errno behind it).
public enum StateError: ClassifiedError, CustomStringConvertible {
    /// The database cannot be opened (or created) at `path`.
    case cannotOpen(path: String, cause: MediaError)
    /// A row of the database at `path` cannot be read.
    case cannotRead(path: String, cause: MediaError)
    /// A row cannot be saved.
    case cannotWrite(path: String, cause: MediaError)
    /// A statement (the schema, a transaction) of the database at `path` failed.
    case statement(path: String, cause: MediaError)
    /// The state was closed, or opened read-only, before this use.
    case closed(readOnly: Bool)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let cause): return "cannot open the run state \(path): \(cause)"
        case .cannotRead(let path, let cause): return "cannot read the run state \(path): \(cause)"
        case .cannotWrite(let path, let cause): return "cannot write the run state \(path): \(cause)"
        case .statement(let path, let cause): return "run state \(path): \(cause)"
        case .closed(let readOnly): return readOnly ? "the run state is closed or read-only" : "the run state is closed"
        }
    }

    /// SQLite's failure behind this one, nil when the state was closed.
    public var cause: MediaError? {
        switch self {
        case .cannotOpen(_, let cause), .cannotRead(_, let cause), .cannotWrite(_, let cause), .statement(_, let cause): return cause
        case .closed: return nil
        }
    }

    public var failureClass: FailureClass? { cause?.failureClass }
    public var systemErrno: Int32? { cause?.systemErrno }
}

/// The run state of one export root (or one shard of it): an SQLite database in WAL mode, one
/// row per (job, input). Rows are written as items finish, each in its own transaction, so a
/// process killed at any moment loses at most the items in flight — their outputs, written
/// atomically, are simply redone.
public final class RunState: @unchecked Sendable {
    // @unchecked: the connection is used under `lock` only.
    private var db: OpaquePointer?
    private let lock = NSLock()
    private var upsert: OpaquePointer?
    private var lookup: OpaquePointer?
    private var albumLookup: OpaquePointer?
    public let path: String

    /// Opens (or creates) the database at `path`, which must name no symbolic link anywhere
    /// (SQLITE_OPEN_NOFOLLOW: SQLite refuses a path with a link in it, so a link planted at the
    /// database cannot turn Medley's writes onto another file). `readOnly` (a dry run) neither
    /// creates nor changes anything.
    /// `immutable` (read-only file systems only, where no one can change it): read without the
    /// -shm file a WAL database otherwise needs, which cannot be created there.
    public init(path: String, readOnly: Bool = false, immutable: Bool = false) throws {
        self.path = path
        var handle: OpaquePointer?
        var flags = (readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        }
        guard sqlite3_open_v2(name, &handle, flags, nil) == SQLITE_OK, let handle else {
            let cause = handle.map { Self.failure(of: $0, "open", path: path) }
                ?? MediaError(.sqlite, "open", "out of memory", cause: .library(code: SQLITE_NOMEM), path: path)
            sqlite3_close(handle)
            throw StateError.cannotOpen(path: path, cause: cause)
        }
        db = handle
        sqlite3_busy_timeout(handle, 10_000)
        if readOnly || immutable { return }
        try execute("""
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = NORMAL;
            CREATE TABLE IF NOT EXISTS items (
                job TEXT NOT NULL, input TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                content_hash TEXT NOT NULL, kind TEXT NOT NULL, settings_hash TEXT NOT NULL, status TEXT NOT NULL,
                output TEXT, output_size INTEGER, record TEXT NOT NULL, updated REAL NOT NULL,
                PRIMARY KEY (job, input)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS albums (
                job TEXT NOT NULL, key TEXT NOT NULL, album TEXT NOT NULL, integrated REAL,
                sample_peak REAL NOT NULL, true_peak REAL NOT NULL, tracks INTEGER NOT NULL, updated REAL NOT NULL,
                PRIMARY KEY (job, key)
            ) WITHOUT ROWID;
            """)
        upsert = try prepare("""
            INSERT INTO items (job, input, size, mtime_ns, content_hash, kind, settings_hash, status, output,
                               output_size, record, updated)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT (job, input) DO UPDATE SET size = ?3, mtime_ns = ?4, content_hash = ?5, kind = ?6,
                settings_hash = ?7, status = ?8, output = ?9, output_size = ?10, record = ?11, updated = ?12
            """)
    }

    deinit {
        sqlite3_finalize(albumLookup)
        sqlite3_finalize(upsert)
        sqlite3_finalize(lookup)
        sqlite3_close(db)
    }

    /// The row of (`job`, `input`), or nil. One indexed look-up per item, so a run over millions of
    /// inputs never holds the whole state in memory.
    public func row(job: String, input: String) throws -> StateRow? {
        lock.lock()
        defer { lock.unlock() }
        if lookup == nil {
            lookup = try prepare("""
                SELECT input, size, mtime_ns, content_hash, kind, settings_hash, status, output, output_size, record
                FROM items WHERE job = ?1 AND input = ?2
                """)
        }
        guard let statement = lookup else { throw StateError.closed(readOnly: false) }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        bind(statement, 1, job)
        bind(statement, 2, input)
        let step = sqlite3_step(statement)
        if step == SQLITE_DONE { return nil }
        guard step == SQLITE_ROW else { throw StateError.cannotRead(path: path, cause: failure("read")) }
        let row = StateRow(
            input: text(statement, 0) ?? "", size: sqlite3_column_int64(statement, 1),
            modifiedNanoseconds: sqlite3_column_int64(statement, 2), contentHash: text(statement, 3) ?? "",
            kind: text(statement, 4) ?? "", settingsHash: text(statement, 5) ?? "", status: text(statement, 6) ?? "",
            output: text(statement, 7),
            outputSize: sqlite3_column_type(statement, 8) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 8),
            record: text(statement, 9) ?? "{}")
        // Done with the row: reset now, so the statement holds no read transaction open (which would
        // keep checkpoints from shortening the WAL while the run goes on writing).
        sqlite3_reset(statement)
        return row
    }

    /// Calls `body` with each succeeded row of `job` whose record contains `marker` (a plain
    /// substring, e.g. a JSON key), in input order, streaming: the rows are never all in memory.
    /// `body` must not use this run state (its lock is held).
    public func succeededRows(job: String, recordContaining marker: String, _ body: (StateRow) -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let statement = try prepare("""
            SELECT input, size, mtime_ns, content_hash, kind, settings_hash, status, output, output_size, record
            FROM items WHERE job = ?1 AND status = 'succeeded' AND instr(record, ?2) > 0 ORDER BY input
            """) else { throw StateError.closed(readOnly: false) }
        defer { sqlite3_finalize(statement) }
        bind(statement, 1, job)
        bind(statement, 2, marker)
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw StateError.cannotRead(path: path, cause: failure("read")) }
            body(StateRow(
                input: text(statement, 0) ?? "", size: sqlite3_column_int64(statement, 1),
                modifiedNanoseconds: sqlite3_column_int64(statement, 2), contentHash: text(statement, 3) ?? "",
                kind: text(statement, 4) ?? "", settingsHash: text(statement, 5) ?? "", status: text(statement, 6) ?? "",
                output: text(statement, 7),
                outputSize: sqlite3_column_type(statement, 8) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 8),
                record: text(statement, 9) ?? "{}"))
        }
    }

    /// Inserts or replaces the row of (`job`, `row.input`), committed before it returns.
    public func save(job: String, _ row: StateRow) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let upsert else { throw StateError.closed(readOnly: true) }
        sqlite3_reset(upsert)
        sqlite3_clear_bindings(upsert)
        bind(upsert, 1, job)
        bind(upsert, 2, row.input)
        sqlite3_bind_int64(upsert, 3, row.size)
        sqlite3_bind_int64(upsert, 4, row.modifiedNanoseconds)
        bind(upsert, 5, row.contentHash)
        bind(upsert, 6, row.kind)
        bind(upsert, 7, row.settingsHash)
        bind(upsert, 8, row.status)
        bind(upsert, 9, row.output)
        if let size = row.outputSize { sqlite3_bind_int64(upsert, 10, size) } else { sqlite3_bind_null(upsert, 10) }
        bind(upsert, 11, row.record)
        sqlite3_bind_double(upsert, 12, Date().timeIntervalSince1970)
        guard sqlite3_step(upsert) == SQLITE_DONE else {
            throw StateError.cannotWrite(path: path, cause: failure("write"))
        }
    }

    /// The album measured under `key` (its members' fingerprint) by an earlier run, or nil. A run
    /// state made before albums were kept has no such table: nothing is known (nil), never an error.
    public func album(job: String, key: String) -> AlbumRow? {
        lock.lock()
        defer { lock.unlock() }
        if albumLookup == nil {
            albumLookup = try? prepare("""
                SELECT album, integrated, sample_peak, true_peak, tracks FROM albums WHERE job = ?1 AND key = ?2
                """)
        }
        guard let statement = albumLookup else { return nil }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        bind(statement, 1, job)
        bind(statement, 2, key)
        // Reset once read, so the statement holds no read transaction open.
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return AlbumRow(key: key, album: text(statement, 0) ?? "",
                        integrated: sqlite3_column_type(statement, 1) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 1),
                        samplePeak: sqlite3_column_double(statement, 2), truePeak: sqlite3_column_double(statement, 3),
                        tracks: Int(sqlite3_column_int64(statement, 4)))
    }

    /// Inserts or replaces an album's measurement, committed before it returns.
    public func saveAlbum(job: String, _ row: AlbumRow) throws {
        lock.lock()
        defer { lock.unlock() }
        guard upsert != nil else { throw StateError.closed(readOnly: true) }
        let statement = try prepare("""
            INSERT OR REPLACE INTO albums (job, key, album, integrated, sample_peak, true_peak, tracks, updated)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        defer { sqlite3_finalize(statement) }
        bind(statement, 1, job)
        bind(statement, 2, row.key)
        bind(statement, 3, row.album)
        if let integrated = row.integrated { sqlite3_bind_double(statement, 4, integrated) } else { sqlite3_bind_null(statement, 4) }
        sqlite3_bind_double(statement, 5, row.samplePeak)
        sqlite3_bind_double(statement, 6, row.truePeak)
        sqlite3_bind_int64(statement, 7, Int64(row.tracks))
        sqlite3_bind_double(statement, 8, Date().timeIntervalSince1970)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw StateError.cannotWrite(path: path, cause: failure("write")) }
    }

    /// Writes the WAL back into the database file (at the end of a job).
    public func checkpoint() {
        lock.lock()
        defer { lock.unlock() }
        sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }

    // MARK: SQLite plumbing

    /// The connection's last failure: SQLite's words, its extended result code, and the system's
    /// errno when an I/O error or an open had one underneath.
    private func failure(_ operation: String) -> MediaError {
        guard let db else { return MediaError(.sqlite, operation, "closed", cause: .library(code: SQLITE_MISUSE), path: path) }
        return Self.failure(of: db, operation, path: path)
    }

    private static func failure(of db: OpaquePointer, _ operation: String, path: String) -> MediaError {
        let code = sqlite3_extended_errcode(db), system = sqlite3_system_errno(db)
        let primary = code & 0xff
        let cause: MediaError.Cause = (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) && system != 0
            ? .system(errno: system) : .library(code: code)
        return MediaError(.sqlite, operation, String(cString: sqlite3_errmsg(db)), cause: cause, path: path)
    }

    private func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            let words = error.map { String(cString: $0) }
            sqlite3_free(error)
            var cause = failure("execute")
            if let words { cause = cause.saying(words) }
            throw StateError.statement(path: path, cause: cause)
        }
    }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw StateError.statement(path: path, cause: failure("prepare"))
        }
        return statement
    }

    private func bind(_ statement: OpaquePointer?, _ index: Int32, _ value: String?) {
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        sqlite3_bind_text(statement, index, value, -1, medley_sqlite_transient())
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }
}
