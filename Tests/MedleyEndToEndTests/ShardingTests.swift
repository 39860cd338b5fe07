import Foundation
import XCTest

/// Sharding through a real engine (GNU parallel standing in for a cluster): disjoint shares whose
/// union is the whole set, per-shard run state, and `medley merge`.
final class ShardingTests: EndToEndCase {
    func records(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return record["item"] as? String ?? ""
        }
    }

    func testFourShardsThroughGNUParallelMergeIntoTheWholeSet() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/sub", withIntermediateDirectories: true)
        let seed = work + "/seed.png"
        XCTAssertEqual(try Tool.run("vips", ["black", seed, "8", "8", "--bands", "3"]).status, 0)
        let base = try Data(contentsOf: URL(fileURLWithPath: seed))
        var names: [String] = []
        for i in 0..<40 {
            let name = (i % 2 == 0 ? "" : "sub/") + "p\(i).png"
            try (base + Data("\(i)".utf8)).write(to: URL(fileURLWithPath: input + "/" + name))
            names.append(name)
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: shards
                ingest: { from: [in] }
                filters: [ CIPhotoEffectMono ]
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
                playlist: { to: out/all.m3u8 }
            """)
        let engine = try Tool.run("parallel", ["--will-cite", "-j", "4", Tool.medley, "run", path, "--quiet", "--shard", "{}/4",
                                               ":::", "1", "2", "3", "4"])
        XCTAssertEqual(engine.status, 0, engine.stderr)

        var shares: [Set<String>] = []
        for k in 1...4 {
            let items = try records(work + "/out/.medley/manifest-shards-shard-\(k)-of-4.jsonl")
            XCTAssertEqual(items.count, Set(items).count)
            XCTAssertFalse(items.isEmpty, "40 items over 4 shards: none should be empty")
            shares.append(Set(items))
        }
        for a in 0..<4 { for b in (a + 1)..<4 { XCTAssertTrue(shares[a].isDisjoint(with: shares[b]), "shards \(a + 1) and \(b + 1)") } }
        XCTAssertEqual(shares.reduce(Set<String>()) { $0.union($1) }, Set(names), "the union is the whole set")
        XCTAssertEqual(Set(Tool.files(under: work + "/out")), Set(names))

        // The same shard again: only skips (its own run state remembers its items).
        let again = try Tool.medley(["run", path, "--quiet", "--shard", "2/4", "--events", work + "/events.jsonl"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let events = try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8)
        XCTAssertEqual(events.components(separatedBy: "\"itemSkipped\"").count - 1, shares[1].count)
        XCTAssertFalse(events.contains("\"itemFinished\""))
        // A Slurm array task with a 1-based range is the same shard.
        let slurm = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"],
                                    environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"])
        XCTAssertEqual(slurm.status, 0, slurm.stderr)
        XCTAssertEqual(try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8)
            .components(separatedBy: "\"itemSkipped\"").count - 1, shares[1].count)

        // Merge: one manifest of every item, sorted; exit 0.
        let merged = try Tool.medley(["merge", path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertEqual(try records(work + "/out/.medley/manifest-shards.jsonl"), names.sorted())
        let manifest = try Data(contentsOf: URL(fileURLWithPath: work + "/out/.medley/manifest-shards.jsonl"))
        let playlist = try Data(contentsOf: URL(fileURLWithPath: work + "/out/all.m3u8"))

        // A lost shard manifest: merge names the shard and its items, exit 1.
        try FileManager.default.removeItem(atPath: work + "/out/.medley/manifest-shards-shard-3-of-4.jsonl")
        let incomplete = try Tool.medley(["merge", path])
        XCTAssertEqual(incomplete.status, 1)
        XCTAssertTrue(incomplete.stderr.contains("shard 3/4: no manifest"), incomplete.stderr)
        for item in shares[2] { XCTAssertTrue(incomplete.stderr.contains("missing: \(input)/\(item) (shard 3/4)"), item) }
        // …and writes nothing: the complete merge's manifest and playlist stay, byte for byte.
        XCTAssertTrue(incomplete.stderr.contains("shards: incomplete (\(40 - shares[2].count) items from shards 1, 2, 4 of 4); nothing written"),
                      incomplete.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: work + "/out/.medley/manifest-shards.jsonl")), manifest)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: work + "/out/all.m3u8")), playlist)
    }

    /// FNV-1a of the relative path modulo N, counted from 1 (the share the README documents).
    func owner(_ relativePath: String, of count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relativePath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count)) + 1
    }

    /// Two items of different shards that name one output: neither shard can see the other's name,
    /// so the file written last replaces the other. An unsharded run fails the second item; the
    /// merge finds the pair, names both, and writes nothing.
    func testOneOutputNamedByItemsOfTwoShardsFailsTheMerge() throws {
        // x/a.png and y/a.png fall to different shards of 2 (checked here by the formula).
        XCTAssertNotEqual(owner("x/a.png", of: 2), owner("y/a.png", of: 2))
        for (folder, size) in [("x", "8"), ("y", "16")] {
            try FileManager.default.createDirectory(atPath: work + "/in/" + folder, withIntermediateDirectories: true)
            XCTAssertEqual(try Tool.run("vips", ["black", work + "/in/\(folder)/a.png", size, size]).status, 0)
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: flat
                ingest: { from: [in] }
                export: { to: out, format: png, name: "{stem}.png" }
            """)
        for k in 1...2 {
            let shard = try Tool.medley(["run", path, "--quiet", "--shard", "\(k)/2"])
            XCTAssertEqual(shard.status, 0, "each shard alone sees no clash: \(shard.stderr)")
        }
        let merged = try Tool.medley(["merge", path])
        XCTAssertEqual(merged.status, 1, merged.stderr)
        let line = try XCTUnwrap(merged.stderr.split(separator: "\n").first { $0.contains("one output from two items") }, merged.stderr)
        XCTAssertTrue(line.contains(work + "/out/a.png"), String(line))
        for item in ["x/a.png", "y/a.png"] {
            XCTAssertTrue(line.contains("\(item) (shard \(owner(item, of: 2)))"), String(line))
        }
        XCTAssertTrue(line.contains("{relpath}"), "the fix is named: \(line)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/.medley/manifest-flat.jsonl"), "nothing merged")

        // Unsharded, the same pipeline fails the second item instead (the one an output can't hold).
        try FileManager.default.removeItem(atPath: work + "/out")
        let whole = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(whole.status, 1, whole.stderr)
        XCTAssertTrue(whole.stderr.contains("is also the output of"), whole.stderr)
    }

    /// What the walk cannot list — here a name that is not UTF-8 — fails in the one shard its path
    /// falls to (FNV-1a of the path as the reason spells it), so the merge lists it once and completes.
    func testAnEntryTheWalkCannotListIsReportedByOneShardAndTheMergeCompletes() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d"] {
            XCTAssertEqual(try Tool.run("vips", ["black", work + "/in/\(name).png", "8", "8"]).status, 0)
        }
        XCTAssertTrue(Tool.createFile(in: work + "/in", rawName: Array("odd".utf8) + [0xFF] + Array(".png".utf8)))
        let lossy = work + "/in/odd\u{FFFD}.png"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: odd
                ingest: { from: [in] }
                export: { to: out, format: png, name: "{stem}.png" }
            """)
        var failedIn: [Int] = []
        for k in 1...3 {
            let shard = try Tool.medley(["run", path, "--quiet", "--shard", "\(k)/3"])
            if shard.stderr.contains("not valid UTF-8") { failedIn.append(k) }
            XCTAssertEqual(shard.status, shard.stderr.contains("not valid UTF-8") ? 1 : 0, shard.stderr)
        }
        XCTAssertEqual(failedIn, [owner(lossy, of: 3)], "one shard, the one the formula gives")
        let merged = try Tool.medley(["merge", path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let lines = try String(contentsOfFile: work + "/out/.medley/manifest-odd.jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 5, "four items and the failure")
        XCTAssertEqual(lines.filter { $0.contains("not valid UTF-8") }.count, 1)
    }
}
