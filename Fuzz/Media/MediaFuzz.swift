// libFuzzer entry point over MedleyMedia's own byte parsers (no C library underneath), compiled
// by scripts/fuzz.sh into one module with those files (ICCProfile, JPEGSegments, WebPChunks,
// Audio/MPEGFrameScan) and MedleySystem's MediaError. MEDLEY_FUZZ_TARGET picks the parser.
import Foundation

private let target = ProcessInfo.processInfo.environment["MEDLEY_FUZZ_TARGET"] ?? "icc"
/// A small profile that `strip` with `keepProfile` would insert (the product's own sRGB-like one).
private let profile = Array(repeating: UInt8(0x41), count: 300)

@_cdecl("LLVMFuzzerTestOneInput")
public func medleyFuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch target {
    case "icc":
        _ = ICCProfile.problem(bytes)
        _ = ICCProfile.colourSpace(bytes)
        _ = ICCProfile.isSRGB(bytes)
    case "jpeg":
        if let tagged = JPEGSegments.insertingICCProfile(profile, into: bytes) {
            precondition(tagged.count > bytes.count, "a profile inserted made the file shorter")
        }
    case "webp":
        if let stripped = WebPChunks.strippingMetadata(bytes, keepICC: false) {
            // Stripping is idempotent: a stripped file strips to itself.
            precondition(WebPChunks.strippingMetadata(stripped, keepICC: false) == stripped, "stripping twice changed the file")
        }
        _ = WebPChunks.strippingMetadata(bytes, keepICC: true)
    case "mpeg":
        _ = bytes.withUnsafeBufferPointer { MPEGFrameScan.count($0) }
    default: fatalError("unknown MEDLEY_FUZZ_TARGET \(target)")
    }
    return 0
}
