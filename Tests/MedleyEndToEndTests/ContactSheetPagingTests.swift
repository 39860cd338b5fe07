import Foundation
import XCTest

/// A contact sheet of a job with more items than one sheet holds: `per: job` pages at
/// `ContactSheetStage.pageLimit` (2,500, the documented limit), pages in byte order of the
/// items' paths. (Memory at 100,000 items is measured by benchmarks/bench-contactsheet.sh.)
final class ContactSheetPagingTests: EndToEndCase {
    func testAJobOfMoreItemsThanASheetHoldsIsPagedInItemOrder() throws {
        // 5,001 4×4 pictures (one content, each its own path): two full pages of 2,500 and one of a single item.
        let count = 5_001, perSheet = 2_500
        let seed = work + "/seed.png"
        let made = try Tool.run("convert", ["-size", "4x4", "xc:#336699", "PNG24:" + seed])
        XCTAssertEqual(made.status, 0, made.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: seed))
        for index in 0..<count {
            let folder = work + "/in/\(index / 1_000)"
            if index % 1_000 == 0 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try bytes.write(to: URL(fileURLWithPath: folder + String(format: "/p%05d.png", index)))
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: many
                ingest: { from: [in] }
                export: { to: out, format: png }
                contactSheet: { columns: 50, thumbnail: 8, gap: 1, format: png, name: "sheets/page-{page}" }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 0, String(result.stdout.suffix(2_000)) + result.stderr)

        let sheets = Tool.files(under: work + "/out/sheets").sorted()
        XCTAssertEqual(sheets.map { ($0 as NSString).lastPathComponent }, ["page-1.png", "page-2.png", "page-3.png"])
        // A tile is the thumbnail and a gap on each side; a sheet is 50 tiles across and as many rows as it needs.
        let tile = 8 + 2 * 1
        for (page, items) in [(1, perSheet), (2, perSheet), (3, count - 2 * perSheet)] {
            let sheet = try Tool.pixels(work + "/out/sheets/page-\(page).png")
            let rows = (items + 49) / 50
            XCTAssertEqual([sheet.width, sheet.height], [50 * tile, rows * tile], "page \(page): \(items) items")
        }
        // The sheets' record lists each page's items in byte order of their paths.
        let records = try String(contentsOfFile: work + "/out/.medley/contact-sheets-many.jsonl", encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let items = records.map { ($0["items"] as? [String]) ?? [] }
        XCTAssertEqual(items.map(\.count), [perSheet, perSheet, 1])
        XCTAssertEqual(items.first?.first, "0/p00000.png")
        XCTAssertEqual(items.last?.last, "5/p05000.png")
        XCTAssertEqual(items.flatMap { $0 }, (0..<count).map { "\($0 / 1_000)/" + String(format: "p%05d.png", $0) })
    }
}
