import Foundation
import MedleyMedia

/// Text for a terminal. File names and tag values may hold control characters, and written raw
/// they are commands to the terminal: ESC ] 0 ; … BEL retitles the window, ESC [ 2 J clears it,
/// others have rewritten the clipboard or made links. Everything Medley writes for a person goes
/// through `escaped`; JSON output is escaped by its encoder instead.
public enum TerminalText {
    /// Control characters shown as escapes — C0 (tab `\t`, carriage return `\r`, the rest `\x1B`),
    /// DEL (`\x7F`) and C1 (`\u009B`); with `keepingLineBreaks` a "\n" stays a line break
    /// (between the lines of a message), otherwise it is shown as `\n` (one value, one line).
    public static func escaped(_ text: String, keepingLineBreaks: Bool = true) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let value = scalar.value
            guard value < 0x20 || (0x7F...0x9F).contains(value) else {
                out.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\n" where keepingLineBreaks: escape = "\n"
            case "\n": escape = "\\n"
            case "\t": escape = "\\t"
            case "\r": escape = "\\r"
            default: escape = value < 0x80 ? String(format: "\\x%02X", value) : String(format: "\\u%04X", value)
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }
}

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

    /// A line for a person, above the progress line, its control characters escaped (line breaks
    /// between lines are kept); `color` (an SGR code, "31" for red) is applied after escaping.
    func say(_ text: String, color code: String? = nil) {
        let line = TerminalText.escaped(text)
        lock.lock()
        defer { lock.unlock() }
        clearStatus()
        try? FileHandle.standardError.write(contentsOf: Data(((code.map { paint(line, code: $0) } ?? line) + "\n").utf8))
    }

    /// One item's outcome as a plain line (not on a terminal, where the progress line shows it).
    /// The text is built only when it is shown (`--quiet` and terminals skip success lines).
    func itemLine(_ text: @autoclosure () -> String, failure: Bool) {
        guard failure || (!quiet && !interactive) else { return }
        let line = text().replacingOccurrences(of: "\n", with: "\\n")
        say(line, color: failure ? "31" : nil)
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
        // The width is asked at every redraw, so a resized window is followed; 80 when unknown.
        let width = TerminalSize.columns(of: 2) ?? ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
        let layout = ProgressLine(job: TerminalText.escaped(job, keepingLineBreaks: false), done: counts.done,
                                  failed: counts.failed, skipped: counts.skipped, expected: expected, rate: rate, width: width)
        let line = layout.rendered { paint($0, code: "31") }
        try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[K" + line).utf8))
        statusShown = true
    }

    func endProgress() {
        lock.lock()
        clearStatus()
        lock.unlock()
    }

    private func clearStatus() {
        guard statusShown else { return }
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8))
        statusShown = false
    }

    private func paint(_ text: String, code: String) -> String {
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
        _ = Descriptor.write(2, Array(text.utf8))  // a failure is dropped: there is nowhere left to say it
    }
}
