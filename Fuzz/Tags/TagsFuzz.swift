// libFuzzer entry point over MedleyTags, compiled into the module itself by scripts/fuzz.sh
// (swiftc -sanitize=fuzzer,address -parse-as-library Sources/MedleyTags/*.swift this file).
// The target is chosen by MEDLEY_FUZZ_TARGET (scripts/fuzz.sh sets it): each calls the entry
// point the product uses on a whole file's bytes (TagIO.read(bytes:) / write(_:toBytes:)).
import Foundation

private let target = ProcessInfo.processInfo.environment["MEDLEY_FUZZ_TARGET"] ?? "tags"

/// Read → write → read: the second read gives the tags written (those the container holds), or
/// the write fails with a TagIOError (never a trap, never tags changed silently).
private func roundTrip(_ bytes: [UInt8], _ ext: String) {
    guard let first = try? TagIO.read(bytes: bytes, container: ext) else { return }
    let written: [UInt8]
    do { written = try TagIO.write(first, toBytes: bytes, container: ext).bytes } catch is TagIOError { return } catch {
        fatalError("write threw a non-TagIOError: \(error)")
    }
    guard let second = try? TagIO.read(bytes: written, container: ext) else {
        fatalError("the file written from readable tags cannot be read back")
    }
    // Idempotence: writing what was read back and reading again changes nothing.
    guard let again = try? TagIO.write(second, toBytes: written, container: ext).bytes,
          let third = try? TagIO.read(bytes: again, container: ext) else {
        fatalError("a file Medley wrote cannot be rewritten")
    }
    if third.entries != second.entries || third.artwork != second.artwork || third.extra != second.extra {
        fatalError("tags changed on the second round trip: \(second.entries) → \(third.entries)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func medleyFuzzTags(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch target {
    case "tags": _ = try? TagIO.read(bytes: bytes)
    case "mp3", "mp4", "flac", "ogg", "wav", "aiff", "caf": _ = try? TagIO.read(bytes: bytes, container: target)
    case let name where name.hasPrefix("roundtrip-"): roundTrip(bytes, String(name.dropFirst("roundtrip-".count)))
    default: fatalError("unknown MEDLEY_FUZZ_TARGET \(target)")
    }
    return 0
}
