import CXXHash
import Foundation

/// The 64-bit XXH3 hash of a file's bytes: the content half of an item's identity
/// (`persistentID`) and of its run-state fingerprint. The same bytes give the same value on any
/// machine; `xxhsum -H3 FILE` prints it too.
public enum ContentHash {
    /// Bytes read per call: enough for the hash to run near memory speed, and under glibc's
    /// mmap threshold (128 KiB), whose dynamic raise after freeing a large block otherwise moves
    /// such buffers into the heap, where they fragment it across threads (a probe of 1,000 mixed
    /// files peaked at 247 MB with 1 MiB buffers).
    static let chunk = 64 << 10

    public static func ofFile(at path: String) throws -> UInt64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw MediaError.system("open", errno: code, path: path, "cannot read: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        return try of(descriptor: fd)
    }

    /// XXH3 of every byte of an open file, read from its start with `pread` (the descriptor's own offset is
    /// left alone, so the same open file can be hashed and decoded).
    public static func of(descriptor fd: Int32) throws -> UInt64 {
        guard let state = XXH3_createState() else { throw MediaError(.xxhash, "hash", "out of memory") }
        defer { XXH3_freeState(state) }
        XXH3_64bits_reset(state)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        var offset: off_t = 0
        while true {
            let count = pread(fd, buffer, chunk, offset)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw MediaError.system("read", errno: code, "cannot read: \(String(cString: strerror(code)))")
            }
            if count == 0 { break }
            XXH3_64bits_update(state, buffer, count)
            offset += off_t(count)
        }
        return XXH3_64bits_digest(state)
    }

    /// XXH3 of bytes in memory.
    public static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        XXH3_64bits(bytes.baseAddress, bytes.count)
    }

    /// XXH3 of a byte array.
    public static func of(bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { of($0) }
    }

    /// XXH3 of a text's UTF-8 bytes.
    public static func of(text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { of(UnsafeRawBufferPointer($0)) }
    }

    /// iTunes' spelling of a persistent ID: 16 upper-case hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
