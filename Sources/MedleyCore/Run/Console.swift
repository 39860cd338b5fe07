import Foundation

/// What a person sees on stderr: a live progress line on a terminal, plain lines otherwise,
/// and a summary naming every failure. `--quiet` keeps only errors and the failure summary.
final class Console: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    let quiet: Bool
    let interactive: Bool
    let color: Bool
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var statusShown = false

    init(quiet: Bool) {
        self.quiet = quiet
        interactive = isatty(2) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        color = interactive && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    /// A line for a person, above the progress line.
    func say(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        clearStatus()
        StandardError.write(Self.visible(text) + "\n")
    }

    /// Control characters inside a line (a file named "a\nb.jpg") shown escaped, so one message
    /// stays one line; line breaks between lines are kept.
    static func visible(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.unicodeScalars.map { scalar -> String in
                guard scalar.value < 0x20 || scalar.value == 0x7F, scalar != "\u{1B}" else { return String(scalar) }
                switch scalar {
                case "\t": return "\\t"
                case "\r": return "\\r"
                default: return String(format: "\\x%02X", scalar.value)
                }
            }.joined()
        }.joined(separator: "\n")
    }

    /// One item's outcome as a plain line (not on a terminal, where the progress line shows it).
    /// The text is built only when it is shown (`--quiet` and terminals skip success lines).
    func itemLine(_ text: @autoclosure () -> String, failure: Bool) {
        guard failure || (!quiet && !interactive) else { return }
        let line = text().replacingOccurrences(of: "\n", with: "\\n")
        say(failure ? paint(line, code: "31") : line)
    }

    /// Redraws the progress line, at most ten times a second.
    func progress(job: String, counts: JobCounts, started: Date, expected: Int?) {
        guard interactive, !quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = now.timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(counts.done) / elapsed : 0
        var line = "\(job)  \(counts.done)"
        if let expected { line += "/\(expected)" }
        line += " done"
        if counts.failed > 0 { line += " · \(paint("\(counts.failed) failed", code: "31"))" }
        if counts.skipped > 0 { line += " · \(counts.skipped) skipped" }
        line += String(format: " · %.1f items/s", rate)
        if let expected, rate > 0, expected > counts.done {
            line += " · ETA " + Self.clock(Double(expected - counts.done) / rate)
        }
        StandardError.write("\r\u{1B}[K" + line)
        statusShown = true
    }

    func endProgress() {
        lock.lock()
        clearStatus()
        lock.unlock()
    }

    private func clearStatus() {
        guard statusShown else { return }
        StandardError.write("\r\u{1B}[K")
        statusShown = false
    }

    func paint(_ text: String, code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// 75 → "1:15", 3725 → "1:02:05".
    static func clock(_ seconds: Double) -> String {
        // An estimate from a rate near zero can be any size; past 100,000 hours it says nothing.
        guard seconds.isFinite, seconds >= 0, seconds < 360_000_000 else { return "--:--" }
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// "1.2 MB"
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }
}

/// Writes to standard error with write(2). FileHandle.write(_:) traps when the write fails (standard error closed,
/// or a pipe whose reader quit), and a message that cannot be shown must never stop a run.
public enum StandardError {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            guard var next = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let written = Foundation.write(2, next, left)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                next += written
                left -= written
            }
        }
    }
}
