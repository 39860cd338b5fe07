import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cursor over tag bytes that throws on truncation instead of trapping, so a damaged file is
/// an error, never a crash.
struct ByteReader {
    let bytes: [UInt8]
    var position: Int

    init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position >= bytes.count }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw MediaError(.medley, "read tags", "the tags are truncated", cause: .corruptData) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func skip(_ count: Int) throws { _ = try take(count) }
    mutating func u8() throws -> UInt8 { try take(1).first! }
    mutating func u16BE() throws -> Int { try take(2).bigEndianInteger }
    mutating func u32BE() throws -> Int { try take(4).bigEndianInteger }
    mutating func u64BE() throws -> UInt64 { try take(8).reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func u32LE() throws -> Int { try take(4).littleEndianInteger }
    mutating func rest() -> ArraySlice<UInt8> { (try? take(remaining)) ?? [] }
    mutating func fourCC() throws -> String { String(decoding: try take(4), as: UTF8.self) }

    /// Bytes up to (not including) a terminator of `width` zero bytes aligned to `width`, which
    /// is consumed; the rest when there is none.
    mutating func terminated(width: Int = 1) -> ArraySlice<UInt8> {
        var end = position
        while end + width <= bytes.count {
            if bytes[end..<end + width].allSatisfy({ $0 == 0 }) {
                defer { position = end + width }
                return bytes[position..<end]
            }
            end += width
        }
        defer { position = bytes.count }
        return bytes[position...]
    }
}

extension Collection where Element == UInt8 {
    var bigEndianInteger: Int { reduce(0) { $0 << 8 | Int($1) } }
    var littleEndianInteger: Int { reversed().reduce(0) { $0 << 8 | Int($1) } }
}

extension Array where Element == UInt8 {
    mutating func appendBE(_ value: Int, bytes count: Int) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func appendLE(_ value: Int, bytes count: Int) {
        for shift in stride(from: 0, to: count * 8, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    mutating func append(fourCC: String) { append(contentsOf: Array(fourCC.utf8.prefix(4))) }
}

/// Text from tag bytes: UTF-8 when valid, else ISO-8859-1 (what older RIFF/IFF/ID3v1 writers used).
func decodeText<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let array = Array(bytes)
    if let text = String(validating: array, as: UTF8.self) { return text }
    return String(array.map { Character(Unicode.Scalar($0)) })
}

/// Random-access reads from an audio file, so tag parsers never load the audio itself.
final class FileBytes {
    private let handle: FileHandle
    let size: UInt64

    init(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno; throw MediaError.system("open", errno: code, path: path, "cannot open \(path): \(String(cString: strerror(code)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw MediaError(.medley, "open", "\(path) is not a regular file", cause: .unsupported) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MediaError(.system, "open", "cannot open \(path)") }
        self.handle = handle
        size = UInt64(info.st_size)
    }

    deinit { try? handle.close() }

    /// Exactly `count` bytes at `offset`, or an error naming the truncation.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { throw MediaError(.medley, "read tags", "the file is truncated", cause: .corruptData) }
        if count == 0 { return [] }
        try handle.seek(toOffset: offset)
        guard let data = try handle.read(upToCount: count), data.count == count else { throw MediaError(.medley, "read tags", "the file is truncated", cause: .corruptData) }
        return [UInt8](data)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    func readPrefix(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < size else { return [] }
        return try read(at: offset, count: Int(min(UInt64(count), size - offset)))
    }
}

/// The file a tag writer assembles: a sibling temporary file that `commit` renames over the
/// original, so readers see either the old file or the new one, never a half-written one; or —
/// when the caller's file is itself temporary (`init(into:)`) — that file, written straight.
final class ReplacementFile {
    let target: String
    let path: String
    private let handle: FileHandle
    private var finished = false
    /// Whether `commit` renames `path` over `target` (false: `path` is the caller's own file).
    private let renames: Bool

    /// Writes into `path`, an existing file of the caller's (emptied first), which stays where it is.
    init(into path: String) throws {
        target = path
        self.path = path
        renames = false
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { let code = errno; throw MediaError.system("open", errno: code, path: path, "cannot write \(path): \(String(cString: strerror(code)))") }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    init(replacing target: String) throws {
        self.target = target
        renames = true
        let url = URL(fileURLWithPath: target)
        path = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".medley-tags-" + UUID().uuidString
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { let code = errno; throw MediaError.system("create", errno: code, path: target, "cannot create a temporary file beside \(target): \(String(cString: strerror(code)))") }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { if !finished { discard() } }

    func append(_ bytes: [UInt8]) throws {
        try handle.write(contentsOf: bytes)
    }

    /// Copies `count` bytes of `source` from `offset`, a megabyte at a time.
    func copy(from source: FileBytes, offset: UInt64, count: UInt64) throws {
        var done: UInt64 = 0
        while done < count {
            let step = Int(min(count - done, 1 << 20))
            try append(try source.read(at: offset + done, count: step))
            done += UInt64(step)
        }
    }

    /// Gives the file the original's permissions, flushes it and renames it over the original
    /// (a file written `into` is only flushed).
    func commit() throws {
        var info = stat()
        if renames, stat(target, &info) == 0 { fchmod(handle.fileDescriptor, info.st_mode & 0o7777) }
        guard fsync(handle.fileDescriptor) == 0 else {
            let code = errno; throw MediaError.system("sync", errno: code, path: target, "cannot write \(target): \(String(cString: strerror(code)))")
        }
        try handle.close()
        finished = true
        guard renames else { return }
        guard rename(path, target) == 0 else {
            let code = errno; throw MediaError.system("rename", errno: code, path: target, "cannot replace \(target): \(String(cString: strerror(code)))")
        }
        finished = true
    }

    /// Removes the sibling temporary file (a file written `into` is the caller's to remove).
    func discard() {
        finished = true
        try? handle.close()
        if renames { unlink(path) }
    }

    /// Runs `body` to fill a replacement for `target` and commits it; on any error the temporary
    /// file is removed and `target` is left as it was.
    static func replace(_ target: String, _ body: (ReplacementFile) throws -> Void) throws {
        try fill(ReplacementFile(replacing: target), body)
    }

    /// Runs `body` to fill `file` and commits it; on any error the file is discarded.
    static func fill(_ file: ReplacementFile, _ body: (ReplacementFile) throws -> Void) throws {
        do {
            try body(file)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}
