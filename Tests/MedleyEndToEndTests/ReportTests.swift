import Foundation
import XCTest

/// The HTML report, rendered by headless Chromium (Debian's `chromium`): every item is on the
/// page with its pictures loaded, failures show their reasons, and the page asks nothing of the
/// network — checked in Chromium's own network log.
final class ReportTests: EndToEndCase {
    func testReportShowsEveryItemWithItsPicturesAndNoRequestLeavesTheMachine() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: photos
                ingest: { from: [\(Tool.fixtures)/images, \(Tool.fixtures)/broken] }
                filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
                export: { to: out/photos, format: jpeg, name: "{relpath}/{stem}.jpg" }
                report: true
              - name: sounds
                ingest: { from: [\(Tool.fixtures)/audio], include: ["*.wav", "*.flac"] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100 }
                analyze: [metering]
                export: { to: out/sounds, name: "{relpath}/{stem}.m4a" }
                report: { thumbnails: 96 }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 1, "the broken fixtures fail: " + run.stderr)

        for job in ["photos", "sounds"] {
            let page = work + "/out/\(job)/.medley/report-\(job)/index.html"
            XCTAssertTrue(FileManager.default.fileExists(atPath: page), page)
            let manifest = try String(contentsOfFile: work + "/out/\(job)/.medley/manifest-\(job).jsonl", encoding: .utf8)
                .split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            XCTAssertFalse(manifest.isEmpty)

            // A window taller than the page, so every lazy picture is in view and loads.
            let dom = try chromium(["--window-size=1280,40000", "--log-net-log=" + work + "/net-\(job).json", "--dump-dom",
                                    "file://" + page])
            XCTAssertEqual(dom.status, 0, dom.stderr)
            let html = dom.stdout
            for record in manifest {
                let item = attribute(record["item"] as? String ?? "")
                switch record["status"] as? String {
                case "succeeded":
                    let article = try XCTUnwrap(section(of: html, opening: "<article class=\"item succeeded\" data-item=\"\(item)\"",
                                                        closing: "</article>"), "\(job): \(item) is on the page")
                    let widths = article.components(separatedBy: "data-natural-width=\"").dropFirst()
                        .compactMap { Int($0.prefix { $0.isNumber }) }
                    let images = article.components(separatedBy: "<img ").count - 1
                    XCTAssertEqual(images, job == "photos" ? 2 : 1, "\(item): before/after, or a waveform")
                    XCTAssertEqual(widths.count, images, "\(item): every picture reported by the browser")
                    XCTAssertTrue(widths.allSatisfy { $0 > 0 }, "\(item): pictures loaded (naturalWidth \(widths))")
                    if job == "sounds" { XCTAssertTrue(article.contains("peak dBFS"), "\(item): meters") }
                case "failed":
                    let reason = textContent(record["error"] as? String ?? "")
                    XCTAssertFalse(reason.isEmpty)
                    XCTAssertTrue(html.contains("data-item=\"\(item)\"><code>") && html.contains(reason),
                                  "\(job): failure of \(item) with its reason")
                default:
                    break
                }
            }
            XCTAssertFalse(html.contains("class=\"broken\""), "no picture failed to load")
            let policy = try XCTUnwrap(section(of: try String(contentsOfFile: page, encoding: .utf8),
                                               opening: "Content-Security-Policy\" content=\"", closing: "\""))
            XCTAssertTrue(policy.contains("default-src 'none'") && policy.contains("script-src 'sha256-"), policy)
            XCTAssertFalse(policy.contains("script-src 'unsafe-inline'"), policy)

            // Chromium's own network log: requests the page started (initiator "null": a file://
            // page) must not go to the network. Chromium's background requests have no initiator origin.
            let fromPage = try requestsOfThePage(netLog: work + "/net-\(job).json")
            XCTAssertTrue(fromPage.allSatisfy { $0.hasPrefix("file:") }, "\(job): the page requested \(fromPage)")
            XCTAssertFalse(try String(contentsOfFile: page, encoding: .utf8).contains("http://")
                           || String(contentsOfFile: page, encoding: .utf8).contains("https://"), "no absolute web address in the page")
        }

        // The policy is what lets the script run: the same page with another hash in its policy
        // shows no card, and Chromium's console names the violation.
        let photos = work + "/out/photos/.medley/report-photos/index.html"
        let original = try String(contentsOfFile: photos, encoding: .utf8)
        let allowed = try XCTUnwrap(section(of: original, opening: "script-src 'sha256-", closing: "'"))
        try original.replacingOccurrences(of: allowed, with: "script-src 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='")
            .write(toFile: work + "/out/photos/.medley/report-photos/other-hash.html", atomically: false, encoding: .utf8)
        let blocked = try chromium(["--enable-logging=stderr", "--v=0", "--dump-dom",
                                    "file://" + work + "/out/photos/.medley/report-photos/other-hash.html"])
        XCTAssertFalse(blocked.stdout.contains("<article"), "no script, no cards")
        XCTAssertTrue(blocked.stderr.contains("Content Security Policy"), blocked.stderr)
        let allowedRun = try chromium(["--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + photos])
        XCTAssertTrue(allowedRun.stdout.contains("<article"))
        XCTAssertFalse(allowedRun.stderr.contains("Content Security Policy"), allowedRun.stderr)
        try FileManager.default.removeItem(atPath: work + "/out/photos/.medley/report-photos/other-hash.html")

        // A screenshot of the photos report: a real, non-blank picture.
        let shot = work + "/report.png"
        let screenshot = try chromium(["--window-size=1280,1600", "--screenshot=" + shot,
                                       "file://" + work + "/out/photos/.medley/report-photos/index.html"])
        XCTAssertEqual(screenshot.status, 0, screenshot.stderr)
        let deviation = try Tool.run("vips", ["deviate", shot])
        XCTAssertEqual(deviation.status, 0, deviation.stderr)
        XCTAssertGreaterThan(Double(deviation.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 10)

        // `medley report` rebuilds the page from the manifest alone.
        try FileManager.default.removeItem(atPath: work + "/out/sounds/.medley/report-sounds")
        let rebuilt = try Tool.medley(["report", path, "--only", "sounds"])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/sounds/.medley/report-sounds/index.html"))
    }

}

extension EndToEndCase {
    /// Headless Chromium (Debian's `chromium`) with its own profile in the scratch folder; `budget`
    /// is virtual time (the page's timers and loads), not wall time.
    func chromium(_ arguments: [String], budget: Int = 10000) throws -> Tool.Result {
        try Tool.run("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                                  "--user-data-dir=" + work + "/chromium-profile", "--virtual-time-budget=\(budget)"] + arguments)
    }

    /// From Chromium's own network log (`--log-net-log`): the addresses of the requests the page
    /// started (initiator "null": a file:// page). Chromium's background requests have no initiator origin.
    func requestsOfThePage(netLog path: String) throws -> [String] {
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let kinds = ((log["constants"] as? [String: Any])?["logEventTypes"] as? [String: Int]) ?? [:]
        let start = try XCTUnwrap(kinds["URL_REQUEST_START_JOB"])
        return (log["events"] as? [[String: Any]] ?? []).compactMap { event -> String? in
            guard event["type"] as? Int == start, let params = event["params"] as? [String: Any],
                  let initiator = params["initiator"] as? String, initiator == "null" || initiator.hasPrefix("file") else { return nil }
            return params["url"] as? String
        }
    }

    /// The text from `opening` to the next `closing`.
    func section(of text: String, opening: String, closing: String) -> String? {
        guard let start = text.range(of: opening), let end = text.range(of: closing, range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.lowerBound..<end.upperBound])
    }

    /// How the HTML serialiser (Chromium's --dump-dom) writes text content and attribute values.
    func textContent(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    func attribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
