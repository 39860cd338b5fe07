import Foundation
import XCTest
@testable import MedleyCore
import MedleyFilters

/// The numbers behind the report: failure reasons' shapes and groups, the charts' buckets and
/// cumulative values (against formulas here), the `finished` timestamps (against GNU `date`), and
/// the JSON the page embeds.
final class ReportDataTests: XCTestCase {
    func testReasonsShapeTheirPathsNumbersAndTemporaryNames() {
        XCTAssertEqual(FailureGroups.shape(of: "cannot decode /in/My Photos/a 1.png: truncated at byte 4096",
                                           paths: ["/in/My Photos/a 1.png"]), "cannot decode PATH: truncated at byte N")
        XCTAssertEqual(FailureGroups.shape(of: "export: cannot rename /out/.medley/tmp/12-345.jpg (No such file)"),
                       "export: cannot rename PATH (No such file)")
        XCTAssertEqual(FailureGroups.shape(of: "temporary 7-81.png left after 3 tries"), "temporary N-N.png left after N tries")
        XCTAssertEqual(FailureGroups.shape(of: "tag: 'title' is 300 characters, at most 255"), "tag: 'title' is N characters, at most N")
        XCTAssertEqual(FailureGroups.shape(of: "a ratio of 1.5 is not 2/3"), "a ratio of N.N is not PATH")
        XCTAssertEqual(FailureGroups.shape(of: ""), "")
    }

    func testGroupsAreCountedAndSortedByCountThenShape() {
        var reasons: [(index: Int, reason: String, paths: [String])] = []
        // 7 of one shape, 3 and 3 of two others, 1 alone: indices in order within each group.
        for k in 0..<14 {
            let reason: String
            switch k % 14 {
            case 0..<7: reason = "cannot decode /in/\(k).png: truncated at byte \(k * 100)"
            case 7..<10: reason = "zeta: \(k) frames missing"
            case 10..<13: reason = "alpha: \(k) frames missing"
            default: reason = "unique"
            }
            reasons.append((k, reason, ["/in/\(k).png"]))
        }
        let groups = FailureGroups.group(reasons)
        XCTAssertEqual(groups.map(\.shape), ["cannot decode PATH: truncated at byte N", "alpha: N frames missing",
                                             "zeta: N frames missing", "unique"])
        XCTAssertEqual(groups.map(\.members), [Array(0..<7), Array(10..<13), Array(7..<10), [13]])
    }

    /// 601 items one second apart: a 600 s span in 60 buckets of 10 s, 10 items each, the last
    /// item (at 600 s) in the last bucket; bytes of item k = 2k.
    func testTimelineBucketsAndCumulativeValues() throws {
        let start = 1_767_225_600.0
        let events = (0...600).map { (seconds: start + Double($0), bytes: Int64(2 * $0)) }
        let timeline = try XCTUnwrap(ReportCharts.timeline(events.shuffled(), buckets: 60))
        XCTAssertEqual(timeline.start, start)
        XCTAssertEqual(timeline.bucketSeconds, 10)
        XCTAssertEqual(timeline.counts, Array(repeating: 10, count: 59) + [11])
        XCTAssertEqual(timeline.cumulativeCounts, (0..<60).map { $0 == 59 ? 601 : 10 * ($0 + 1) })
        // Items 0…10b+9 by the end of bucket b: bytes 2·(0+…+n) = n(n+1).
        XCTAssertEqual(timeline.cumulativeBytes, (0..<60).map { b in
            let n = Int64(b == 59 ? 600 : 10 * b + 9)
            return n * (n + 1)
        })
        XCTAssertEqual(timeline.throughput, Array(repeating: 1.0, count: 59) + [1.1])
    }

    /// A re-run's manifest lists unchanged items with the time their outputs were made, days
    /// before: the charts over time leave them out (and say how many), the outcome bars do not.
    func testChartsOverTimeShowTheLastRunOnly() throws {
        let lastRun = 1_767_225_600.0
        var items: [RunReport.Item] = []
        for k in 0..<30 {
            // 10 from three days before, 20 in the last run; all succeeded, 1,000 bytes each.
            let seconds = k < 10 ? lastRun - 3 * 86_400 + Double(k) : lastRun + Double(k)
            var record = ManifestRecord(job: "j", item: "\(k).png", input: "/in/\(k).png", status: k < 10 ? .skipped : .succeeded)
            record.bytes = 1_000
            record.finished = ManifestRecord.timestamp(Date(timeIntervalSince1970: seconds))
            items.append(RunReport.Item(record: record))
        }
        let html = RunReport.charts(items: items, counts: { status in items.filter { $0.status == status }.count }, since: lastRun)
        XCTAssertTrue(html.contains("id=\"earlier\" data-count=\"10\""), html)
        XCTAssertFalse(html.contains("id=\"untimed\""), html)
        // The items chart's total is the last run's 20, its bytes 20 × 1,000.
        XCTAssertTrue(html.contains("data-chart=\"items\" data-total=\"20\""), html)
        XCTAssertTrue(html.contains("data-chart=\"bytes\" data-total=\"20000\""), html)
        XCTAssertTrue(html.contains("data-chart=\"outcomes\" data-total=\"30\""), "the outcome bars count every item: \(html)")
    }

    /// Byte counts from a manifest edited to absurd values are held at Int64.max, never a trap.
    func testByteSumsSaturate() throws {
        XCTAssertEqual(ReportCharts.sum(.max, 1), .max)
        XCTAssertEqual(ReportCharts.sum(.max - 1, 1), .max)
        XCTAssertEqual(ReportCharts.sum(-5, 7), 7, "a negative count is none")
        XCTAssertEqual(ReportCharts.sum(40, 2), 42)
        let timeline = try XCTUnwrap(ReportCharts.timeline([(0, .max), (1, .max), (2, .max)], buckets: 2))
        XCTAssertEqual(timeline.cumulativeBytes.last, .max)
    }

    func testTimelineOfOneInstantOrNothing() throws {
        XCTAssertNil(ReportCharts.timeline([]))
        let once = try XCTUnwrap(ReportCharts.timeline([(100, 5), (100, 7)]))
        XCTAssertEqual(once.counts, [2])
        XCTAssertEqual(once.bytes, [12])
        XCTAssertNil(ReportCharts.timeline([(Double.nan, 1)]))
    }

    /// Pairs printed by `date -u -d @SECONDS +%Y-%m-%dT%H:%M:%S.%3NZ` (GNU coreutils).
    func testFinishedTimestampsAgainstGNUDate() throws {
        let pairs: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_767_225_600.036, "2026-01-01T00:00:00.036Z"), (1_709_208_000.999, "2024-02-29T12:00:00.999Z"),
            (4_102_444_799.001, "2099-12-31T23:59:59.001Z"),
        ]
        for (seconds, text) in pairs {
            XCTAssertEqual(ManifestRecord.timestamp(Date(timeIntervalSince1970: seconds)), text)
            XCTAssertEqual(try XCTUnwrap(ManifestRecord.seconds(ofTimestamp: text)), seconds, accuracy: 1e-6, text)
        }
        XCTAssertEqual(ManifestRecord.seconds(ofTimestamp: "2026-01-01T00:00:00Z"), 1_767_225_600)
        for bad in ["", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00.12x4Z", "2026-01-01 00:00:00Z",
                    "2026-01-01T00:00:00+01:00", "2026-01-01T00:00:00.0000000000000000001Z"] {
            XCTAssertNil(ManifestRecord.seconds(ofTimestamp: bad), bad)
        }
    }

    func testFinishedRoundTripsThroughAManifestLine() throws {
        var record = ManifestRecord(job: "j", item: "a.png", input: "/in/a.png", status: .succeeded)
        record.finished = "2026-01-01T00:00:00.036Z"
        let line = record.line
        XCTAssertTrue(line.hasSuffix(",\"finished\":\"2026-01-01T00:00:00.036Z\"}"), line)
        XCTAssertEqual(try ManifestRecord(line: line).finished, record.finished)
        XCTAssertNil(try ManifestRecord(line: "{\"status\":\"failed\"}").finished)
    }

    /// The page's data block: no `</script>` (or `<!--`) can appear in it, and it is JSON that decodes to the text.
    func testEmbeddedJSONStringsCannotCloseTheScript() throws {
        let hostile = "a</script><script>alert(1)</script>\"\\\n\t\u{1}<!-- & \u{2028} é 🎵"
        let literal = RunReport.json(hostile)
        XCTAssertFalse(literal.contains("<"))
        XCTAssertFalse(literal.contains(">"))
        let decoded = try JSONSerialization.jsonObject(with: Data(("[" + literal + "]").utf8)) as? [String]
        XCTAssertEqual(decoded, [hostile])
        // A scalar past U+FFFF asked to be escaped is written as its surrogate pair, which JSON decodes back.
        let astral = JSONValue.quote("x🎵", alsoEscaping: { $0.value > 0xFFFF })
        XCTAssertEqual(astral, "\"x\\ud83c\\udfb5\"")
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(("[" + astral + "]").utf8)) as? [String], ["x🎵"])
    }
}

extension ReportDataTests {
    /// Against Python's `os.path.relpath(path, folder)`.
    func testOutputLinksRelativeToTheReportFolder() {
        let folder = ("/lib/out/.medley/report-j" as NSString).standardizingPath.split(separator: "/")
        XCTAssertEqual(RunReport.relativeLink(to: "/lib/out/A/B/01 Song.m4a", from: folder), "../../A/B/01 Song.m4a")
        XCTAssertEqual(RunReport.relativeLink(to: "/lib/out/./A/../C/x.jpg", from: folder), "../../C/x.jpg")
        XCTAssertEqual(RunReport.relativeLink(to: "/lib/out/.medley/report-j/x.jpg", from: folder), "x.jpg")
        XCTAssertEqual(RunReport.relativeLink(to: "/elsewhere/x.jpg", from: folder), "../../../../elsewhere/x.jpg")
    }
}
