import Foundation
import MedleyMedia

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
        try claim(name.path, for: file.key)
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


/// An output's name under its export root, as the job's name template rendered it: checked once
/// (not empty, not inside `.medley/`) when it is made, and kept relative — the claim, the skip
/// policy, the steps' own rules and the atomic write all take this value, so no one turns it
/// absolute and back, or parses its extension again.
struct OutputName: Hashable, Sendable {
    /// The export root (`export.to`) as the job wrote it.
    let root: String
    /// The path below the root, as rendered (the manifest's `output` is `root/relative`).
    let relative: String
    /// `relative` split into its folders and file name (empty components dropped).
    let components: [String]
    /// The file name's extension, lowercased ("" when it has none): what picks a container.
    let ext: String
    /// The output's path as the manifest, events and console give it (`root/relative`).
    let path: String

    /// Checks `relative`, a rendered name, as an output under `root`.
    init(_ relative: String, root: String) throws {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !components.isEmpty else { throw ItemFailure(.output, "an empty output name") }
        if let first = components.first(where: { $0 != "." }), first.lowercased() == ExportRoot.folderName {
            throw ItemFailure(.output, "refused to write \(root)/\(relative): it is inside \(root)/\(ExportRoot.folderName), "
                              + "Medley's own folder (manifest, run state, temporary files); change export.name or the values it uses")
        }
        self.root = root
        self.relative = relative
        self.components = components
        ext = (relative as NSString).pathExtension.lowercased()
        path = root + "/" + relative
    }
}


/// The output paths a job's items have claimed, so no two items write the same file — and
/// which item gets a contested name does not depend on which finishes first: the item earlier
/// in ingest order wins, and a failed item releases its claim to the next one.
///
/// Items are numbered in ingest order as they are dispatched. An item claims its output only
/// once every earlier item has passed its own claim point (claimed, or finished without one),
/// so claims are made in ingest order; claim points come before the work (encoding), so the
/// items still encode in parallel. An item whose name an earlier item still in flight holds
/// waits for that item's outcome: if it fails, the name passes on.
///
/// Memory stays small however many items a job has: a settled claim is two 64-bit hashes (XXH3
/// of the output path and of the input path), about 40 bytes with the table's overhead, not the
/// paths themselves; claims in flight and the numbers of items that passed ahead of a slower
/// earlier one are bounded by what runs meanwhile. The inputs behind the most recent claims are
/// kept by name so that the usual clash — neighbours in ingest order such as `a.mkv` and `a.mov`
/// — names both files.
final class OutputClaims: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var owners: [UInt64: UInt64] = [:]  // settled: output hash → input hash
    private var pending: [UInt64: (input: UInt64, index: Int)] = [:]  // claims of items in flight
    private var pendingKeys: [Int: [UInt64]] = [:]  // item number → its claims in flight
    private var next = 0  // the lowest item number that has not passed its claim point
    private var passedAhead = Set<Int>()
    private var numbers: [UInt64: Int] = [:]  // input hash → item number, for items in flight
    private var recentNames: [UInt64: String] = [:]  // input hash → input path, the last `namesKept` claims
    private var recentOrder: [UInt64] = []
    private var oldest = 0
    private let namesKept = 4096

    /// Item number `index` (its place in ingest order, from 0) starts; every number is begun once,
    /// in order, and finished once (`finish`).
    func begin(input: String, index: Int) {
        let owner = ContentHash.of(text: input)
        condition.lock()
        if numbers[owner] == nil { numbers[owner] = index }
        condition.unlock()
    }

    /// Claims `output` for `input`, an item begun and not finished. Returns nil when it is this
    /// item's now (free, released by a failed earlier item, or already this input's), else the
    /// earlier input's path — or a description of it when its name is no longer kept. Either way
    /// the item has passed its claim point.
    func claim(_ output: String, for input: String) -> String? {
        let key = ContentHash.of(text: output), owner = ContentHash.of(text: input)
        condition.lock()
        defer { condition.unlock() }
        let index = numbers[owner] ?? next
        while next < index { condition.wait() }
        defer { passLocked(index) }
        while true {
            if let other = owners[key] {
                return other == owner ? nil : name(of: other)
            }
            guard let held = pending[key] else { break }
            if held.input == owner { return nil }
            // An earlier item in flight holds it: its outcome decides.
            condition.wait()
        }
        pending[key] = (owner, index)
        pendingKeys[index, default: []].append(key)
        remember(owner, input)
        return nil
    }

    /// Claims `output` at once, outside the ingest order (a cover art file that tracks of one
    /// album share: the first writes it). Returns whether it was free.
    func claimNow(_ output: String, for input: String) -> Bool {
        let key = ContentHash.of(text: output), owner = ContentHash.of(text: input)
        condition.lock()
        defer { condition.unlock() }
        guard owners[key] == nil, pending[key] == nil else { return false }
        owners[key] = owner
        remember(owner, input)
        return true
    }

    /// Item `index` (of `input`) is done: its claims stay (`keep`: it wrote or kept its output) or are released
    /// to the items waiting for them. Passes its claim point if it never reached one.
    func finish(input: String, index: Int, keep: Bool) {
        let owner = ContentHash.of(text: input)
        condition.lock()
        defer { condition.unlock() }
        if numbers[owner] == index { numbers[owner] = nil }
        for key in pendingKeys.removeValue(forKey: index) ?? [] {
            guard let held = pending.removeValue(forKey: key) else { continue }
            if keep { owners[key] = held.input }
        }
        passLocked(index)
        condition.broadcast()
    }

    private func passLocked(_ index: Int) {
        guard index >= next else { return }
        passedAhead.insert(index)
        while passedAhead.remove(next) != nil { next += 1 }
        condition.broadcast()
    }

    private func name(of owner: UInt64) -> String {
        recentNames[owner] ?? "an earlier item of this job (the manifest lists it with that output)"
    }

    private func remember(_ owner: UInt64, _ input: String) {
        if recentOrder.count < namesKept {
            recentOrder.append(owner)
        } else {
            recentNames[recentOrder[oldest]] = nil
            recentOrder[oldest] = owner
            oldest = (oldest + 1) % namesKept
        }
        recentNames[owner] = input
    }
}
