// libFuzzer entry point over the name-template parser (MedleyCore's Templates/, which stands alone),
// compiled by scripts/fuzz.sh into one module with those files over instrumented MedleyKernels and
// MedleyFilters modules. MEDLEY_FUZZ_TARGET: "template".
import Foundation

private let target = ProcessInfo.processInfo.environment["MEDLEY_FUZZ_TARGET"] ?? "template"
private let known: Set<String> = ["artist", "title", "albumTitle", "albumTrackNumber", "year", "name", "ext", "camera", "date"]

@_cdecl("LLVMFuzzerTestOneInput")
public func medleyFuzzCore(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch target {
    case "template":
        _ = try? NameTemplate(text, knownProperties: known)
        _ = try? NameTemplate(text, knownProperties: [])
    default: fatalError("unknown MEDLEY_FUZZ_TARGET \(target)")
    }
    return 0
}
