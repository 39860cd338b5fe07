import Foundation
import XCTest

/// Runs under `ulimit -n` and `ulimit -v`: items fail with the reason, or the run lowers its concurrency; never a
/// crash, never a temporary file left. The crashes these guard against were intermittent (libdispatch's worker
/// monitor meeting EMFILE; glib recursing on its own failed allocation once malloc arenas had reserved the address
/// space), so each run is repeated.
final class ResourceLimitTests: EndToEndCase {
    struct Outcome {
        let reason: Process.TerminationReason
        let status: Int32
        let stderr: String
    }

    /// `medley ARGUMENTS` after `ulimit LIMIT` in bash (exec'd, so the signal of a crash is medley's own), with
    /// TMPDIR (where libvips puts its temporary files) inside the scratch folder.
    func medley(under limit: String, _ arguments: [String]) throws -> Outcome {
        let temporary = work + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let result = try Tool.run("/bin/bash", ["-c", "ulimit \(limit) && exec \"$0\" \"$@\"", Tool.medley] + arguments,
                                  environment: ["TMPDIR": temporary])
        return Outcome(reason: result.reason, status: result.status, stderr: result.stderr)
    }

    /// No temporary file of Medley's (`<to>/.medley/tmp`) or of libvips' (TMPDIR) is left.
    func assertNoTemporaryFiles(_ out: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.medley/tmp"), file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/tmp"), [], file: file, line: line)
    }

    /// `ulimit -n 24` and `--jobs 16`: the run says once that it runs one item at a time, and all 20 succeed. A
    /// descriptor left open by each item would use the 24 up after a few items and fail the rest.
    func testAnOpenFileLimitLowersConcurrencyAndEveryItemSucceeds() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for n in 1...20 {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg",
                                             toPath: input + String(format: "/p%02d.jpg", n))
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: many
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
            """)
        let note = "medley: the limit on open files (ulimit -n) is 24: running 1 item at once instead of 16 "
            + "(each needs up to 4 open files; raise it with ulimit -n to run more)\n"
        for run in 1...5 {
            try? FileManager.default.removeItem(atPath: work + "/out")
            let outcome = try medley(under: "-n 24", ["run", path, "--jobs", "16", "--quiet"])
            XCTAssertEqual(outcome.reason, .exit, "run \(run)")
            XCTAssertEqual(outcome.status, 0, "run \(run): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr, note, "run \(run)")
            XCTAssertEqual(Tool.files(under: work + "/out"), (1...20).map { String(format: "p%02d.png", $0) }, "run \(run)")
            assertNoTemporaryFiles(work + "/out")
        }
    }

    /// So few open files that not even one item fits beside what the run holds: each item fails, saying so,
    /// before it opens anything; the run ends normally.
    func testTooFewOpenFilesForOneItemFailsEachItemWithTheReason() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.jpg", "c.jpg"] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/" + name)
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: starved
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
            """)
        // 20: what the run holds before its first item (export root, locks, run state, manifest, libdispatch's
        // descriptors — about 19) fits, one more item does not.
        let outcome = try medley(under: "-n 20", ["run", path, "--jobs", "4", "--quiet"])
        XCTAssertEqual(outcome.reason, .exit)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        let records = try String(contentsOfFile: work + "/out/.medley/manifest-starved.jsonl", encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(records.map { $0["item"] as? String ?? "" }.sorted(), ["a.jpg", "b.jpg", "c.jpg"])
        for record in records {
            XCTAssertEqual(record["status"] as? String, "failed")
            let error = record["error"] as? String ?? ""
            XCTAssertTrue(error.hasPrefix("not started: ") && error.hasSuffix(
                " open files are free, an item needs up to 4 besides 2 kept free (the limit on open files (ulimit -n) is 20)"),
                error)
        }
        XCTAssertEqual(Tool.files(under: work + "/out"), [])
        assertNoTemporaryFiles(work + "/out")
    }

    /// Two 192-megapixel JPEGs (16000 × 12000) cropped on the float path under `ulimit -v 1000000` (1 GB):
    /// before, malloc's arenas reserved most of the gigabyte and decoding failed or crashed; now both are
    /// admitted against what the limit leaves and converted, run after run.
    func testBigImagesUnderAnAddressSpaceLimitAreConvertedWithoutACrash() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("vips", ["black", input + "/a.jpg", "16000", "12000"]).status, 0)
        try FileManager.default.copyItem(atPath: input + "/a.jpg", toPath: input + "/b.jpg")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: big
                ingest: { from: [in] }
                filters: [ CICrop: { inputRectangle: [0, 0, 4000, 4000] } ]
                export: { to: out, format: jpeg }
            """)
        // Three runs, not five: each decodes 384 megapixels.
        for run in 1...3 {
            try? FileManager.default.removeItem(atPath: work + "/out")
            let outcome = try medley(under: "-v 1000000", ["run", path])
            XCTAssertEqual(outcome.reason, .exit, "run \(run)")
            XCTAssertEqual(outcome.status, 0, "run \(run): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.hasPrefix("medley: memory limit (ulimit -v) of 1024 MB: "), outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("big: 2 succeeded, 0 failed"), outcome.stderr)
            XCTAssertEqual(Tool.files(under: work + "/out"), ["a.jpg", "b.jpg"], "run \(run)")
            for name in ["a.jpg", "b.jpg"] {
                let size = try Tool.run("vipsheader", ["-f", "width", work + "/out/" + name]).stdout
                    + (try Tool.run("vipsheader", ["-f", "height", work + "/out/" + name]).stdout)
                XCTAssertEqual(size, "4000\n4000\n", "run \(run): \(name)")
            }
            assertNoTemporaryFiles(work + "/out")
        }
    }

    /// An image whose rows alone (100000 pixels wide, blurred on float RGBA) need more than `ulimit -v 1000000`
    /// leaves for items fails from its header with both figures; the small image beside it is converted.
    func testAnImageThatAloneNeedsMoreThanTheMemoryLimitLeavesFailsWithTheReason() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("vips", ["black", input + "/wide.png", "100000", "600"]).status, 0)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/small.jpg")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: wide
                ingest: { from: [in] }
                filters: [ CIGaussianBlur: { inputRadius: 10 } ]
                export: { to: out, format: png }
            """)
        for run in 1...5 {
            try? FileManager.default.removeItem(atPath: work + "/out")
            let outcome = try medley(under: "-v 1000000", ["run", path, "--quiet"])
            XCTAssertEqual(outcome.reason, .exit, "run \(run)")
            XCTAssertEqual(outcome.status, 1, "run \(run): \(outcome.stderr)")
            XCTAssertEqual(Tool.files(under: work + "/out"), ["small.png"], "run \(run)")
            let records = try String(contentsOfFile: work + "/out/.medley/manifest-wide.jsonl", encoding: .utf8)
                .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let error = records.first { $0["item"] as? String == "wide.png" }?["error"] as? String ?? ""
            let pattern = #"^needs about (\d+) MB of memory, over the memory limit \(ulimit -v\) of 1024 MB, which leaves (\d+) MB for items; not decoded$"#
            let match = try NSRegularExpression(pattern: pattern).firstMatch(in: error, range: NSRange(error.startIndex..., in: error))
            let figures = (1...2).compactMap { index in match.flatMap { Range($0.range(at: index), in: error) }.flatMap { Int(error[$0]) } }
            XCTAssertEqual(figures.count, 2, error)
            XCTAssertGreaterThan(figures.first ?? 0, figures.last ?? .max, "needs more than is left: \(error)")
            assertNoTemporaryFiles(work + "/out")
        }
    }
}
