import Foundation
import XCTest

/// The job manifest (docs/runs.md, "Manifests"): one JSON line per item in `<to>/.medley/`, with persistentIDs
/// checked against `xxhsum -H3` and metering against the signal's known levels.
final class ManifestTests: EndToEndCase {
    func manifest(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// `xxhsum -H3 FILE` prints "XXH3 (FILE) = 7f7980b951ef6ff2".
    func xxh3(_ path: String) throws -> String {
        let result = try Tool.run("xxhsum", ["-H3", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return String(result.stdout.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
    }

    func testAudioManifestHasEveryItemWithIDsStatusAndMetering() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/broken", withIntermediateDirectories: true)
        for name in ["sine-1k-44100-stereo.wav", "tone.flac"] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/" + name, toPath: input + "/" + name)
        }
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/broken/truncated.flac", toPath: input + "/broken/truncated.flac")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: to caf
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM }
                analyze: [metering]
                export: { to: out, name: "{relpath}/{stem}.caf" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, "one broken item: " + result.stderr)
        // The job name is made file-safe; only the lock, the manifest, the run state and the job summary are left in .medley/.
        XCTAssertEqual(Tool.files(under: work + "/out/.medley"), ["lock", "manifest-to_caf.jsonl", "state.sqlite", "summary-to_caf.json"])
        let records = try manifest(work + "/out/.medley/manifest-to_caf.jsonl")
        let byItem = Dictionary(uniqueKeysWithValues: records.map { ($0["item"] as? String ?? "", $0) })
        XCTAssertEqual(Set(byItem.keys), ["sine-1k-44100-stereo.wav", "tone.flac", "broken/truncated.flac"])

        let sine = try XCTUnwrap(byItem["sine-1k-44100-stereo.wav"])
        XCTAssertEqual(sine["status"] as? String, "succeeded")
        XCTAssertEqual(sine["persistentID"] as? String, try xxh3(input + "/sine-1k-44100-stereo.wav"))
        XCTAssertEqual(sine["output"] as? String, work + "/out/sine-1k-44100-stereo.caf")
        XCTAssertEqual(sine["bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: work + "/out/sine-1k-44100-stereo.caf")[.size] as? Int)
        let metering = try XCTUnwrap(sine["metering"] as? [String: [Double]])
        // Full-scale sine (peak 32767/32768): peak 0 dBFS, RMS −3.01 dBFS on both channels.
        for channel in 0..<2 {
            XCTAssertEqual(metering["peakPower"]?[channel] ?? 99, 20 * log10(32767.0 / 32768), accuracy: 0.01)
            XCTAssertEqual(metering["averagePower"]?[channel] ?? 99, 20 * log10(32767.0 / 32768 / 2.0.squareRoot()), accuracy: 0.01)
        }
        XCTAssertEqual(sine["duration"] as? Double ?? 0, 0.5, accuracy: 0.001)
        let properties = try XCTUnwrap(sine["properties"] as? [String: Any])
        XCTAssertEqual(properties["sampleRate"] as? Int, 44100)
        XCTAssertEqual(properties["persistentID"] as? String, sine["persistentID"] as? String)

        let broken = try XCTUnwrap(byItem["broken/truncated.flac"])
        XCTAssertEqual(broken["status"] as? String, "failed")
        XCTAssertEqual(broken["persistentID"] as? String, try xxh3(input + "/broken/truncated.flac"))
        XCTAssertFalse((broken["error"] as? String ?? "").isEmpty, "\(broken)")
        XCTAssertNil(broken["output"], "a failed item has no output")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/broken/truncated.caf"))
    }

    func testPersistentIDFollowsContentNotName() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let original = Tool.fixtures + "/images/landscape.jpg"
        try FileManager.default.copyItem(atPath: original, toPath: input + "/a.jpg")
        try FileManager.default.copyItem(atPath: original, toPath: input + "/b.jpg")
        var changed = try Data(contentsOf: URL(fileURLWithPath: original))
        changed[changed.count - 3] ^= 0x01  // one bit inside the entropy-coded data
        try changed.write(to: URL(fileURLWithPath: input + "/c.jpg"))
        let path = try pipeline("""
            version: 1
            jobs:
              - name: copy
                ingest: { from: [in] }
                filters: [ { CISepiaTone: { inputIntensity: 0 } } ]
                export: { to: out, name: "{stem}-{persistentID}.jpg" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = try manifest(work + "/out/.medley/manifest-copy.jsonl")
        let ids = Dictionary(uniqueKeysWithValues: records.map { ($0["item"] as? String ?? "", $0["persistentID"] as? String ?? "") })
        XCTAssertEqual(ids["a.jpg"], try xxh3(input + "/a.jpg"))
        XCTAssertEqual(ids["a.jpg"], ids["b.jpg"], "same bytes, same ID")
        XCTAssertNotEqual(ids["a.jpg"], ids["c.jpg"], "one bit changed, another ID")
        XCTAssertEqual(ids["c.jpg"], try xxh3(input + "/c.jpg"))
        // The ID is usable in names: 16 upper-case hex digits.
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/a-\(ids["a.jpg"] ?? "").jpg"))
        XCTAssertEqual(ids["a.jpg"]?.count, 16)
    }

    func testDryRunWritesNoManifest() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: copy
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg] }
                filters: [ CISepiaTone ]
                export: { to: out }
            """)
        let result = try Tool.medley(["run", path, "--quiet", "--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "a dry run writes nothing")
    }
}
