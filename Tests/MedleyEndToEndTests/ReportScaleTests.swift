import Foundation
import XCTest

/// The report of a 100,000-item manifest (written by this test's own generator, no run needed),
/// opened in headless Chromium: 50 cards a page, the summary's counts and the failure groups equal
/// the generator's tallies, search and filters kept in the URL's fragment find items pages away,
/// the inline script allowed by its hash alone, and no request off the machine. The page gets a
/// virtual-time budget (Chromium's, not a wall-clock limit).
final class ReportScaleTests: EndToEndCase {
    static let count = 100_000
    /// 2026-01-01T00:00:00Z, and item k finished 36 ms after item k − 1.
    static let firstFinished = 1_767_225_600.0

    /// What the generator wrote, tallied as it wrote it.
    struct Tally {
        var statuses: [String: Int] = [:]
        var reasons: [Int: Int] = [:]
        var failedAudio = 0
        var timed = 0
        var timedBytes = 0
    }

    static let reasonTemplates: [(make: (Int) -> String, shape: String)] = [
        ({ "cannot decode /library/in/\(name($0)): truncated at byte \($0 * 7)" }, "cannot decode PATH: truncated at byte N"),
        ({ _ in "libvips: VipsJpeg: premature end of JPEG file" }, "libvips: VipsJpeg: premature end of JPEG file"),
        ({ "export: cannot rename /out/.medley/tmp/3-\($0).jpg into place (Permission denied)" },
         "export: cannot rename PATH into place (Permission denied)"),
    ]

    static func name(_ k: Int) -> String { String(format: "%06d-Item.", k) + (k % 3 == 0 ? "jpg" : "flac") }

    /// Writes the manifest: statuses by k mod 10 (0–5 succeeded, 6 skipped, 7–8 failed, 9 excluded
    /// or ignored), media types by k mod 3 (image, music, podcast), three failure reasons, a
    /// finished time 36 ms apart (none for k mod 1000 = 999: a manifest from an older Medley).
    func writeManifest(to path: String) throws -> Tally {
        var tally = Tally()
        var text = ""
        text.reserveCapacity(Self.count * 260)
        for k in 0..<Self.count {
            let status: String
            switch k % 10 {
            case 0...5: status = "succeeded"
            case 6: status = "skipped"
            case 7, 8: status = "failed"
            default: status = k % 20 == 9 ? "excluded" : "ignored"
            }
            tally.statuses[status, default: 0] += 1
            let type = status == "ignored" ? nil : ["image", "music", "podcast"][k % 3]
            var line = "{\"job\":\"big\",\"item\":\"\(Self.name(k))\",\"input\":\"/library/in/\(Self.name(k))\",\"status\":\"\(status)\""
            line += ",\"persistentID\":\"\(String(format: "%016x", k))\""
            if let type { line += ",\"mediaType\":\"\(type)\"" }
            let bytes = 1000 + k % 1000
            if status == "succeeded" || status == "skipped" {
                line += ",\"output\":\"\(work!)/out/\(Self.name(k)).out\""
                if status == "succeeded" { line += ",\"bytes\":\(bytes)" }
            }
            if status == "failed" {
                let reason = (k / 10) % 3
                tally.reasons[reason, default: 0] += 1
                if type == "music" || type == "podcast" { tally.failedAudio += 1 }
                line += ",\"error\":\"\(Self.reasonTemplates[reason].make(k))\""
            }
            if status == "excluded" { line += ",\"error\":\"where: rating < 3\"" }
            if status == "ignored" { line += ",\"error\":\"not media\"" }
            line += ",\"properties\":{\"size\":\(3000 + k % 500),\"title\":\"Title \(k)\"}"
            if k % 1000 != 999 {
                line += ",\"finished\":\"\(Self.timestamp(Self.firstFinished + Double(k) * 0.036))\""
                tally.timed += 1
                if status == "succeeded" { tally.timedBytes += bytes }
            }
            text += line + "}\n"
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return tally
    }

    /// ISO-8601 UTC with milliseconds, by the test's own arithmetic.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let date = Date(timeIntervalSince1970: Double(milliseconds / 1000))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0, milliseconds % 1000)
    }

    func testAHundredThousandItemReportPagesSearchesAndFilters() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/out/.medley", withIntermediateDirectories: true)
        let tally = try writeManifest(to: work + "/out/.medley/manifest-big.jsonl")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: big
                ingest: { from: [in] }
                export: { to: out, format: jpeg }
                report: true
            """)
        let made = try Tool.medley(["report", path])
        XCTAssertEqual(made.status, 0, made.stderr + made.stdout)
        let folder = work + "/out/.medley/report-big"
        let page = folder + "/index.html"
        let source = try String(contentsOfFile: page, encoding: .utf8)
        // One file: no output exists, so no picture is made.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["index.html", "thumbs"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/thumbs"), [])

        // The summary, as written (no script needed to see it).
        for (name, status) in [("succeeded", "succeeded"), ("skipped (unchanged)", "skipped"), ("failed", "failed"),
                               ("excluded", "excluded"), ("ignored", "ignored")] {
            XCTAssertTrue(source.contains("data-count=\"\(name)\">\(tally.statuses[status] ?? -1)</td>"), name)
            XCTAssertTrue(source.contains("data-label=\"\(status)\" data-value=\"\(tally.statuses[status] ?? -1)\""), "outcome bar \(status)")
        }
        XCTAssertTrue(source.contains("data-count=\"items\">\(Self.count)</td>"))
        XCTAssertTrue(source.contains("data-chart=\"items\" data-total=\"\(tally.timed)\""))
        XCTAssertTrue(source.contains("data-chart=\"bytes\" data-total=\"\(tally.timedBytes)\""))
        XCTAssertTrue(source.contains("id=\"untimed\" data-count=\"\(Self.count - tally.timed)\""))
        // Failures by reason, largest group first, each with the generator's count.
        let groups = source.components(separatedBy: "<details class=\"failure-group\" data-count=\"").dropFirst()
            .map { (count: Int($0.prefix { $0.isNumber }) ?? -1, shape: $0.split(separator: "\"").dropFirst(2).first.map(String.init) ?? "") }
        // Equal counts in the order of their shapes' bytes.
        let expected = tally.reasons.map { (count: $0.value, shape: Self.reasonTemplates[$0.key].shape) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.shape < $1.shape }
        XCTAssertEqual(groups.map(\.count), expected.map(\.count))
        XCTAssertEqual(groups.map(\.shape), expected.map(\.shape))
        XCTAssertEqual(groups.map(\.count).reduce(0, +), tally.statuses["failed"])

        // The inline script's hash, by coreutils and base64, is what the policy allows; nothing unsafe-inline for scripts.
        let script = try XCTUnwrap(source.components(separatedBy: "<script>").last?.components(separatedBy: "</script>").first)
        try script.write(toFile: work + "/script.js", atomically: false, encoding: .utf8)
        let hash = try Tool.run("/bin/sh", ["-c", "sha256sum '\(work!)/script.js' | cut -d' ' -f1 | xxd -r -p | base64"])
        XCTAssertEqual(hash.status, 0, hash.stderr)
        XCTAssertTrue(source.contains("script-src 'sha256-\(hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines))'"))
        XCTAssertFalse(source.contains("script-src 'unsafe-inline'"))

        // The first page: 50 cards (made only by the script), the first items in order.
        let first = try chromium(["--window-size=1280,4000", "--log-net-log=" + work + "/net.json", "--enable-logging=stderr", "--v=0",
                                  "--dump-dom", "file://" + page], budget: 30000)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(first.stderr.contains("Content Security Policy"), "no CSP violation on the console")
        XCTAssertEqual(cards(first.stdout).count, 50)
        XCTAssertEqual(cards(first.stdout).first?.item, Self.name(0))
        XCTAssertEqual(matches(first.stdout), Self.count)
        XCTAssertTrue(try requestsOfThePage(netLog: work + "/net.json").allSatisfy { $0.hasPrefix("file:") })

        // Search (lowercase, the name has a capital) finds an item on page 1,201 of the full list.
        let wanted = 60_000
        XCTAssertGreaterThanOrEqual(wanted / 50 + 1, 1000)
        let found = try chromium(["--dump-dom", "file://" + page + "#q=" + String(format: "%06d-item", wanted)], budget: 30000)
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(cards(found.stdout).map(\.item), [Self.name(wanted)])
        XCTAssertEqual(matches(found.stdout), 1)

        // The same item by its page.
        let paged = try chromium(["--dump-dom", "file://" + page + "#page=\(wanted / 50 + 1)"], budget: 30000)
        XCTAssertEqual(cards(paged.stdout).first?.item, Self.name(wanted))

        // Failed audio (music and podcasts): the generator's count, every card failed audio.
        let filtered = try chromium(["--dump-dom", "file://" + page + "#status=failed&type=audio"], budget: 30000)
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertEqual(matches(filtered.stdout), tally.failedAudio)
        let shown = cards(filtered.stdout)
        XCTAssertEqual(shown.count, 50)
        XCTAssertTrue(shown.allSatisfy { $0.status == "failed" && ($0.type == "music" || $0.type == "podcast") }, "\(shown.prefix(3))")

        // Ignored items stay listed (they have no media type).
        let ignored = try chromium(["--dump-dom", "file://" + page + "#status=ignored&type=none"], budget: 30000)
        XCTAssertEqual(matches(ignored.stdout), tally.statuses["ignored"])
    }

    /// The cards the script made: (item, status, media type), in page order.
    func cards(_ html: String) -> [(item: String, status: String, type: String)] {
        html.components(separatedBy: "<article class=\"item ").dropFirst().map { card in
            func value(_ name: String) -> String {
                card.components(separatedBy: name + "=\"").dropFirst().first?.split(separator: "\"", omittingEmptySubsequences: false)
                    .first.map(String.init) ?? ""
            }
            return (value("data-item"), value("data-status"), value("data-type"))
        }
    }

    /// How many items the list's search and filters match, as the page says.
    func matches(_ html: String) -> Int? {
        html.components(separatedBy: "data-matches=\"").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
    }
}
