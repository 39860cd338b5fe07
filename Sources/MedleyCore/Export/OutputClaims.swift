import Foundation
import MedleyMedia

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
