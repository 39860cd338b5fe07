import Foundation
import XCTest
@testable import MedleyCore

/// SIGKILL at random moments (SPEC §9–10): every restart continues, and the finished export has
/// every output exactly once, each decodable, no temporary files, and a manifest of every item.
final class CrashSafetyTests: EndToEndCase {
    static let items = 300

    /// 300 distinct small JPEGs: one 48×32 image made by vips, each copy with its own bytes after
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
        var generator = SplitMix64(seed: 2026)  // seeded: the same kill moments on every run
        var killedMidRun = 0
        for _ in 0..<20 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Tool.medley)
            process.arguments = ["run", path, "--quiet", "--jobs", "2"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(20_000 + generator.next() % 600_000))  // 20–620 ms
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killedMidRun += 1
            }
            process.waitUntilExit()
        }
        XCTAssertGreaterThan(killedMidRun, 10, "most trials must kill a run in progress")

        let final = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
        XCTAssertEqual(final.status, 0, final.stderr)
        let expected = Set(names.map { $0 + ".png" })
        XCTAssertEqual(Set(Tool.files(under: work + "/out")), expected, "every output once, nothing else")
        // No temporary files: .medley holds only the manifest, the run state and the job summary.
        XCTAssertEqual(Tool.files(under: work + "/out/.medley"), ["manifest-crash.jsonl", "state.sqlite", "summary-crash.json"])
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
    /// SIGTERM: the items in flight finish, the manifest and run state are written, the summary
    /// says what happened, and the next run finishes the rest without redoing anything.
    func testTerminateStopsGracefullyAndTheNextRunFinishes() throws {
        let names = try makeInputs()
        let path = try pipeline("""
            version: 1
            jobs:
              - name: stop
                ingest: { from: [in] }
                filters: [ { CIGaussianBlur: { inputRadius: 4 } } ]
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.medley)
        process.arguments = ["run", path, "--jobs", "2"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(400_000)
        process.terminate()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertTrue(stderr.contains("medley: interrupted after"), stderr)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-stop.jsonl", encoding: .utf8)
        let done = manifest.split(separator: "\n").count
        XCTAssertGreaterThan(done, 0)
        XCTAssertLessThan(done, names.count, "stopped before the end")
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
