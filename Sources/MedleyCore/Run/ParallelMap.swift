import Foundation

/// `transform` applied to every index on all cores (DispatchQueue.concurrentPerform), results in
/// index order.
public func parallelMap<T>(count: Int, _ transform: (Int) -> T) -> [T] {
    let slots = ParallelSlots<T>(count)
    DispatchQueue.concurrentPerform(iterations: count) { index in
        slots.set(index, transform(index))
    }
    return slots.values.map { $0! }
}

/// One slot per index, each written once by one worker.
private final class ParallelSlots<T>: @unchecked Sendable {
    // @unchecked: writes are serialised by `lock`; reads happen after every worker has finished.
    private(set) var values: [T?]
    private let lock = NSLock()
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: T) {
        lock.lock()
        values[index] = value
        lock.unlock()
    }
}
