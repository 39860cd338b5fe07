// libFuzzer entry point over MedleyCore's text readers that stand alone: the name-template parser
// (Templates/) and the manifest line reader (Item/ManifestRecord.swift), compiled by scripts/fuzz.sh
// into one module with those files over instrumented MedleyKernels and MedleyFilters modules.
// MEDLEY_FUZZ_TARGET: "template" or "manifest".
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
    case "manifest":
        // A record read renders a line that reads back to the same line.
        for line in text.split(separator: "\n") {
            guard let record = try? ManifestRecord(line: String(line)) else { continue }
            guard let again = try? ManifestRecord(line: record.line) else { fatalError("a rendered manifest line does not read back") }
            precondition(again.line == record.line, "a manifest line changed when read and rendered twice")
        }
    default: fatalError("unknown MEDLEY_FUZZ_TARGET \(target)")
    }
    return 0
}
