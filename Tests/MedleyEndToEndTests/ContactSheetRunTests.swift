import Foundation
import XCTest

/// The `contactSheet:` stage through `medley run`: geometry against ImageMagick's `montage` with
/// the same options (`-geometry WxH+G+G -tile Cx`) and a fit-and-centre formula written here,
/// labels, grouping, reruns and bad items.
final class ContactSheetRunTests: EndToEndCase {
    /// Solid-colour PNGs made by ImageMagick: name → (width, height, colour).
    static let pictures: [(name: String, width: Int, height: Int, colour: String)] = [
        ("a/red.png", 300, 200, "#FF0000"), ("a/blue.png", 100, 150, "#0000FF"), ("b/green.png", 50, 50, "#008000"),
        ("b/yellow.png", 90, 31, "#FFFF00"), ("c/magenta.png", 41, 77, "#FF00FF"),
    ]

    func makeInputs(_ pictures: [(name: String, width: Int, height: Int, colour: String)] = pictures) throws {
        for picture in pictures {
            let path = work + "/in/" + picture.name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let made = try Tool.run("convert", ["-size", "\(picture.width)x\(picture.height)", "xc:" + picture.colour, "PNG24:" + path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
    }

    @discardableResult
    func run(_ sheet: String, expectStatus: Int32 = 0) throws -> Tool.Result {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: sheets
                ingest: { from: [in] }
                export: { to: out, format: png }
                contactSheet: \(sheet)
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, expectStatus, result.stdout + result.stderr)
        return result
    }

    /// The box a w × h picture is fitted into W × H (enlarged or shrunk, aspect kept, rounded).
    static func fitted(_ w: Int, _ h: Int, into W: Int, _ H: Int) -> (Int, Int) {
        if w * H >= h * W { return (W, max(1, Int((Double(h) * Double(W) / Double(w)).rounded()))) }
        return (max(1, Int((Double(w) * Double(H) / Double(h)).rounded())), H)
    }

    /// The bounding box (x, y, w, h) of pixels of exactly `rgb` in an image's samples.
    static func box(of rgb: [Int], in image: (width: Int, height: Int, samples: [Int])) -> [Int] {
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = (y * image.width + x) * 3
                if Array(image.samples[i..<i + 3]) == rgb { (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)) }
            }
        }
        return maxX < 0 ? [] : [minX, minY, maxX - minX + 1, maxY - minY + 1]
    }

    static func rgb(_ hex: String) -> [Int] {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        return [value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF]
    }

    func testGeometryMatchesMontage() throws {
        try makeInputs()
        let (W, H, G, C) = (64, 48, 3, 2)
        try run("{ columns: \(C), thumbnail: { width: \(W), height: \(H) }, gap: \(G), format: png, name: sheet }")
        let sheet = work + "/out/sheet.png"
        let mine = try Tool.pixels(sheet)
        // ImageMagick's montage of the same exported files, in the same order (sorted by relative path).
        let order = Self.pictures.sorted { $0.name < $1.name }
        let montage = work + "/montage.png"
        let made = try Tool.run("montage", order.map { work + "/out/" + $0.name }
                                + ["-geometry", "\(W)x\(H)+\(G)+\(G)", "-tile", "\(C)x", "-background", "white", montage])
        XCTAssertEqual(made.status, 0, made.stderr)
        let theirs = try Tool.pixels(montage)
        let rows = (order.count + C - 1) / C
        XCTAssertEqual(mine.width, C * (W + 2 * G))
        XCTAssertEqual(mine.height, rows * (H + 2 * G))
        XCTAssertEqual([mine.width, mine.height], [theirs.width, theirs.height], "sheet size as montage's")
        for (index, picture) in order.enumerated() {
            let (w, h) = Self.fitted(picture.width, picture.height, into: W, H)
            let x = (index % C) * (W + 2 * G) + G + (W - w + 1) / 2
            let y = (index / C) * (H + 2 * G) + G + (H - h + 1) / 2
            let colour = Self.rgb(picture.colour)
            XCTAssertEqual(Self.box(of: colour, in: mine), [x, y, w, h], "\(picture.name) on Medley's sheet")
            XCTAssertEqual(Self.box(of: colour, in: theirs), [x, y, w, h], "\(picture.name) on montage's sheet")
        }
        // The short last row is background.
        XCTAssertEqual(Array(mine.samples[((mine.height - 2) * mine.width + mine.width - 2) * 3..<((mine.height - 2) * mine.width + mine.width - 2) * 3 + 3]), [255, 255, 255])
    }

    func testLabelsAreDrawnUnderEachThumbnailAndAMissingPropertyWarns() throws {
        try makeInputs()
        let (W, G, C) = (60, 4, 3)
        let result = try run("{ columns: \(C), thumbnail: \(W), gap: \(G), label: \"{stem} {rating}\", labelSize: 12, format: png, name: sheet }")
        let sheet = try Tool.pixels(work + "/out/sheet.png")
        let band = 12 * 3 / 2 + 2
        XCTAssertEqual(sheet.height, 2 * (W + 2 * G + band))
        for index in 0..<Self.pictures.count {
            // The label band: below the cell's box, inside the tile.
            let left = (index % C) * (W + 2 * G), top = (index / C) * (W + 2 * G + band) + G + W
            var differing = 0
            for y in top..<top + band + G {
                for x in left..<left + W + 2 * G {
                    let i = (y * sheet.width + x) * 3
                    if Array(sheet.samples[i..<i + 3]) != [255, 255, 255] { differing += 1 }
                }
            }
            XCTAssertGreaterThan(differing, 10, "label of cell \(index)")
        }
        XCTAssertTrue((result.stdout + result.stderr).contains("no value for 'rating'"), "a label naming a missing property warns:\n\(result.stdout)\(result.stderr)")
    }

    func testPerFolderAndPerNGiveTheRightSheets() throws {
        try makeInputs()
        try run("{ per: folder, thumbnail: 32, format: png }")
        for folder in ["a", "b", "c"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/\(folder)/contact-sheet-1.png"), folder)
        }
        let sheets = Tool.files(under: work + "/out").filter { $0.contains("contact-sheet") }
        XCTAssertEqual(sheets.count, 3, "\(sheets)")
        try FileManager.default.removeItem(atPath: work + "/out")
        try run("{ per: 2, thumbnail: 32, columns: 2, format: png, name: \"pages/p{page}\" }")
        let pages = Tool.files(under: work + "/out/pages")
        XCTAssertEqual(pages.count, 3, "5 items, 2 a sheet: \(pages)")
        let last = try Tool.pixels(work + "/out/pages/p3.png")
        XCTAssertEqual([last.width, last.height], [2 * (32 + 8), 32 + 8], "one cell on the last page, laid out as a row of 2")
        let records = try String(contentsOfFile: work + "/out/.medley/contact-sheets-sheets.jsonl", encoding: .utf8)
        XCTAssertTrue(records.contains("\"items\":[\"c/magenta.png\"]"), records)
    }

    func testASheetIsRedoneOnlyWhenOneOfItsItemsChanges() throws {
        try makeInputs()
        let options = "{ per: folder, thumbnail: 32, format: png }"
        try run(options)
        let a = work + "/out/a/contact-sheet-1.png", b = work + "/out/b/contact-sheet-1.png"
        func identity(_ path: String) throws -> [String] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return ["\(attributes[.systemFileNumber] ?? "-")", "\(attributes[.modificationDate] ?? "-")"]
        }
        let (firstA, firstB) = (try identity(a), try identity(b))
        try run(options)
        XCTAssertEqual(try identity(a), firstA, "unchanged items: the sheet is not rewritten")
        XCTAssertEqual(try identity(b), firstB)
        // One picture of folder b changes: only b's sheet is redone.
        try makeInputs([("b/green.png", 50, 50, "#00FFFF")])
        try run(options)
        XCTAssertEqual(try identity(a), firstA)
        XCTAssertNotEqual(try identity(b), firstB, "b's sheet is redone")
        XCTAssertFalse(Self.box(of: [0, 255, 255], in: try Tool.pixels(b)).isEmpty, "the new picture is on it")
        // Other options redo every sheet.
        try run("{ per: folder, thumbnail: 30, format: png }")
        XCTAssertNotEqual(try identity(a), firstA)
    }

    func testABadItemFailsAloneAndTheSheetIsStillWritten() throws {
        try makeInputs()
        let bad = work + "/in/a/broken.png"
        let good = try Data(contentsOf: URL(fileURLWithPath: work + "/in/a/red.png"))
        try good.prefix(60).write(to: URL(fileURLWithPath: bad))
        let result = try run("{ columns: 5, thumbnail: 20, gap: 0, format: png, name: sheet }", expectStatus: 1)
        let sheet = try Tool.pixels(work + "/out/sheet.png")
        XCTAssertEqual([sheet.width, sheet.height], [5 * 20, 20], "the five good items, the bad one left out:\n\(result.stdout)")
    }

    func testValidationErrorsPointAtTheValue() throws {
        try makeInputs()
        let path = try pipeline("""
            version: 1
            jobs:
              - name: sheets
                ingest: { from: [in] }
                export: { to: out }
                contactSheet: { columns: 0, per: folders, label: "{nosuch}" }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        for expected in ["pipeline.yaml:6:30", "pipeline.yaml:6:38", "pipeline.yaml:6:"] {
            XCTAssertTrue(result.stderr.contains(expected), "\(expected) in\n\(result.stderr)")
        }
        XCTAssertTrue(result.stderr.contains("columns"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'folder'"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }
}
