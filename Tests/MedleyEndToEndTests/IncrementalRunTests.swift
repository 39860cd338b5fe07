import Foundation
import XCTest

/// Incremental runs (docs/runs.md, "Incremental runs and crash safety"): the run state skips items whose input, settings and output are
/// unchanged; everything else is redone, and nothing more.
final class IncrementalRunTests: EndToEndCase {
    /// (event, input file name, reason) for every item event of the last run.
    func itemEvents() throws -> [(event: String, name: String, reason: String)] {
        try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let kind = event["event"] as? String, ["itemFinished", "itemSkipped", "itemFailed"].contains(kind) else { return nil }
            return (kind, ((event["input"] as? String ?? "") as NSString).lastPathComponent, event["reason"] as? String ?? "")
        }.sorted { $0.name < $1.name }
    }

    func runAgain(_ extra: [String] = []) throws -> Tool.Result {
        try Tool.medley(["run", work + "/pipeline.yaml", "--quiet", "--events", work + "/events.jsonl"] + extra)
    }

    func writePipeline(intensity: Double, rate: Int) throws {
        _ = try pipeline("""
            version: 1
            jobs:
              - name: mixed
                ingest: { from: [in], media: [any] }
                filters: [ { CISepiaTone: { inputIntensity: \(intensity) } } ]
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: \(rate) }
                export: { to: out, format: png, name: "{stem}.{ext}" }
            """)
    }

    func modified(_ path: String) throws -> Date {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    func testUnchangedItemsAreSkippedAndOnlyWhatChangedIsRedone() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["landscape.jpg", "photo.webp"] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/" + name, toPath: input + "/" + name)
        }
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/tone.flac", toPath: input + "/tone.flac")
        try writePipeline(intensity: 0.8, rate: 44100)

        var result = try runAgain()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished", "itemFinished", "itemFinished"])
        let firstWrite = try modified(work + "/out/landscape.png")

        // Unchanged: everything skipped, outputs untouched, the manifest still lists all three.
        result = try runAgain()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemSkipped", "itemSkipped", "itemSkipped"])
        XCTAssertEqual(try itemEvents().map(\.reason), Array(repeating: "unchanged since the last run", count: 3))
        XCTAssertEqual(try modified(work + "/out/landscape.png"), firstWrite)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-mixed.jsonl", encoding: .utf8)
        XCTAssertEqual(manifest.split(separator: "\n").count, 3, manifest)

        // A newer modification time with the same bytes is still unchanged (the content hash decides).
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: input + "/photo.webp")
        // New bytes are not.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: input + "/landscape.jpg"))
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: input + "/landscape.jpg"))
        result = try runAgain()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished", "itemSkipped", "itemSkipped"])

        // A changed filter redoes the images only; a changed transcode the audio only.
        try writePipeline(intensity: 0.5, rate: 44100)
        result = try runAgain()
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished", "itemFinished", "itemSkipped"])
        try writePipeline(intensity: 0.5, rate: 22050)
        result = try runAgain()
        XCTAssertEqual(try itemEvents().map(\.event), ["itemSkipped", "itemSkipped", "itemFinished"])

        // A missing output is redone; --dry-run says what would run and writes nothing.
        try FileManager.default.removeItem(atPath: work + "/out/photo.png")
        result = try runAgain(["--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try itemEvents().map(\.reason), ["unchanged since the last run", "dry run", "unchanged since the last run"])
        // Without --quiet, each item the run would write says so, and the summary counts them.
        let dry = try Tool.medley(["run", work + "/pipeline.yaml", "--dry-run"])
        let lines = dry.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("would write  ") }, ["would write  \(input)/photo.webp → \(work!)/out/photo.png"], dry.stderr)
        XCTAssertEqual(lines.filter { $0.hasPrefix("skip  ") }.count, 2, dry.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("mixed: would write 1, unchanged 2, 0 failed in ") && $0.hasSuffix("(dry run: nothing written)") }, dry.stderr)
        XCTAssertFalse(dry.stderr.contains("(dry run)"), dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/photo.png"))
        result = try runAgain()
        XCTAssertEqual(try itemEvents().map(\.event), ["itemSkipped", "itemFinished", "itemSkipped"])

        // --force redoes everything.
        result = try runAgain(["--force"])
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished", "itemFinished", "itemFinished"])
    }

    /// A narrower `where` leaves out what it now excludes and redoes nothing it still selects.
    func testAChangedWhereExcludesWithoutRedoing() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["landscape.jpg", "portrait-exif6.jpg"] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/" + name, toPath: input + "/" + name)
        }
        func write(minimumWidth: Int) throws {
            _ = try pipeline("""
                version: 1
                jobs:
                  - name: wide
                    ingest: { from: [in] }
                    where: { width: { gte: \(minimumWidth) } }
                    filters: [ CISepiaTone ]
                    export: { to: out, format: png }
                """)
        }
        try write(minimumWidth: 1)
        XCTAssertEqual(try runAgain().status, 0)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished", "itemFinished"])
        // landscape.jpg is 200 px wide, portrait-exif6.jpg 160 (vipsheader says so).
        XCTAssertEqual(try Tool.run("vipsheader", ["-f", "width", input + "/portrait-exif6.jpg"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "160")
        try write(minimumWidth: 190)
        XCTAssertEqual(try runAgain().status, 0)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemSkipped"], "landscape skipped, portrait left out (no event)")
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-wide.jsonl", encoding: .utf8)
        XCTAssertTrue(manifest.contains("\"item\":\"portrait-exif6.jpg\",\"input\":\"\(input)/portrait-exif6.jpg\",\"status\":\"excluded\""), manifest)
    }

    /// A movie's poster depends on the image settings: changing the filter redoes it, nothing else does.
    func testMoviePostersFollowTheirFilterSettings() throws {
        func write(intensity: Double) throws {
            _ = try pipeline("""
                version: 1
                jobs:
                  - name: posters
                    ingest: { from: [\(Tool.fixtures)/movies/h264-aac.mp4] }
                    poster: { at: 0.5 }
                    filters: [ { CISepiaTone: { inputIntensity: \(intensity) } } ]
                    export: { to: out, format: png }
                """)
        }
        try write(intensity: 0.5)
        XCTAssertEqual(try runAgain().status, 0)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished"])
        XCTAssertEqual(try runAgain().status, 0)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemSkipped"])
        try write(intensity: 0.9)
        XCTAssertEqual(try runAgain().status, 0)
        XCTAssertEqual(try itemEvents().map(\.event), ["itemFinished"], "a changed filter redoes the poster")
    }
}
