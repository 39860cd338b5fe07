// libFuzzer targets over the parts of MedleyCore that need the whole module (pipeline validation over
// libyaml, `where:`, manifest lines, image metadata and XMP sidecars through exiv2), built by SwiftPM as the product MedleyCoreFuzz, which
// Package.swift declares only when MEDLEY_FUZZ=1 (scripts/fuzz.sh, group `corespm`; docs/fuzzing.md).
// MEDLEY_FUZZ_TARGET: "pipeline", "where", "manifest" or "metadata". A broken property (below) is a crash:
// libFuzzer saves the input.
import Foundation
@testable import MedleyCore
import MedleyMedia
import MedleyYAML

private let target = ProcessInfo.processInfo.environment["MEDLEY_FUZZ_TARGET"] ?? "pipeline"
/// Paths in fuzzed pipelines resolve under a folder that does not exist: validation reads nothing.
private let nowhere = "/nonexistent/medley-fuzz"

private func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch target {
    case "pipeline": fuzzPipeline(String(decoding: bytes, as: UTF8.self))
    case "where": fuzzWhere(String(decoding: bytes, as: UTF8.self))
    case "manifest": fuzzManifest(bytes)
    case "metadata": fuzzMetadata(bytes)
    default:
        FileHandle.standardError.write(Data("unknown MEDLEY_FUZZ_TARGET \(target)\n".utf8))
        exit(2)
    }
    return 0
}

/// `medley validate`'s path: a pipeline is valid, or fails with diagnostics that each point into the file.
private func fuzzPipeline(_ text: String) {
    do {
        _ = try PipelineReader.parse(text, file: "fuzz.yaml", directory: nowhere)
    } catch let failure as ValidationFailure {
        if failure.diagnostics.isEmpty { fatalError("a validation failure with no diagnostic") }
        for diagnostic in failure.diagnostics where diagnostic.mark.line < 1 || diagnostic.mark.column < 1 {
            fatalError("a diagnostic at \(diagnostic.mark.line):\(diagnostic.mark.column): \(diagnostic.message)")
        }
    } catch {
        fatalError("validation threw something other than a ValidationFailure: \(error)")
    }
}

/// Properties of every kind a `where:` compares with.
private let sample: [String: TemplateValue] = [
    "genre": .text("Rock"), "artist": .text("Ünïcode / Artist"), "title": .text(""), "year": .integer(1999),
    "albumTrackNumber": .integer(-3), "duration": .number(183.25), "width": .integer(4032), "format": .text("jpeg"),
    "page": .integer(1), "segment": .integer(2), "relpath": .path("a/b"), "ext": .text("flac"),
]

/// A `where:` map as the pipeline reader reads it, then evaluated against `sample`.
private func fuzzWhere(_ text: String) {
    guard let node = try? YAMLReader.parse(text) else { return }
    let reader = SchemaReader(sink: DiagnosticSink(file: "fuzz.yaml"), directory: nowhere)
    guard let clause = reader.whereClause(node) else { return }
    _ = clause.matches { sample[$0] }
}

/// A manifest line as `medley merge`, incremental runs and watch read it: a line that reads, written
/// again, reads back as the same line; the quick `input` scan agrees with the decoder on it.
private func fuzzManifest(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = ManifestRecord.input(ofLine: bytes)
    guard let record = try? JSONDecoder().decode(ManifestRecord.self, from: Data(bytes)) else { return }
    let line = record.line
    guard let again = try? ManifestRecord(line: line) else { fatalError("a written line does not read back: \(line)") }
    if again.line != line { fatalError("read → write → read changed the line:\n\(line)\n\(again.line)") }
    if ManifestRecord.input(ofLine: line.utf8) != record.input { fatalError("the input scan disagrees on \(line)") }
}

/// An image's metadata or an XMP sidecar as ingest reads them (`MetadataProperties.read`): exiv2 opens
/// the bytes, then Medley's own code turns each stored value into a ``MetadataValue`` (rationals, APEX,
/// GPS, UNDEFINED bytes, LangAlt) and the tags into properties, as the file's own and as a sidecar's.
/// No property may be named twice or have no name.
private func fuzzMetadata(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let metadata = try? ImageMetadata.open(bytes: Array(bytes), origin: "fuzz") else { return }
    let tags = metadata.tags
    let asFile = MetadataProperties.properties(file: tags, sidecar: nil)
    let asSidecar = MetadataProperties.properties(file: [], sidecar: tags.filter { $0.family == .xmp })
    for properties in [asFile, asSidecar] {
        var seen = Set<String>()
        for (name, _) in properties where name.isEmpty || !seen.insert(name).inserted {
            fatalError("a property named \"\(name)\" twice or with no name")
        }
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// SwiftPM links an executable's entry point as `<module>_main` (the file is compiled with
/// `-parse-as-library`, so this is the only one): it hands the arguments to libFuzzer's
/// driver (libFuzzer's own `main` is not used).
@_cdecl("MedleyCoreFuzz_main")
public func medleyCoreFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}
