import Foundation
import XCTest

/// Permissions (docs/safety.md: a pipeline reads only under its ingest roots), against an input swapped for a symbolic link
/// after ingest listed it: the item must fail, not read and export the file the link leads to. Deterministic: the
/// run has `--jobs 1` and goes in ingest order, the test swaps after the first item finished, and the run can be
/// at most a page of events (a few items) ahead, so the last of 30 items is always still to come.
final class InputSwapTests: EndToEndCase {
    /// 29 photos a01…a29.jpg and a 30th, `last`, all copies of one fixture; the outside file is another picture.
    private func makeInputs(last: String) throws -> (input: String, outside: String) {
        let input = work + "/in", outside = work + "/outside"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for n in 1...29 {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg",
                                             toPath: input + String(format: "/a%02d.jpg", n))
        }
        try FileManager.default.createDirectory(atPath: input + "/" + (last as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/" + last)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/portrait-exif6.jpg",
                                         toPath: outside + "/" + (last as NSString).lastPathComponent)
        return (input, outside)
    }

    private func swapPipeline() throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: swap
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png, name: "{relpath}/{stem}.{ext}" }
            """)
    }

    /// Runs the job, calling `swap` once the first item has finished; returns the run and its standard error.
    private func run(swapping swap: () throws -> Void) throws -> (EventedRun, String) {
        let run = try EventedRun(["run", try swapPipeline(), "--jobs", "1"])
        XCTAssertTrue(run.read(untilThe: 1, "itemFinished"))
        try swap()
        let stderr = run.finish()
        return (run, stderr)
    }

    private func assertOnlyTheSwappedItemFailed(_ run: EventedRun, _ stderr: String, item: String, reason: String,
                                                file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(run.process.terminationReason, .exit, file: file, line: line)
        XCTAssertEqual(run.process.terminationStatus, 1, stderr, file: file, line: line)
        let failed = run.lines.filter { $0["event"] as? String == "itemFailed" }
        XCTAssertEqual(failed.map { $0["input"] as? String }, [work + "/in/" + item], stderr, file: file, line: line)
        let error = failed.first?["error"] as? String ?? ""
        XCTAssertTrue(error.contains(reason) && error.hasSuffix("not followed (a run reads only inside its ingest roots)"),
                      error, file: file, line: line)
        XCTAssertEqual(run.count("itemFinished"), 29, file: file, line: line)
        // Every output is one of the 29 others; nothing was written for the swapped item, nor beside the outside file.
        XCTAssertEqual(Tool.files(under: work + "/out"), (1...29).map { String(format: "a%02d.png", $0) },
                       file: file, line: line)
        XCTAssertEqual(Tool.files(under: work + "/outside"), [(item as NSString).lastPathComponent], file: file, line: line)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-swap.jsonl", encoding: .utf8)
        let record = manifest.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["item"] as? String == item }
        XCTAssertEqual(record?["status"] as? String, "failed", file: file, line: line)
        XCTAssertNil(record?["output"] as? String, file: file, line: line)
    }

    func testAnInputSwappedForALinkToAFileOutsideTheRootFails() throws {
        let (input, outside) = try makeInputs(last: "a30.jpg")
        let (run, stderr) = try run {
            try FileManager.default.removeItem(atPath: input + "/a30.jpg")
            try FileManager.default.createSymbolicLink(atPath: input + "/a30.jpg", withDestinationPath: outside + "/a30.jpg")
        }
        try assertOnlyTheSwappedItemFailed(run, stderr, item: "a30.jpg",
                                           reason: "it was replaced by a symbolic link after it was listed")
    }

    /// A folder ingest listed as a folder and enters later (it sorts last), swapped meanwhile for a link to a
    /// folder outside: not entered. Ingest reports it (it is no item: the run never lists what is outside).
    func testAFolderSwappedForALinkToAFolderOutsideTheRootIsNotEntered() throws {
        let (input, outside) = try makeInputs(last: "zz/late.jpg")
        let (run, stderr) = try run {
            try FileManager.default.moveItem(atPath: input + "/zz", toPath: work + "/moved-zz")
            try FileManager.default.createSymbolicLink(atPath: input + "/zz", withDestinationPath: outside)
        }
        XCTAssertEqual(run.process.terminationReason, .exit)
        XCTAssertEqual(run.process.terminationStatus, 1, stderr)
        let failed = run.lines.filter { $0["event"] as? String == "itemFailed" }
        XCTAssertEqual(failed.map { $0["input"] as? String }, [""], stderr)
        XCTAssertEqual(failed.first?["error"] as? String,
                       "Could not read \"\(input)/zz\": it was replaced by a symbolic link after it was listed; not followed.")
        XCTAssertEqual(run.count("itemFinished"), 29)
        XCTAssertEqual(Tool.files(under: work + "/out"), (1...29).map { String(format: "a%02d.png", $0) })
        XCTAssertEqual(Tool.files(under: outside), ["late.jpg"])
    }

    /// A link inside the root that ingest followed (it stayed inside) but that was turned to the outside after
    /// the listing: opened by following it, then refused because the file opened lies outside the root.
    func testAFollowedLinkRetargetedOutsideTheRootFails() throws {
        let (input, outside) = try makeInputs(last: "sub/real.jpg")
        // a01…a29, a30.jpg (→ sub/real.jpg, inside the root: followed), sub/real.jpg.
        try FileManager.default.createSymbolicLink(atPath: input + "/a30.jpg", withDestinationPath: "sub/real.jpg")
        let (run, stderr) = try run {
            try FileManager.default.removeItem(atPath: input + "/a30.jpg")
            try FileManager.default.createSymbolicLink(atPath: input + "/a30.jpg", withDestinationPath: outside + "/real.jpg")
        }
        XCTAssertEqual(run.process.terminationReason, .exit)
        XCTAssertEqual(run.process.terminationStatus, 1, stderr)
        let failed = run.lines.filter { $0["event"] as? String == "itemFailed" }
        XCTAssertEqual(failed.map { $0["input"] as? String }, [input + "/a30.jpg"], stderr)
        let root = URL(fileURLWithPath: input).resolvingSymlinksInPath().path
        XCTAssertEqual(failed.first?["error"] as? String,
                       "it now resolves outside the ingest root \(root) (a symbolic link replaced it or a folder on its path after it was listed); not read")
        XCTAssertEqual(Tool.files(under: work + "/out"), (1...29).map { String(format: "a%02d.png", $0) } + ["sub/real.png"])
        XCTAssertEqual(Tool.files(under: outside), ["real.jpg"])
    }

    /// `medley report` draws an image's "before" picture from its input again: an input swapped since the run
    /// for a link to a picture elsewhere gets none (the open file's hash is not the item's persistentID), the
    /// others get theirs.
    func testTheReportDrawsNoPictureOfAnInputSwappedSinceTheRun() throws {
        let input = work + "/in", outside = work + "/outside"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/a.jpg")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/alpha.png", toPath: input + "/b.png")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/portrait-exif6.jpg", toPath: outside + "/secret.jpg")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: pics
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
                report: true
            """)
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
        let report = work + "/out/.medley/report-pics"
        let ids = try String(contentsOfFile: work + "/out/.medley/manifest-pics.jsonl", encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .reduce(into: [String: String]()) { $0[$1["item"] as? String ?? ""] = $1["persistentID"] as? String }
        let before = { (item: String) in report + "/thumbs/\(ids[item] ?? "?")-in.jpg" }
        XCTAssertTrue(FileManager.default.fileExists(atPath: before("a.jpg")))
        try FileManager.default.removeItem(atPath: report)
        try FileManager.default.removeItem(atPath: input + "/a.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/a.jpg", withDestinationPath: outside + "/secret.jpg")
        let rebuilt = try Tool.medley(["report", path])
        XCTAssertEqual(rebuilt.status, 0, rebuilt.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: before("a.jpg")), "no picture of the file outside")
        XCTAssertTrue(FileManager.default.fileExists(atPath: before("b.png")))
        let page = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        XCTAssertFalse(page.contains("\(ids["a.jpg"] ?? "?")-in.jpg"))
    }
}
