#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// Bad files fail alone with their path and reason; bad pipelines fail before anything runs.
final class BadInputTests: EndToEndCase {
    func testEachBrokenFileFailsAloneAndNothingPartialIsLeft() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: broken
                ingest: { from: [\(Tool.fixtures)/broken] }
                filters: [CISepiaTone]
                export: { to: out, format: jpeg }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 1, "some items failed: exit 1\n\(result.stderr)")
        let broken = Tool.fixtures + "/broken/"
        let expectations = [
            "empty.jpg": "empty file",
            "truncated.jpg": "Premature end",
            "text-named.jpg": "not a recognised image",
            "huge-header.png": "100000 × 100000",
        ]
        for (name, reason) in expectations {
            let line = result.stderr.split(separator: "\n").first { $0.contains("✗ " + broken + name + ":") }
            XCTAssertNotNil(line, "the summary names \(name)\n\(result.stderr)")
            XCTAssertTrue(line?.contains(reason) == true, "\(name): expected '\(reason)' in: \(line ?? "")")
        }
        // A reason never names the run's temporary file (a random name, another each run): libvips'
        // "unable to write to target" names the output.
        XCTAssertFalse(result.stderr.contains("/.medley/tmp/"), result.stderr)
        if let line = result.stderr.split(separator: "\n").first(where: { $0.contains("✗ " + broken + "truncated.jpg") && $0.contains("target") }) {
            XCTAssertTrue(line.contains("target " + work + "/out/truncated.jpg"), String(line))
        }
        // The two good files (one a PNG named .jpg) are exported; no temporary or partial file anywhere.
        XCTAssertEqual(Tool.files(under: work + "/out"), ["actually-png.jpg", "good-among-bad.jpg"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/.medley/tmp"))
    }

    /// `--failed-items-ok` (the Kubernetes Job's): the same failures, each still named with its
    /// reason and in the manifest, but exit 0 — the run went through every item.
    func testFailedItemsOKExitsZeroAndStillNamesEveryFailure() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: broken
                ingest: { from: [\(Tool.fixtures)/broken] }
                export: { to: out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--failed-items-ok"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let broken = try FileManager.default.contentsOfDirectory(atPath: Tool.fixtures + "/broken")
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-broken.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let failed = manifest.filter { $0["status"] as? String == "failed" }.compactMap { $0["input"] as? String }
        XCTAssertGreaterThanOrEqual(failed.count, 4, "the fixtures' broken files fail: \(failed)")
        XCTAssertLessThan(failed.count, broken.count, "the good ones do not")
        for input in failed {
            XCTAssertTrue(result.stderr.contains("✗ " + input + ":"), "the summary names \(input)\n\(result.stderr)")
        }
        // Without the option the same run exits 1.
        XCTAssertEqual(try Tool.medley(["run", path, "--force", "--quiet"]).status, 1)
    }

    func testInvalidPipelineListsEveryProblemAndWritesNothing() throws {
        let file = Tool.fixtures + "/pipelines/broken-mistakes.yaml"
        for command in ["validate", "run"] {
            let result = try Tool.medley([command, file])
            XCTAssertEqual(result.status, 2, result.stderr)
            // Places counted by hand in the file (see the comments beside each mistake).
            let expected = [
                ("8:7", "unknown key 'recurse' in ingest; did you mean 'recursive'?"),
                ("9:15", "unknown media type 'imgae'; did you mean 'image'?"),
                ("11:9", "unknown filter 'CISepiaTon'; did you mean 'CISepiaTone'?"),
                ("12:24", "CISepiaTone has no parameter 'inputIntensty'; did you mean 'inputIntensity'?"),
                ("13:40", "CISepiaTone.inputIntensity = 3 is out of range"),
                ("16:15", "unknown export format 'jpg2'; did you mean 'jpg'?"),
                ("17:16", "export.quality must be 1…100, not 150"),
                ("18:15", "export.name: unknown property 'stm'"),
            ]
            for (place, message) in expected {
                XCTAssertTrue(result.stderr.contains("\(file):\(place): error: \(message)"),
                              "\(command): missing \(place) \(message) in\n\(result.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: Tool.fixtures + "/../out/never-written"))
    }

    func testGraphMistakesAreReported() throws {
        let file = Tool.fixtures + "/pipelines/broken-graph.yaml"
        let result = try Tool.medley(["validate", file])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("\(file):9:50: error: output.inputImage refers to 'toned', which is not a node of this graph"), result.stderr)
        XCTAssertTrue(result.stderr.contains("error: the graph has a cycle: a → b → a"), result.stderr)
        XCTAssertTrue(result.stderr.contains("medley: 2 problems"), "no follow-on errors:\n\(result.stderr)")
    }

    func testValidGraphRunsAsOneFusedPass() throws {
        let result = try Tool.medley(["run", Tool.fixtures + "/pipelines/graph-ok.yaml", "--quiet",
                                      "--set", "graph.export.to=\(work!)/out"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try Tool.pixels(Tool.fixtures + "/images/alpha.png", channels: "rgba")
        let after = try Tool.pixels(work + "/out/alpha.png", channels: "rgba")
        for p in stride(from: 0, to: before.samples.count, by: 4 * 31) {
            // Two passes, by hand: sepia 0.9 then sepia 0.5, in linear light and, as in Core Image's
            // extended-range working space, without clamping between the two filters.
            let first = Reference.sepiaLinear(Array(before.samples[p..<p + 3]).map { Reference.toLinear(Double($0) / 255) }, intensity: 0.9)
            let second = Reference.sepiaLinear(first, intensity: 0.5).map { Reference.toSRGB($0) * 255 }
            for c in 0..<3 { XCTAssertEqual(Double(after.samples[p + c]), second[c], accuracy: 1.5) }
        }
    }

    func testCommandLineMistakesExitTwo() throws {
        XCTAssertEqual(try Tool.medley(["run"]).status, 2)
        XCTAssertEqual(try Tool.medley(["frobnicate"]).status, 2)
        let result = try Tool.medley(["run", Tool.packageRoot + "/pipelines/sepia-photos.yaml", "--job", "4"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("did you mean --jobs?"), result.stderr)
        XCTAssertEqual(try Tool.medley(["run", Tool.packageRoot + "/pipelines/sepia-photos.yaml", "--shard", "5/4"]).status, 2)
        XCTAssertEqual(try Tool.medley(["--version"]).status, 0)
        for command in ["run", "validate", "filters", "probe"] {
            let help = try Tool.medley([command, "--help"])
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.contains("usage: medley \(command)"), help.stdout)
        }
    }

    func testDryRunWritesNothing() throws {
        let out = work + "/dry"
        let result = try Tool.medley(["run", Tool.packageRoot + "/pipelines/sepia-photos.yaml", "--dry-run",
                                      "--set", "sepia-photos.export.to=\(out)"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertTrue(result.stderr.contains("sepia-photos: would write 7, unchanged 0, 0 failed"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.hasPrefix("would write  ") }.count, 7, result.stderr)
    }

    /// A folder the user running Medley may not read fails as one ingest error naming it, and the
    /// files beside it are still exported (IngestEnumeratorTests checks the enumerator alone, but
    /// only when not root). Root reads through `chmod 000`, so as root the binary runs as `nobody`
    /// (uid and gid 65534, no supplementary groups) through util-linux's setpriv, in a scratch
    /// folder under /tmp that it may enter and write; the binary is copied there too, so the
    /// build folder's own permissions do not matter.
    func testUnreadableFolderFailsAloneAndTheRestIsExported() throws {
        let scratch = "/tmp/medley-unreadable-\(UUID().uuidString)"
        let input = scratch + "/in", locked = input + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        defer {
            chmod(locked, 0o755)
            try? FileManager.default.removeItem(atPath: scratch)
        }
        for (name, into) in [("a.png", input), ("x.png", locked), ("z.png", input)] {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/gray.png", toPath: into + "/" + name)
        }
        let path = scratch + "/pipeline.yaml"
        try """
            version: 1
            jobs:
              - name: copy
                ingest: { from: [\(input)], media: [image] }
                export: { to: \(scratch)/out, format: png, name: "{relpath}/{stem}.png" }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        var command = [Tool.medley, "run", path, "--quiet"]
        if geteuid() == 0 {
            let medley = scratch + "/medley"
            try FileManager.default.copyItem(atPath: Tool.medley, toPath: medley)
            for entry in [scratch, input, medley] { XCTAssertEqual(chmod(entry, 0o755), 0, entry) }
            XCTAssertEqual(chown(scratch, 65534, 65534), 0, "the unprivileged user must write the export root")
            command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", medley, "run", path, "--quiet"]
        }
        XCTAssertEqual(chmod(locked, 0), 0)
        // The checks below would prove nothing if the user running Medley could still list the folder.
        let peek = geteuid() == 0
            ? try Tool.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "ls", locked])
            : try Tool.run("ls", [locked])
        XCTAssertNotEqual(peek.status, 0, "the folder is still readable")
        let result = try Tool.run(command[0], Array(command.dropFirst()), environment: ["HOME": scratch, "TMPDIR": scratch])
        XCTAssertEqual(result.status, 1, "one item failed: exit 1\n\(result.stderr)")
        let failures = result.stderr.split(separator: "\n").filter { $0.contains("✗") }
        XCTAssertEqual(failures, ["  ✗ (ingest): Could not read \"\(locked)\": Permission denied."], result.stderr)
        XCTAssertTrue(result.stderr.contains("copy: 2 succeeded, 1 failed, 0 skipped"), result.stderr)
        XCTAssertEqual(Tool.files(under: scratch + "/out"), ["a.png", "z.png"])
    }
}
