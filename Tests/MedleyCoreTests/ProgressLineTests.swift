import XCTest
@testable import MedleyCore

/// The progress line's layout: it never takes the terminal's last column, and gives way in a
/// fixed order (bar narrows, bar, rate, ETA, skipped, then the name is cut).
final class ProgressLineTests: XCTestCase {
    func testAWideTerminalShowsEveryPartWithABarFilledToTheShareDone() {
        let line = ProgressLine(job: "photos", done: 412, failed: 3, skipped: 2, expected: 1000, rate: 41.2, width: 120)
        // 412 of 1000 on 24 cells: floor(0.412 × 24) = 9 filled.
        let bar = "[" + String(repeating: "█", count: 9) + String(repeating: "░", count: 15) + "]"
        // ETA: 588 items left at 41.2/s = 14.27 s → 0:14.
        XCTAssertEqual(line.text, "photos \(bar) 412/1000 · 3 failed · 2 skipped · 41.2/s · ETA 0:14")
    }

    func testNoBarOrETAWhileTheCountIsUnknown() {
        let line = ProgressLine(job: "photos", done: 7, failed: 0, skipped: 0, expected: nil, rate: 0.25, width: 80)
        XCTAssertEqual(line.text, "photos 7 done · 0.25/s")
    }

    func testAFullBarOnlyWhenEveryItemIsDone() {
        let almost = ProgressLine(job: "j", done: 999, failed: 0, skipped: 0, expected: 1000, rate: 1, width: 120)
        XCTAssertTrue(almost.text.contains("░]"), almost.text)
        let all = ProgressLine(job: "j", done: 1000, failed: 0, skipped: 0, expected: 1000, rate: 1, width: 120)
        XCTAssertTrue(all.text.contains(String(repeating: "█", count: 24) + "]"), all.text)
    }

    func testEveryWidthFitsAndPartsGoInOrder() {
        let name = "a-rather-long-job-name"
        for width in 1...140 {
            let line = ProgressLine(job: name, done: 50, failed: 4, skipped: 6, expected: 200, rate: 12.5, width: width)
            let shown = line.rendered { $0 }
            XCTAssertLessThanOrEqual(shown.count, max(width - 1, 1), "width \(width): '\(shown)'")
            // What stays is a prefix of the priority order: a part is shown only if every part that
            // gives way after it is shown too.
            let order: [String?] = [line.bar, line.rate, line.eta, line.skipped]
            if let gone = order.firstIndex(where: { $0 != nil }) {
                XCTAssertTrue(order[gone...].allSatisfy { $0 != nil }, "width \(width): \(line)")
            }
            if line.name != name { XCTAssertTrue(order.allSatisfy { $0 == nil }, "the name is cut last: \(line)") }
        }
    }

    func testWideCharactersTakeTwoColumns() {
        XCTAssertEqual(ProgressLine.columns(of: "写真"), 4)
        XCTAssertEqual(ProgressLine.columns(of: "e\u{301}"), 1, "a combining accent takes no column")
        let line = ProgressLine(job: String(repeating: "写", count: 30), done: 1, failed: 0, skipped: 0, expected: 2, rate: 1, width: 30)
        XCTAssertLessThanOrEqual(ProgressLine.columns(of: line.rendered { $0 }), 29)
    }
}
