import Foundation
import XCTest
@testable import MedleyCore

/// SIGKILL at random moments (docs/runs.md, "Incremental runs and crash safety"): every restart continues, and the finished export has
/// every output exactly once, each decodable, no temporary files, and a manifest of every item.
final class CrashSafetyTests: EndToEndCase {
    static let items = 400

    /// 400 distinct small JPEGs: one 48×32 image made by vips, each copy with its own bytes after
    /// the end-of-image marker (decoders ignore them), so every item has its own content hash.
    func makeInputs() throws -> [String] {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/a/b", withIntermediateDirectories: true)
        let seed = work + "/seed.jpg"
        XCTAssertEqual(try Tool.run("vips", ["black", seed + "[Q=90]", "48", "32", "--bands", "3"]).status, 0)
        let base = try Data(contentsOf: URL(fileURLWithPath: seed))
        var names: [String] = []
        for i in 0..<Self.items {
            let folder = i % 3 == 0 ? "" : (i % 3 == 1 ? "a/" : "a/b/")
            let name = folder + String(format: "img-%03d", i)
            var bytes = base
            bytes.append(contentsOf: Array("medley-\(i)".utf8))
            try bytes.write(to: URL(fileURLWithPath: input + "/" + name + ".jpg"))
            names.append(name)
        }
        return names
    }

    func testKilledRunsAlwaysFinishCompleteAndClean() throws {
        let names = try makeInputs()
        let path = try pipeline("""
            version: 1
            jobs:
              - name: crash
                ingest: { from: [in] }
                filters: [ { CISepiaTone: { inputIntensity: 0.7 } }, { CIGaussianBlur: { inputRadius: 2 } } ]
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
            """)
        // Each trial is killed at a point of its own progress — after the k-th item started or
        // finished (k = 1…5, seeded), or as soon as the job starts — never after a time: the run
        // can get at most one pipe page of events (a few items) past that point, so however fast
        // the machine, every trial dies with most of the 400 items still to do.
        var generator = SplitMix64(seed: 2026)
        var killedMidRun = 0
        for trial in 0..<20 {
            let run = try EventedRun(["run", path, "--quiet", "--jobs", "2"])
            let k = Int(generator.next() % 5) + 1
            let event = ["itemFinished", "itemStarted", "jobStarted"][trial % 3]
            let reached = run.read(untilThe: event == "jobStarted" ? 1 : k, event)
            XCTAssertTrue(reached, "trial \(trial): the run ended before its \(k)-th \(event): \(run.stderr)")
            if run.process.isRunning {
                kill(run.process.processIdentifier, SIGKILL)
                killedMidRun += 1
            }
            _ = run.finish()
            XCTAssertEqual(run.process.terminationReason, .uncaughtSignal, "trial \(trial) was killed, not finished")
        }
        XCTAssertEqual(killedMidRun, 20, "every trial kills a run in progress")

        let final = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
        XCTAssertEqual(final.status, 0, final.stderr)
        let expected = Set(names.map { $0 + ".png" })
        XCTAssertEqual(Set(Tool.files(under: work + "/out")), expected, "every output once, nothing else")
        // No temporary files: .medley holds only the lock, the manifest, the run state and the job summary.
        XCTAssertEqual(Tool.files(under: work + "/out/.medley"), ["lock", "manifest-crash.jsonl", "state.sqlite", "summary-crash.json"])
        // Every output decodes to the end: ImageMagick reads all pixels of each (one process for all
        // files), and with -regard-warnings a cut or corrupt PNG is an error.
        let outputs = names.map { work + "/out/" + $0 + ".png" }
        let decoded = try Tool.run("identify", ["-regard-warnings", "-format", "%w×%h %[fx:mean]\n"] + outputs)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(decoded.stdout.split(separator: "\n").filter { $0.hasPrefix("48×32 ") }.count, Self.items)
        let lines = try String(contentsOfFile: work + "/out/.medley/manifest-crash.jsonl", encoding: .utf8)
            .split(separator: "\n")
        let items = try lines.map { line -> String in
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(record["status"] as? String, "succeeded")
            return record["item"] as? String ?? ""
        }
        XCTAssertEqual(items.count, Self.items, "the manifest lists every item once")
        XCTAssertEqual(Set(items), Set(names.map { $0 + ".jpg" }))
    }
}

extension CrashSafetyTests {
    /// A job "stop" that blurs the inputs of `makeInputs` into PNGs under out/.
    func stopPipeline() throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: stop
                ingest: { from: [in] }
                filters: [ { CIGaussianBlur: { inputRadius: 4 } } ]
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
            """)
    }

    /// SIGTERM: the items in flight finish, the manifest and run state are written, the summary
    /// says what happened, and the next run finishes the rest without redoing anything.
    func testTerminateStopsGracefullyAndTheNextRunFinishes() throws {
        let names = try makeInputs()
        let path = try stopPipeline()
        // SIGTERM once 20 items have finished; then the test reads no event until Medley says it
        // is stopping, so the run cannot race ahead (it blocks on a full events pipe) whatever the
        // machine's speed.
        // --failed-items-ok changes nothing here: a run stopped early exits 1 with it too.
        let run = try EventedRun(["run", path, "--jobs", "2", "--failed-items-ok"])
        XCTAssertTrue(run.read(untilThe: 20, "itemFinished"), run.stderr)
        run.process.terminate()
        XCTAssertTrue(run.waitForStderr(containing: "medley: stopping after the items in flight"), run.stderr)
        let stderr = run.finish()
        XCTAssertEqual(run.process.terminationReason, .exit)
        XCTAssertEqual(run.process.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("medley: interrupted after"), stderr)
        XCTAssertEqual(run.count("jobFinished"), 1, "the job ends with its summary event")
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-stop.jsonl", encoding: .utf8)
        let done = manifest.split(separator: "\n").count
        XCTAssertGreaterThanOrEqual(done, 20, "the 20 items seen finished are in the manifest")
        XCTAssertLessThan(done, names.count / 2, "stopped near where it was asked to, far from the end")
        XCTAssertEqual(done, run.count("itemFinished"), "the manifest lists exactly the items reported finished")
        XCTAssertEqual(Tool.files(under: work + "/out").count, done, "every finished item has its output, nothing more")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/.medley/tmp"), "no temporary files")

        let rest = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
        XCTAssertEqual(rest.status, 0, rest.stderr)
        let events = try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8)
        XCTAssertEqual(events.components(separatedBy: "\"itemSkipped\"").count - 1, done, "done items are not redone")
        XCTAssertEqual(events.components(separatedBy: "\"itemFinished\"").count - 1, names.count - done)
        XCTAssertEqual(Tool.files(under: work + "/out").count, names.count)
    }
}

extension CrashSafetyTests {
    /// SIGINT (Ctrl-C) stops as SIGTERM does — items in flight finish, the manifest is complete —
    /// and exits 130, as shells report a command an interrupt ended.
    func testInterruptFinishesTheItemsInFlightAndExits130() throws {
        _ = try makeInputs()
        let path = try stopPipeline()
        let run = try EventedRun(["run", path, "-j", "2"])
        XCTAssertTrue(run.read(untilThe: 5, "itemFinished"), run.stderr)
        run.process.interrupt()
        XCTAssertTrue(run.waitForStderr(containing: "medley: stopping after the items in flight (signal \(SIGINT))"), run.stderr)
        let stderr = run.finish()
        XCTAssertEqual(run.process.terminationReason, .exit)
        XCTAssertEqual(run.process.terminationStatus, 128 + SIGINT, stderr)
        XCTAssertTrue(stderr.contains("medley: interrupted after"), stderr)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-stop.jsonl", encoding: .utf8)
        XCTAssertEqual(manifest.split(separator: "\n").count, run.count("itemFinished"))
        XCTAssertLessThan(run.count("itemFinished"), Self.items, "stopped before the end")
    }
}
