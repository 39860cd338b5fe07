import Foundation

/// The export stage of one job as every output step uses it: the item's output name from the
/// job's template (checked and claimed, so no two items share it), the overwrite policy and dry
/// run, and the encoder's file written atomically, under the memory it needs. The image, audio,
/// poster and re-encode steps all end in `write`, so this tail exists once.
struct Exporter {
    /// The job's `export:` stage.
    let export: ExportStage
    /// The job's name (`{job}` in templates).
    let job: String
    /// Writes outputs atomically (nil root in a dry run).
    let output: AtomicOutput
    /// Which item has which output name (the earlier item in ingest order wins).
    let claims: OutputClaims
    /// What items may take under a memory limit; nil when memory is unlimited.
    let memory: MemoryBudget?
    /// `--force`: redo outputs that exist even under `overwrite: skip`.
    let force: Bool
    /// `--dry-run`: name and claim outputs, write nothing.
    let dryRun: Bool

    /// The export tail of every output step: names the item's output (`{ext}` is `ext`), claims
    /// it, runs `check` on it (a step's own rules for the name), applies the overwrite policy and
    /// the dry run, then — with `memory` bytes of the budget held — runs `encode` on a temporary
    /// file (suffix `fileExtension`, else the output's own extension) and moves it into place.
    /// Returns the output written and its size, or why nothing was.
    func write(_ file: IngestedFile, ext: String, fileExtension: String? = nil, memory bytes: Int,
               property: (String) -> TemplateValue?, check: (OutputName) throws -> Void = { _ in },
               encode: (_ temporary: String, _ name: OutputName) throws -> Void) throws -> StepOutcome {
        let name = try self.name(for: file, ext: ext, property: property)
        try check(name)
        if let skip = try skipReason(name) { return .skipped(output: name.path, skip) }
        var size: Int64 = 0
        try withMemory(bytes) {
            size = try output.write(to: name, fileExtension: fileExtension) { try encode($0, name) }
        }
        return .written(WrittenOutput(output: name.path, bytes: size))
    }

    /// The output name the job's name template gives this item (checked, and claimed so no two items share it).
    func name(for file: IngestedFile, ext: String, property: (String) -> TemplateValue?) throws -> OutputName {
        let name = try OutputName(export.name.render { name in
            switch name {
            case "ext": return .text(ext)
            case "inputExt": return property("ext")
            case "job": return .text(job)
            default: return property(name)
            }
        }, root: export.to)
        try claim(name.path, for: file.path)
        return name
    }

    /// Why this item writes nothing (an existing output under `overwrite: skip`, a dry run), or nil.
    func skipReason(_ name: OutputName) throws -> SkipReason? {
        if FileManager.default.fileExists(atPath: name.path) {
            switch export.overwrite {
            case .skip where !force: return .exists
            case .fail: throw ItemFailure(.output, "output exists: \(name.path) (overwrite: fail)")
            default: break
            }
        }
        return dryRun ? .dryRun : nil
    }

    /// Claims the output at `path` for `input`, or says which earlier item has it and how to tell them apart.
    func claim(_ path: String, for input: String) throws {
        if let other = claims.claim(path, for: input) {
            throw ItemFailure(.output, "its output \(path) is also the output of \(other); make export.name unique, "
                              + Self.clashHint(input, other))
        }
    }

    /// How to tell two inputs' outputs apart: by the input's extension when only that differs
    /// (a.mkv, a.mov), else by folder or extension.
    static func clashHint(_ input: String, _ other: String) -> String {
        let stem = { (path: String) in (path as NSString).deletingPathExtension }
        if stem(input) == stem(other) && input != other {
            return "e.g. with {inputExt} (the input's extension; {ext} is the output's)"
        }
        return "e.g. with {relpath} or {inputExt} (the input's extension; {ext} is the output's)"
    }

    /// Runs `body` once `bytes` of the memory budget are this item's (at once when memory is unlimited).
    func withMemory(_ bytes: Int, _ body: () throws -> Void) throws {
        guard let memory else { return try body() }
        try memory.acquire(bytes)
        defer { memory.release(bytes) }
        try body()
    }
}
