import CSystemShim
import Foundation

/// The kernel's notices of changes in folders (Linux inotify), folder by folder, behind a safe
/// API: `medley watch` adds each folder of its ingest roots and reads what happened in them.
/// One instance is used by one thread at a time.
public final class FolderEvents {
    /// What happened to an entry of a watched folder (or to the folder itself).
    public struct Change: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let created = Change(rawValue: MEDLEY_WATCH_CREATED)
        public static let modified = Change(rawValue: MEDLEY_WATCH_MODIFIED)
        /// Closed after writing (IN_CLOSE_WRITE).
        public static let closed = Change(rawValue: MEDLEY_WATCH_CLOSED)
        public static let movedIn = Change(rawValue: MEDLEY_WATCH_MOVED_IN)
        public static let movedOut = Change(rawValue: MEDLEY_WATCH_MOVED_OUT)
        public static let deleted = Change(rawValue: MEDLEY_WATCH_DELETED)
        /// The watched folder itself was deleted or moved away; its watch has ended.
        public static let gone = Change(rawValue: MEDLEY_WATCH_GONE)
        /// The kernel's queue overflowed: events were lost, so the folders must be looked at again.
        public static let overflow = Change(rawValue: MEDLEY_WATCH_OVERFLOW)
        /// The entry is a folder.
        public static let folder = Change(rawValue: MEDLEY_WATCH_FOLDER)
        /// Its times or permissions changed (touch, chmod), not its bytes.
        public static let attributes = Change(rawValue: MEDLEY_WATCH_ATTRIBUTES)
    }

    /// One notice: the watch it came from, what happened, and the entry's name ("" for the folder itself).
    public struct Event: Sendable, Equatable {
        public let watch: Int32
        public let change: Change
        /// The name as UTF-8; when its bytes are not UTF-8 (`nameIsUTF8` false), with U+FFFD for
        /// each bad sequence — a name no path can be made of.
        public let name: String
        public let nameIsUTF8: Bool
    }

    /// Why a folder cannot be watched, or events cannot be read: the system's words.
    public struct Failure: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String {
            switch code {
            case ENOSPC: return "the system's limit of watched folders is reached (raise fs.inotify.max_user_watches)"
            case EMFILE: return "the system's limit of inotify instances or open files is reached (fs.inotify.max_user_instances, ulimit -n)"
            default: return String(cString: strerror(code))
            }
        }
    }

    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    public init() throws {
        let result = medley_watch_open()
        guard result >= 0 else { throw Failure(code: -result) }
        descriptor = result
    }

    deinit { medley_watch_close(descriptor) }

    /// Watches the folder at `path` (a final symbolic link is not followed); returns its watch number.
    public func add(folder path: String) throws -> Int32 {
        let result = medley_watch_add(descriptor, path)
        guard result >= 0 else { throw Failure(code: -result) }
        return result
    }

    /// Waits up to `milliseconds` for notices and returns those that came (none when the time ran out).
    public func read(waiting milliseconds: Int32) throws -> [Event] {
        let capacity = buffer.count
        let written = medley_watch_read(descriptor, milliseconds, &buffer, UInt(capacity))
        guard written >= 0 else { throw Failure(code: Int32(clamping: -written)) }
        return Self.parse(buffer.prefix(Int(clamping: written)))
    }

    /// The packed records of `medley_watch_read`: watch (4 bytes), change (4), name length (4), name.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        var at = bytes.startIndex
        func word(_ from: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value |= UInt32(bytes[from + offset]) << (8 * offset) }
            return value  // the records are in the host's order, little-endian on Medley's Linux targets
        }
        while bytes.endIndex - at >= 12 {
            let watch = Int32(bitPattern: word(at)), change = Change(rawValue: word(at + 4))
            let length = Int(word(at + 8))
            guard bytes.endIndex - (at + 12) >= length else { break }
            let raw = bytes[(at + 12)..<(at + 12 + length)]
            let name = String(validating: raw, as: UTF8.self)
            events.append(Event(watch: watch, change: change, name: name ?? String(decoding: raw, as: UTF8.self), nameIsUTF8: name != nil))
            at += 12 + length
        }
        return events
    }
}
