import Foundation
import XCTest

/// Sharding, overwrite policies and output collisions, observed from outside the binary.
final class RunOptionsTests: EndToEndCase {
    func copyPipeline(_ out: String, extra: String = "", name: String = "{relpath}/{stem}.{ext}") throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: copy
                ingest: { from: [\(Tool.fixtures)/images], exclude: ["**/thumbs/**"] }
                export: { to: \(out), format: png, name: "\(name)"\(extra) }
            """)
    }

    func testShardsAreDisjointAndCoverEverything() throws {
        var seen: [String] = []
        for k in 1...3 {
            let out = work + "/shard\(k)"
            let result = try Tool.medley(["run", try copyPipeline(out), "--shard", "\(k)/3", "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            seen += Tool.files(under: out)
        }
        let all = try Tool.medley(["run", try copyPipeline(work + "/all"), "--quiet"])
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertEqual(seen.sorted(), Tool.files(under: work + "/all"))
        XCTAssertEqual(Set(seen).count, seen.count, "no item in two shards")
        XCTAssertEqual(seen.count, 7)
        // The Slurm array form names the same share as --shard K/N with K = index + 1.
        let slurm = try Tool.medley(["run", try copyPipeline(work + "/slurm"), "--quiet"],
                                    environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "3"])
        XCTAssertEqual(slurm.status, 0, slurm.stderr)
        XCTAssertEqual(Tool.files(under: work + "/slurm"), Tool.files(under: work + "/shard1"))
        // A resubmitted task (`sbatch --array=2` of 1-3) is an array of one: alone it could be
        // any shard, so it is refused before anything is written…
        let resubmitted = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "1"]
        let alone = try Tool.medley(["run", try copyPipeline(work + "/alone"), "--quiet"], environment: resubmitted)
        XCTAssertEqual(alone.status, 2, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("set MEDLEY_SHARD_COUNT=N"), alone.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/alone"), "nothing written")
        // …and with the shard count and the array's first index it takes shard 2 of 3.
        let named = try Tool.medley(["run", try copyPipeline(work + "/named"), "--quiet"],
                                    environment: resubmitted.merging(["MEDLEY_SHARD_COUNT": "3", "MEDLEY_FIRST_TASK": "1"]) { $1 })
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertEqual(Tool.files(under: work + "/named"), Tool.files(under: work + "/shard2"))
        let outside = try Tool.medley(["run", try copyPipeline(work + "/outside"), "--quiet"],
                                      environment: resubmitted.merging(["MEDLEY_SHARD_COUNT": "3", "MEDLEY_FIRST_TASK": "5"]) { $1 })
        XCTAssertEqual(outside.status, 2, outside.stderr)
    }

    func testOverwritePolicies() throws {
        let out = work + "/out"
        XCTAssertEqual(try Tool.medley(["run", try copyPipeline(out), "--quiet"]).status, 0)
        let skip = try Tool.medley(["run", try copyPipeline(out, extra: ", overwrite: skip")])
        XCTAssertEqual(skip.status, 0)
        XCTAssertTrue(skip.stderr.contains("0 succeeded, 0 failed, 7 skipped"), skip.stderr)
        let forced = try Tool.medley(["run", try copyPipeline(out, extra: ", overwrite: skip"), "--force"])
        XCTAssertTrue(forced.stderr.contains("7 succeeded, 0 failed, 0 skipped"), forced.stderr)
        let fail = try Tool.medley(["run", try copyPipeline(out, extra: ", overwrite: fail")])
        XCTAssertEqual(fail.status, 1)
        XCTAssertTrue(fail.stderr.contains("0 succeeded, 7 failed"), fail.stderr)
        XCTAssertTrue(fail.stderr.contains("output exists"), fail.stderr)
    }

    func testTwoItemsWritingTheSameFileIsAnErrorForTheSecond() throws {
        let out = work + "/flat"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: collide
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg, \(Tool.fixtures)/broken/good-among-bad.jpg] }
                export: { to: \(out), format: png, name: "same.{ext}" }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("is also the output of"), result.stderr)
        XCTAssertEqual(Tool.files(under: out), ["same.png"])
    }

    /// Two clips write the same name. The earlier in ingest order wins whatever finishes first;
    /// when it fails (a.mp4 is cut short, which shows only once it is decoded), b.mp4 takes the
    /// name instead of failing for a file that was never written. Durations from ffprobe tell
    /// whose output it is.
    func testTheEarlierItemWinsANameAndAFailedOneReleasesIt() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        func clip(_ name: String, seconds: Int) throws {
            XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10",
                                                   "-t", String(seconds), "-c:v", "libx264", "-pix_fmt", "yuv420p",
                                                   "-movflags", "+faststart", input + "/" + name]).status, 0)
        }
        func duration(_ path: String) throws -> String {
            try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let path = try pipeline("""
            version: 1
            jobs:
              - name: clips
                ingest: { from: [in], media: [movie] }
                transcode: { videoQuality: typeLow }
                export: { to: out, name: "same.mp4" }
            """)
        try clip("a.mp4", seconds: 1)
        try clip("b.mp4", seconds: 3)
        let both = try Tool.medley(["run", path, "--jobs", "2", "--force"])
        XCTAssertEqual(both.status, 1, both.stderr)
        XCTAssertTrue(both.stderr.contains("\(input)/b.mp4: its output \(work!)/out/same.mp4 is also the output of \(input)/a.mp4"), both.stderr)
        XCTAssertEqual(try duration(work + "/out/same.mp4"), "1.000000", "a.mp4's")

        try clip("a.mp4", seconds: 4)
        let whole = try Data(contentsOf: URL(fileURLWithPath: input + "/a.mp4"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: input + "/a.mp4"))
        let released = try Tool.medley(["run", path, "--jobs", "2", "--force"])
        XCTAssertEqual(released.status, 1, released.stderr)
        XCTAssertTrue(released.stderr.contains("\(input)/a.mp4: cannot re-encode: "), released.stderr)
        XCTAssertFalse(released.stderr.contains("is also the output of"), released.stderr)
        XCTAssertEqual(try duration(work + "/out/same.mp4"), "3.000000", "b.mp4's")
    }

    /// a.mkv and a.mov both become a.mp4: the hint names {inputExt}, and with it each input keeps
    /// its own output ({ext} is the output's extension, mp4 for both).
    func testInputsThatDifferOnlyByExtensionGetTheInputExtHint() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for ext in ["mkv", "mov"] {
            XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10", "-t", "0.5",
                                                   "-c:v", "libx264", "-pix_fmt", "yuv420p", input + "/a." + ext]).status, 0)
        }
        func run(_ name: String) throws -> Tool.Result {
            try Tool.medley(["run", try pipeline("""
                version: 1
                jobs:
                  - name: clips
                    ingest: { from: [in], media: [movie] }
                    transcode: { videoQuality: typeLow }
                    export: { to: out, name: "\(name)" }
                """), "--jobs", "1"])
        }
        let clash = try run("{stem}.{ext}")
        XCTAssertEqual(clash.status, 1, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("its output \(work!)/out/a.mp4 is also the output of \(input)/a.mkv; make export.name unique, "
                                            + "e.g. with {inputExt} (the input's extension; {ext} is the output's)"), clash.stderr)
        let apart = try run("{stem}-{inputExt}.{ext}")
        XCTAssertEqual(apart.status, 0, apart.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["a-mkv.mp4", "a-mov.mp4", "a.mp4"])
    }

    func testATemplateThatClimbsOutOfTheExportRootIsRefused() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: hostile
                ingest: { from: [\(Tool.fixtures)/images] }
                export: { to: out, format: jpeg, name: "{stem}/../../{stem}.{ext}" }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        // Column 52 is the first ".." inside the quoted template, counted by hand.
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:52: error: export.name: '..' would leave the export folder"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
    }
}
