import Dispatch
import Foundation

/// Runs work items concurrently on a Dispatch queue with at most `concurrency` in flight.
///
/// The caller's sequence is pulled only when a slot is free (back-pressure), so a lazy
/// enumeration of millions of files never runs ahead of the workers. Each item's work is
/// isolated: it reports its own outcome, and one failure never stops the others.
public final class Scheduler: @unchecked Sendable {
    // @unchecked: the only mutable state, `stopRequested`, is guarded by `lock`.
    public let concurrency: Int
    private let queue = DispatchQueue(label: "medley.items", attributes: .concurrent)
    private let lock = NSLock()
    private var stopRequested = false

    public init(concurrency: Int) {
        self.concurrency = max(1, concurrency)
    }

    /// Asks the running loop to take no more items; items in flight finish.
    public func requestStop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
    }

    public var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    /// Runs `work` for every element, blocking until all have finished. Returns false when it
    /// stopped early because `requestStop()` was called.
    @discardableResult
    public func run<S: Sequence>(_ items: S, work: @escaping (S.Element) -> Void) -> Bool {
        let slots = DispatchSemaphore(value: concurrency)
        let group = DispatchGroup()
        var completed = true
        for item in items {
            slots.wait()
            if isStopping {
                slots.signal()
                completed = false
                break
            }
            group.enter()
            queue.async {
                work(item)
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        return completed
    }
}
