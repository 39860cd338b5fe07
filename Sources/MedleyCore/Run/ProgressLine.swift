import Foundation

/// The live progress line of a run on a terminal, laid out to fit one row:
///
///     sepia-photos [██████░░░░░░░░░░] 412/1000 · 3 failed · 2 skipped · 41.2/s · ETA 0:14
///
/// A row that wraps leaves a new line at every redraw, so the line is cut to fit `width`
/// columns: the bar narrows first, then goes, then the rate, the ETA and the skipped count, then
/// the job name is shortened with "…". The failed count stays while anything does.
public struct ProgressLine: Equatable, Sendable {
    /// The line's parts, each without colour (the caller paints `failed`).
    public var name: String
    public var bar: String?
    public var counts: String
    public var failed: String?
    public var skipped: String?
    public var rate: String?
    public var eta: String?
    /// Columns the line may take.
    public var room: Int

    /// Cells of the bar at full size, and the fewest worth showing.
    static let widestBar = 24
    static let narrowestBar = 8

    /// The parts for `counts` of a job (`expected` items when known), done at `rate` items a
    /// second, fitted to `width` columns (one column is kept free: a line that fills the last
    /// column wraps on some terminals).
    public init(job: String, done: Int, failed: Int, skipped: Int, expected: Int?, rate: Double, width: Int) {
        name = job
        counts = expected.map { "\(done)/\($0)" } ?? "\(done) done"
        self.failed = failed > 0 ? "\(failed) failed" : nil
        self.skipped = skipped > 0 ? "\(skipped) skipped" : nil
        self.rate = rate.isFinite && rate > 0 ? Self.rateText(rate) : nil
        if let expected, rate.isFinite, rate > 0, expected > done {
            eta = "ETA " + Console.clock(Double(expected - done) / rate)
        }
        room = max(width - 1, 1)
        var cells = expected == nil ? 0 : Self.widestBar
        bar = expected.map { Self.bar(done: done, of: $0, cells: cells) }
        // Narrow the bar to fit, down to its narrowest.
        while Self.columns(of: text) > room, bar != nil, cells > Self.narrowestBar, let expected {
            cells -= 1
            bar = Self.bar(done: done, of: expected, cells: cells)
        }
        if Self.columns(of: text) > room { bar = nil }
        if Self.columns(of: text) > room { self.rate = nil }
        if Self.columns(of: text) > room { eta = nil }
        if Self.columns(of: text) > room { self.skipped = nil }
        // The name gives way last, to no less than one character and the ellipsis.
        while Self.columns(of: text) > room, name.count > 1 {
            name = String(name.dropLast(name.hasSuffix("…") ? 2 : 1)) + "…"
        }
        if Self.columns(of: text) > room { self.failed = nil }
    }

    /// The line as shown, parts joined by " · ", without colour.
    public var text: String { joined { $0 } }

    /// The line with `paintFailed` applied to the failed count (to colour it). On a terminal too
    /// narrow even for the name and the counts, the line is their first `room` characters.
    public func rendered(paintFailed: (String) -> String) -> String {
        let plain = joined { $0 }
        guard Self.columns(of: plain) <= room else {
            var cut = ""
            for character in plain {
                guard Self.columns(of: cut + String(character)) <= room else { break }
                cut.append(character)
            }
            return cut
        }
        return joined(paintFailed)
    }

    private func joined(_ paintFailed: (String) -> String) -> String {
        var line = name
        if let bar { line += " " + bar }
        line += " " + counts
        let rest = [failed.map(paintFailed), skipped, rate, eta].compactMap { $0 }
        for part in rest { line += " · " + part }
        return line
    }

    /// "[████░░░░]": `cells` wide inside the brackets, the share done rounded down, so a bar is
    /// full only when every item is.
    static func bar(done: Int, of expected: Int, cells: Int) -> String {
        let share = expected > 0 ? min(max(Double(done) / Double(expected), 0), 1) : 0
        let filled = min(Int((share * Double(cells)).rounded(.down)), cells)
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled) + "]"
    }

    /// "41.2/s", or "0.25/s" for slow rates (a rate below 0.1 would otherwise read 0.0).
    static func rateText(_ rate: Double) -> String {
        String(format: rate < 1 ? "%.2f/s" : "%.1f/s", rate)
    }

    /// Columns a text takes on a terminal: two for East Asian wide and emoji characters, none
    /// for combining marks, one for the rest (the bar's blocks and "…" included).
    static func columns(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark
                || scalar.value == 0x200B || (0xFE00...0xFE0F).contains(scalar.value) {
                return total
            }
            return total + (wideRanges.contains { $0.contains(scalar.value) } ? 2 : 1)
        }
    }

    /// Unicode's East Asian Wide and Fullwidth blocks and the emoji planes, in outline.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
        0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
