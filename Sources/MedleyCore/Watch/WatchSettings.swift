import Foundation

/// How `medley watch` decides that a file is complete and how often it rewrites a job's
/// playlist and report during a long burst.
public struct WatchSettings: Sendable {
    /// A file no one closes after writing is taken once its size and modification time have not
    /// changed for this long (seconds).
    public var settle: Double = 2
    /// During a burst that keeps the queue full, the manifest, playlist and report are rewritten at
    /// most this often (seconds); otherwise once the queue drains.
    public var refreshEvery: Double = 10
    /// The manifest, playlist and report are rewritten once no file has been due for this long
    /// (seconds): files arriving one after another make one batch, not one rewrite each.
    public var quiet: Double = 0.5
    public init() {}

    /// The longest settle time taken (a day): beyond it a file would never be taken in practice.
    public static let longestSettle: Double = 86_400

    /// A duration as `500ms`, `2s`, `1.5s` or `1m`, in seconds; nil when it is not one, or not
    /// above zero and at most a day.
    public static func duration(_ text: String) -> Double? {
        let units: [(suffix: String, multiplier: Double, divisor: Double)] = [("ms", 1, 1000), ("s", 1, 1), ("m", 60, 1)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  let value = Double(number), value.isFinite else { return nil }
            let seconds = value * unit.multiplier / unit.divisor
            return seconds > 0 && seconds <= longestSettle ? seconds : nil
        }
        return nil
    }
}
