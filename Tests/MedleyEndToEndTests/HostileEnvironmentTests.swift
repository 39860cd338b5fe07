import Foundation
import XCTest

/// Issue 13, the file system side: whatever the environment — other runs on the same export root,
/// PID namespaces, planted symbolic links, a full or read-only disk, an export root tangled with
/// an ingest root — Medley never crashes, never reports a wrong output as succeeded, and never
/// writes, deletes or reads outside the roots the pipeline names. Every test checks the files
/// outside the roots as well as inside. Root is needed (unshare, mount), as in CI.
final class HostileEnvironmentTests: EndToEndCase {
    private var mounts: [String] = []
    private var heldLocks: [Int32] = []

    override func tearDownWithError() throws {
        heldLocks.forEach { close($0) }
        for mount in mounts.reversed() { try Tool.run("umount", [mount]) }
        try super.tearDownWithError()
    }

    // MARK: helpers

    /// `count` grey PGM images named p00.pgm…, input i being (8 + i) × 6 pixels, so an output's
    /// width says which input it came from. `folders` spreads them over sub-folders in turn.
    @discardableResult
    func makeInputs(_ count: Int, in folder: String = "in", folders: [String] = [""]) throws -> [String] {
        var names: [String] = []
        for i in 0..<count {
            let sub = folders[i % folders.count]
            try FileManager.default.createDirectory(atPath: work + "/" + folder + "/" + sub, withIntermediateDirectories: true)
            let name = (sub.isEmpty ? "" : sub + "/") + String(format: "p%02d.pgm", i)
            let width = 8 + i, height = 6
            var bytes = Array("P5\n\(width) \(height)\n255\n".utf8)
            bytes += (0..<(width * height)).map { UInt8(($0 * 7 + i * 13) % 256) }
            try Data(bytes).write(to: URL(fileURLWithPath: work + "/" + folder + "/" + name))
            names.append(name)
        }
        return names
    }

    /// Width of each image according to ImageMagick (one process for all), in the order given.
    func widths(_ paths: [String]) throws -> [Int] {
        let result = try Tool.run("identify", ["-regard-warnings", "-format", "%w\n"] + paths)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").compactMap { Int($0) }
    }

    func records(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func events(_ path: String) throws -> [String] {
        try records(path).compactMap { $0["event"] as? String }
    }

    /// An `flock`ed file held by this test process until tearDown: a live run's lock, as another
    /// host or PID namespace would hold it.
    func holdLock(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0)
        heldLocks.append(descriptor)
    }

    func mountTmpfs(_ path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try Tool.run("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
        XCTAssertEqual(mounted.status, 0, "root is needed to mount a tmpfs: \(mounted.stderr)")
        mounts.append(path)
    }

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func list(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    lazy var host: String = (try? Tool.run("hostname", []).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"

    func sepiaPipeline(job: String = "job", to: String = "out", name: String = "{relpath}/{stem}.{ext}",
                       file: String = "pipeline.yaml") throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: \(job)
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: \(to), format: png, name: "\(name)" }
            """, name: file)
    }

    // MARK: 1. shards in separate PID namespaces

    /// Two shards, each PID 1 of its own PID namespace (a Kubernetes Indexed Job), on one export
    /// root that also holds the temporary files of a live run elsewhere (its lock held by this
    /// test) named as a PID-1 process names them. Neither shard may touch those files or the
    /// other's: every output is its own input's, and the live run's files are byte for byte as
    /// they were. (Temporary names were `<pid>-<n>`: both shards wrote `1-1.png`, over the live
    /// run's file too.)
    func testShardsInSeparatePIDNamespacesNeverShareOrTakeATemporaryFile() throws {
        let names = try makeInputs(24, folders: ["", "a"])
        let path = try sepiaPipeline(job: "ns")
        let tmp = work + "/out/.medley/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        try holdLock(tmp + "/run-1.lock")
        let planted = ["1-1.png": Data("a live run's temporary output".utf8),
                       "1-manifest-ns-shard-1-of-2.jsonl": Data("{\"a live\": \"manifest\"}\n".utf8)]
        for (name, data) in planted { try data.write(to: URL(fileURLWithPath: tmp + "/" + name)) }

        let shards = try (1...2).map { k -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["--pid", "--fork", Tool.medley, "run", path, "--quiet", "--jobs", "2", "--shard", "\(k)/2"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        shards.forEach { $0.waitUntilExit() }
        XCTAssertEqual(shards.map(\.terminationStatus), [0, 0])

        for (name, data) in planted { XCTAssertEqual(contents(tmp + "/" + name), data, "\(name) of the live run is untouched") }
        XCTAssertEqual(list(tmp), ["1-1.png", "1-manifest-ns-shard-1-of-2.jsonl", "run-1.lock"], "nothing else is left")
        let outputs = names.map { work + "/out/" + $0.replacingOccurrences(of: ".pgm", with: ".png") }
        XCTAssertEqual(try widths(outputs), (0..<24).map { 8 + $0 }, "every output is its own input's")
        var listed: [String] = []
        for k in 1...2 {
            for record in try records(work + "/out/.medley/manifest-ns-shard-\(k)-of-2.jsonl") {
                XCTAssertEqual(record["status"] as? String, "succeeded")
                listed.append(record["item"] as? String ?? "")
            }
        }
        XCTAssertEqual(listed.sorted(), names.sorted(), "each item in exactly one shard's manifest")
    }

    /// A shard started in a new PID namespace while another shard runs outside it: the newcomer
    /// must not remove the running shard's temporary files (it did: the other's PID does not exist
    /// in its namespace, so the owner looked dead, and the running shard lost its manifest).
    func testARunInAnotherPIDNamespaceKeepsALiveRunsTemporaryFiles() throws {
        let names = try makeInputs(60)
        let path = try sepiaPipeline(job: "live")
        // Shard 1 has about 30 items: far more events than one pipe page holds, so it is still
        // running, blocked on its events, until the test reads them.
        let first = try EventedRun(["run", path, "--quiet", "--jobs", "1", "--shard", "1/2"])
        XCTAssertTrue(first.read(untilThe: 1, "itemFinished"), first.stderr)
        XCTAssertTrue(first.process.isRunning)
        let second = try Tool.run("unshare", ["--pid", "--fork", Tool.medley, "run", path, "--quiet", "--shard", "2/2"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let stderr = first.finish()
        XCTAssertEqual(first.process.terminationStatus, 0, stderr)

        var listed: [String] = []
        for k in 1...2 {
            let items = try records(work + "/out/.medley/manifest-live-shard-\(k)-of-2.jsonl")
            XCTAssertEqual(Set(items.map { $0["status"] as? String ?? "" }), ["succeeded"])
            listed += items.map { $0["item"] as? String ?? "" }
        }
        XCTAssertEqual(listed.sorted(), names.sorted())
        XCTAssertEqual(first.count("itemFinished"), try records(work + "/out/.medley/manifest-live-shard-1-of-2.jsonl").count)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/.medley/tmp"), "no temporary file left")
    }

    /// At start, a run removes exactly what provably belongs to runs that are over: the files of a
    /// run whose lock it can take, and files of a run that has no lock file; a live run's lock
    /// and files stay, and so does anything not named by Medley.
    func testLeftoversOfDeadRunsAreRemovedAndLiveRunsFilesKept() throws {
        try makeInputs(3)
        let path = try sepiaPipeline()
        let tmp = work + "/out/.medley/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let dead = "0123456789abcdef", orphan = "fedcba9876543210", live = "aaaaaaaaaaaaaaaa"
        for name in ["run-\(dead).lock", "\(dead)-1.png", "\(dead)-2-manifest-job.jsonl", ".\(dead)-3.m4a.medley-tags-X",
                     "\(orphan)-7.png", "99999-3.png", "\(live)-1.png", "notes.txt"] {
            try Data("left \(name)".utf8).write(to: URL(fileURLWithPath: tmp + "/" + name))
        }
        try holdLock(tmp + "/run-\(live).lock")
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(list(tmp), ["\(live)-1.png", "notes.txt", "run-\(live).lock"])
        XCTAssertEqual(contents(tmp + "/\(live)-1.png"), Data("left \(live)-1.png".utf8))
        XCTAssertEqual(Tool.files(under: work + "/out"), ["p00.png", "p01.png", "p02.png"])
    }

    // MARK: 2. two runs on one export root

    /// A second run on an export root another run is writing: it stops at once (exit 2), names
    /// the first by pid and host, and writes nothing; the first finishes untouched.
    func testASecondRunOnTheSameExportRootStopsAtOnceAndWritesNothing() throws {
        let names = try makeInputs(40)
        let path = try sepiaPipeline(job: "first")
        let other = try sepiaPipeline(job: "second", name: "{stem}-second.{ext}", file: "second.yaml")
        let first = try EventedRun(["run", path, "--quiet", "--jobs", "1"])
        XCTAssertTrue(first.read(untilThe: 1, "itemFinished"), first.stderr)
        XCTAssertTrue(first.process.isRunning)
        let second = try Tool.medley(["run", other])
        XCTAssertEqual(second.status, 2, second.stderr)
        XCTAssertEqual(second.stderr, "medley: another medley run (pid \(first.process.processIdentifier) on \(host)) is writing to "
                       + "\(work!)/out; wait for it or use another export root\n")
        let stderr = first.finish()
        XCTAssertEqual(first.process.terminationStatus, 0, stderr)

        XCTAssertEqual(Tool.files(under: work + "/out"), names.map { $0.replacingOccurrences(of: ".pgm", with: ".png") }.sorted())
        XCTAssertEqual(list(work + "/out/.medley"), ["lock", "manifest-first.jsonl", "state.sqlite", "summary-first.json"])
        XCTAssertEqual(try records(work + "/out/.medley/manifest-first.jsonl").count, names.count)
    }

    /// With --wait the second run says whom it waits for, blocks until the first has finished,
    /// then finds every item done (had it run alongside, it would have redone them).
    func testWaitRunsOnceTheFirstRunHasFinished() throws {
        let names = try makeInputs(40)
        let path = try sepiaPipeline()
        let first = try EventedRun(["run", path, "--quiet", "--jobs", "1"])
        XCTAssertTrue(first.read(untilThe: 1, "itemFinished"), first.stderr)
        let second = try EventedRun(["run", path, "--quiet", "--wait"])
        XCTAssertTrue(second.waitForStderr(containing: "medley: waiting for another medley run (pid \(first.process.processIdentifier) "
                                           + "on \(host)) to finish writing to \(work!)/out"), second.stderr)
        XCTAssertTrue(first.process.isRunning, "the first run is still running while the second waits")
        let firstErrors = first.finish()
        XCTAssertEqual(first.process.terminationStatus, 0, firstErrors)
        let stderr = second.finish()
        XCTAssertEqual(second.process.terminationStatus, 0, stderr)
        XCTAssertEqual(second.count("itemSkipped"), names.count, "every item was done when the second run began")
        XCTAssertEqual(second.count("itemFinished"), 0)
    }

    // MARK: 3. symbolic links planted under the export root

    /// A link where Medley keeps its own files — the run state, `.medley` itself, its temporary
    /// folder, its lock — stops the run before anything is written, even in `.medley` (exit 2: the
    /// run cannot start without following the link), and what the link points to is exactly as
    /// it was.
    func testLinksPlantedInMedleysFolderStopTheRunAndTheirTargetsStayUntouched() throws {
        try makeInputs(3)
        let path = try sepiaPipeline()
        let out = work + "/out", elsewhere = work + "/elsewhere"
        let database = elsewhere + "/other.sqlite"
        let cases: [(link: String, target: String)] = [
            (out + "/.medley/state.sqlite", database),
            (out + "/.medley/state.sqlite-wal", elsewhere + "/wal"),
            (out + "/.medley", elsewhere),
            (out + "/.medley/tmp", elsewhere),
            (out + "/.medley/lock", elsewhere + "/wal"),
        ]
        for (link, target) in cases {
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: elsewhere)
            try FileManager.default.createDirectory(atPath: out + "/.medley", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            XCTAssertEqual(try Tool.run("sqlite3", [database, "CREATE TABLE keep (x); INSERT INTO keep VALUES (42);"]).status, 0)
            try Data("not Medley's".utf8).write(to: URL(fileURLWithPath: elsewhere + "/wal"))
            // A file that looks like a dead run's leftover, which startup cleanup would remove.
            try Data("left".utf8).write(to: URL(fileURLWithPath: elsewhere + "/12345-1.png"))
            if link.hasSuffix("/.medley") { try FileManager.default.removeItem(atPath: link) }
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            let before = list(elsewhere).map { ($0, contents(elsewhere + "/" + $0)) }
            let medleyBefore = list(out + "/.medley")

            let result = try Tool.medley(["run", path, "--quiet"])
            XCTAssertEqual(result.status, 2, "\(link): \(result.stderr)")
            XCTAssertEqual(result.stderr, "medley: \(link) is a symbolic link; Medley keeps its own files only in real folders "
                           + "inside the export root and never follows a link there — remove the link and run again\n")
            XCTAssertEqual(list(elsewhere).map { ($0, contents(elsewhere + "/" + $0)) }.map(\.0), before.map(\.0), link)
            for (name, data) in before { XCTAssertEqual(contents(elsewhere + "/" + name), data, "\(link): \(name)") }
            XCTAssertEqual(Tool.files(under: out), [], "\(link): no output written")
            XCTAssertEqual(list(out + "/.medley"), medleyBefore, "\(link): nothing written in .medley either")
        }
    }

    /// A link planted under the export root on an output's way: only the items whose outputs go
    /// through it fail, with the reason, and not even an empty folder is made where it points.
    func testALinkedFolderUnderTheExportRootFailsOnlyItsItemsAndCreatesNothingOutside() throws {
        try makeInputs(4, folders: ["evil", "ok"])
        let path = try sepiaPipeline(name: "{relpath}/x/y/{stem}.{ext}")
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work + "/out/evil", withDestinationPath: work + "/elsewhere")
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        for name in ["p00", "p02"] {
            XCTAssertTrue(result.stderr.contains("✗ \(work!)/in/evil/\(name).pgm: refused to write \(work!)/out/evil/x/y/\(name).png: "
                                                 + "\(work!)/out/evil is a symbolic link; Medley writes only through real folders"),
                          result.stderr)
        }
        XCTAssertEqual(list(work + "/elsewhere"), [], "no folder made through the link")
        XCTAssertEqual(Tool.files(under: work + "/out"), ["ok/x/y/p01.png", "ok/x/y/p03.png"])
        XCTAssertEqual(list(work + "/out/.medley"), ["lock", "manifest-job.jsonl", "state.sqlite", "summary-job.json"])
    }

    // MARK: 4. names that lead into .medley

    /// An export name (or artwork name) whose own text leads into `.medley` is refused at
    /// validation, at the place in the file; nothing is written.
    func testOutputNamesLeadingIntoMedleyAreValidationErrors() throws {
        try makeInputs(1)
        let bad = [".medley/state.sqlite", ".medley/manifest-{job}.jsonl", "./.medley/{stem}.{ext}",
                   "{relpath}/.MEDLEY/{stem}.{ext}", "{title|\".medley\"}/{stem}.{ext}"]
        var text = "version: 1\njobs:\n"
        for (index, name) in bad.enumerated() {
            text += "  - name: j\(index)\n    ingest: { from: [in] }\n    export: { to: out, name: '\(name)' }\n"
        }
        text += "  - name: art\n    ingest: { from: [in] }\n    tag: { artwork: { export: '.medley/cover.{ext}' } }\n"
            + "    transcode: { AVFormatIDKey: kAudioFormatFLAC }\n    export: { to: out }\n"
        let path = try pipeline(text)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        // Expected places, found by hand: the line of each name, the column of ".medley" in it.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var expected: [String] = []
        for (number, line) in lines.enumerated() where line.contains("name: '") || line.contains("export: '.medley") {
            guard let range = line.range(of: ".medley", options: .caseInsensitive) else { continue }
            let column = line.distance(from: line.startIndex, to: range.lowerBound) + 1
            let what = line.contains("artwork") ? "tag.artwork.export" : "export.name"
            expected.append("\(path):\(number + 1):\(column): error: \(what) leads into .medley, Medley's own folder "
                            + "(manifest, run state, temporary files); name outputs outside it, like \"{relpath}/{stem}.{ext}\"")
        }
        XCTAssertEqual(expected.count, 6)
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.hasPrefix(path) }.map(String.init), expected)

        // Names that only look alike are fine.
        let fine = try pipeline("""
            version: 1
            jobs:
              - name: fine
                ingest: { from: [in] }
                export: { to: out, name: "{title|medley}/.medley/{stem}.{ext}" }
              - name: fine2
                ingest: { from: [in] }
                export: { to: out, name: "medley/{stem}.medley.{ext}" }
            """, name: "fine.yaml")
        XCTAssertEqual(try Tool.medley(["validate", fine]).status, 0)
        XCTAssertEqual(list(work), ["fine.yaml", "in", "pipeline.yaml"], "nothing written")
    }

    /// A value that renders the output path into `.medley` (a tag set to ".medley") fails that
    /// item at run time; Medley's own files are intact.
    func testAValueLeadingIntoMedleyFailsItsItemAndLeavesMedleysFilesIntact() throws {
        try makeInputs(2)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: tagged
                ingest: { from: [in] }
                tag: { set: { title: ".medley" } }
                filters: [ CISepiaTone ]
                export: { to: out, format: png, name: "{title}/state.sqlite" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("✗ \(work!)/in/p00.pgm: refused to write \(work!)/out/.medley/state.sqlite: it is inside "
                                             + "\(work!)/out/.medley, Medley's own folder"), result.stderr)
        let header = contents(work + "/out/.medley/state.sqlite")?.prefix(16)
        XCTAssertEqual(header, Data("SQLite format 3\0".utf8), "the run state is still SQLite")
        XCTAssertEqual(Tool.files(under: work + "/out"), [])
        XCTAssertEqual(Set(try records(work + "/out/.medley/manifest-tagged.jsonl").map { $0["status"] as? String ?? "" }), ["failed"])
    }

    // MARK: 5. a full disk

    /// The export root on a 600 KB tmpfs, outputs of ~50 KB: the disk fills mid-run. The item that
    /// meets it fails with the system's reason, its temporary file goes, and the run stops there
    /// with one message (exit 1); every output that exists decodes and is in the manifest as
    /// succeeded. With space freed, the next run finishes the rest, redoing nothing finished.
    func testAFullDiskStopsTheRunWithEveryFinishedItemKept() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for i in 0..<16 { XCTAssertEqual(try Tool.run("vips", ["gaussnoise", input + String(format: "/n%02d.png", i), "200", "200"]).status, 0) }
        try mountTmpfs(work + "/full", size: "600k")
        let path = try sepiaPipeline(to: "full/out", name: "{stem}.{ext}")
        let out = work + "/full/out"
        let result = try Tool.medley(["run", path, "--quiet", "--jobs", "1"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let manifest = try records(out + "/.medley/manifest-job.jsonl")
        XCTAssertTrue(result.stderr.hasSuffix("medley: the disk holding \(out) is full (No space left on device); stopped after "
                                              + "\(manifest.count) items — free space and run again\n"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/.medley/tmp"), "no temporary file left")
        let outputs = Tool.files(under: out)
        XCTAssertLessThan(outputs.count, 16, "the disk filled up")
        XCTAssertGreaterThan(outputs.count, 0)
        XCTAssertEqual(try widths(outputs.map { out + "/" + $0 }), Array(repeating: 200, count: outputs.count), "every output decodes")
        let succeeded = manifest.filter { $0["status"] as? String == "succeeded" }
        XCTAssertEqual(Set(succeeded.compactMap { $0["output"] as? String }), Set(outputs.map { out + "/" + $0 }))
        for record in manifest where record["status"] as? String == "failed" {
            XCTAssertTrue((record["error"] as? String ?? "").contains("No space left on device"), "\(record)")
        }
        let recorded = succeeded.filter { ($0["warnings"] as? [String] ?? []).isEmpty }.count

        XCTAssertEqual(try Tool.run("mount", ["-o", "remount,size=20m", work + "/full"]).status, 0)
        let rest = try Tool.medley(["run", path, "--quiet", "--jobs", "1", "--events", work + "/events.jsonl"])
        XCTAssertEqual(rest.status, 0, rest.stderr)
        let names = try events(work + "/events.jsonl")
        XCTAssertEqual(names.filter { $0 == "itemSkipped" }.count, recorded, "finished items are not redone")
        XCTAssertEqual(names.filter { $0 == "itemFinished" }.count, 16 - recorded)
        XCTAssertEqual(Tool.files(under: out).count, 16)
    }

    // MARK: 6. merge, read-only roots, export roots tangled with ingest roots

    /// `medley merge` killed while writing the merged manifest (SIGXFSZ at a 4 KB file-size limit,
    /// a deterministic point mid-write) leaves only a temporary file of a dead process, which the
    /// next merge removes: `.medley` then holds Medley's files and nothing else. (Foundation's
    /// atomic write left a `.dat.nosync…` file beside the manifest that nothing removed.)
    func testAKilledMergeLeavesNothingBehindTheNextMerge() throws {
        try makeInputs(40)
        let path = try sepiaPipeline(job: "m", name: "{stem}-with-a-longer-name-for-a-bigger-manifest.{ext}")
        for k in 1...2 { XCTAssertEqual(try Tool.medley(["run", path, "--quiet", "--shard", "\(k)/2"]).status, 0) }
        let killed = try Tool.run("bash", ["-c", "trap - XFSZ; ulimit -f 4; exec \"$0\" merge \"$1\"", Tool.medley, path])
        XCTAssertEqual(killed.status, SIGXFSZ, "killed mid-write: \(killed.stderr)")
        let merged = try Tool.medley(["merge", path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out/.medley"), [
            "lock", "lock-shard-1-of-2", "lock-shard-2-of-2", "manifest-m-shard-1-of-2.jsonl", "manifest-m-shard-2-of-2.jsonl",
            "manifest-m.jsonl", "state-shard-1-of-2.sqlite", "state-shard-2-of-2.sqlite", "summary-m-shard-1-of-2.json",
            "summary-m-shard-2-of-2.json",
        ])
        XCTAssertEqual(try records(work + "/out/.medley/manifest-m.jsonl").count, 40)
    }

    /// A read-only export root: a clear message and exit 2 (the run cannot start), for an export
    /// root that exists or is still to be made, and for merge; a dry run, which writes nothing,
    /// reads the run state there and works.
    func testAReadOnlyExportRootIsAClearErrorAndADryRunStillWorks() throws {
        try makeInputs(3)
        try mountTmpfs(work + "/ro", size: "1m")
        let path = try sepiaPipeline(to: "ro/out")
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
        XCTAssertEqual(try Tool.run("mount", ["-o", "remount,ro", work + "/ro"]).status, 0)
        let before = Tool.files(under: work + "/ro")
        for command in [["run", path], ["merge", path]] {
            let result = try Tool.medley(command)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertEqual(result.stderr, "medley: cannot write to \(work!)/ro/out: Read-only file system\n")
        }
        let dry = try Tool.medley(["run", path, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("job: would write 0, unchanged 3, 0 failed") && dry.stderr.contains("(unchanged since the last run)"),
                      dry.stderr)
        XCTAssertEqual(Tool.files(under: work + "/ro"), before)

        try mountTmpfs(work + "/ro2", size: "1m")
        XCTAssertEqual(try Tool.run("mount", ["-o", "remount,ro", work + "/ro2"]).status, 0)
        let fresh = try Tool.medley(["run", try sepiaPipeline(to: "ro2/out", file: "fresh.yaml")])
        XCTAssertEqual(fresh.status, 2, fresh.stderr)
        XCTAssertEqual(fresh.stderr, "medley: cannot write to \(work!)/ro2/out: Read-only file system\n")
    }

    /// An export root that is an ingest root, or a folder above one — also through a symbolic
    /// link — is a validation error at `to:` (it used to validate, then skip every input as an
    /// output of its own and write .medley among the photos). An export root inside an ingest
    /// root stays valid.
    func testAnExportRootHoldingAnIngestRootIsAValidationError() throws {
        try makeInputs(2)
        try FileManager.default.createSymbolicLink(atPath: work + "/link", withDestinationPath: work + "/in")
        let cases = [("in", "export.to is the ingest folder \(work!)/in"),
                     (".", "export.to (\(work!)) contains the ingest folder \(work!)/in"),
                     ("link", "export.to is the ingest folder \(work!)/in")]
        for (to, message) in cases {
            let text = "version: 1\njobs:\n  - name: tangled\n    ingest: { from: [in] }\n    export:\n      to: \(to)\n"
            let path = try pipeline(text, name: "tangled.yaml")
            let result = try Tool.medley(["run", path])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("\(path):6:11: error: \(message): every input would be taken for one of the job's own "
                                                  + "outputs, and nothing would run; export to a folder outside the ingest folders"),
                          result.stderr)
        }
        XCTAssertEqual(list(work), ["in", "link", "tangled.yaml"])
        XCTAssertEqual(list(work + "/in"), ["p00.pgm", "p01.pgm"], "no .medley among the inputs")
        let inside = try pipeline("version: 1\njobs:\n  - name: inside\n    ingest: { from: [link] }\n    export: { to: in/out }\n",
                                  name: "inside.yaml")
        XCTAssertEqual(try Tool.medley(["validate", inside]).status, 0)
    }

    /// Ingest through a link to the folder that holds the export root, or export through a link
    /// into the ingest root, or a link among the inputs to an output: the outputs are still
    /// recognised as the job's own, so a second run finds nothing new (it used to ingest its
    /// outputs again: a-sepia-sepia.png).
    func testOwnOutputsAreNeverIngestedAgainThroughALink() throws {
        let names = try makeInputs(2)
        try FileManager.default.createSymbolicLink(atPath: work + "/link", withDestinationPath: work + "/in")
        for (from, to) in [("link", "in/out"), ("in", "link/out"), ("in", "in/out")] {
            try? FileManager.default.removeItem(atPath: work + "/in/out")
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: own
                    ingest: { from: [\(from)] }
                    filters: [ CISepiaTone ]
                    export: { to: \(to), format: png, name: "{stem}-sepia.{ext}" }
                """)
            XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
            // A link among the inputs to one of the outputs is an output too.
            try? FileManager.default.removeItem(atPath: work + "/in/alias.png")
            try FileManager.default.createSymbolicLink(atPath: work + "/in/alias.png", withDestinationPath: work + "/in/out/p00-sepia.png")
            let again = try Tool.medley(["run", path, "--quiet", "--jobs", "1", "--events", work + "/events.jsonl"])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertEqual(try events(work + "/events.jsonl").filter { $0.hasPrefix("item") },
                           Array(repeating: ["itemStarted", "itemSkipped"], count: names.count).flatMap { $0 }, "\(from) → \(to)")
            XCTAssertEqual(Tool.files(under: work + "/in/out"), ["p00-sepia.png", "p01-sepia.png"], "\(from) → \(to)")
        }
    }
}
