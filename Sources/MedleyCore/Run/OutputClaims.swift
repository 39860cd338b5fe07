import Foundation
import MedleyMedia

/// The output paths a job's items have claimed, so no two items write the same file.
///
/// Memory stays small however many items a job has: a claim is two 64-bit hashes (XXH3 of the
/// output path and of the input path), about 40 bytes with the table's overhead, not the paths
/// themselves. The inputs behind the most recent claims are kept by name so that the usual clash
/// — neighbours in ingest order such as `a.mkv` and `a.mov` — names both files.
struct OutputClaims {
    private var owners: [UInt64: UInt64] = [:]  // output hash → input hash
    private var recentNames: [UInt64: String] = [:]  // input hash → input path, the last `namesKept` claims
    private var recentOrder: [UInt64] = []
    private var oldest = 0
    private let namesKept = 4096

    /// Claims `output` for `input`. Returns nil when it was free (or already this input's), else
    /// the claiming input's path — or a description of it when its name is no longer kept.
    mutating func claim(_ output: String, for input: String) -> String? {
        let key = ContentHash.of(text: output), owner = ContentHash.of(text: input)
        if let other = owners[key] {
            if other == owner { return nil }
            return recentNames[other] ?? "an earlier item of this job (the manifest lists it with that output)"
        }
        owners[key] = owner
        remember(owner, input)
        return nil
    }

    /// Whether `output` is claimed by anyone.
    func isClaimed(_ output: String) -> Bool { owners[ContentHash.of(text: output)] != nil }

    private mutating func remember(_ owner: UInt64, _ input: String) {
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
