import Foundation
import MedleyTestSupport
import XCTest

/// `ingest.afterwards: { move: FOLDER }` (issue 19 §3): a source is renamed into FOLDER, at its
/// path below its root, only once its output is in place; failed items stay; FOLDER is validated
/// (inside an ingest folder, no link leading out) and never ingested; a planted link below it is
/// not followed; a taken name gets a number; a dry run moves nothing; a SIGKILL never leaves a
/// source moved without its output. Expected outputs come from a run of the same pipeline without
/// `afterwards` over a copy of the same files, compared byte for byte.
final class AfterwardsMoveTests: EndToEndCase {
    /// Small JPEGs made by vips, each with its own trailing bytes (so its own content hash), at
    /// `names` (relative paths without extension) under `folder`; returns the bytes of each.
    @discardableResult
    func makeImages(_ names: [String], in folder: String) throws -> [String: Data] {
        let seed = work + "/seed.jpg"
        if !FileManager.default.fileExists(atPath: seed) {
            XCTAssertEqual(try Tool.run("vips", ["xyz", work + "/seed.v", "24", "16"]).status, 0)
            XCTAssertEqual(try Tool.run("vips", ["cast", work + "/seed.v", seed + "[Q=90]", "uchar"]).status, 0)
        }
        let base = try Data(contentsOf: URL(fileURLWithPath: seed))
        var made: [String: Data] = [:]
        for (i, name) in names.enumerated() {
            let path = folder + "/" + name + ".jpg"
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            var bytes = base
            bytes.append(contentsOf: Array("medley-\(name)-\(i)".utf8))
            try bytes.write(to: URL(fileURLWithPath: path))
            made[name + ".jpg"] = bytes
        }
        return made
    }

    /// The pipeline text; `afterwards` is the YAML of the ingest's afterwards key (nil: none).
    func pipelineText(from: String = "in", to: String = "out", afterwards: String? = "{ move: in/done }") -> String {
        """
        version: 1
        jobs:
          - name: hot
            ingest:
              from: [\(from)]
        \(afterwards.map { "      afterwards: \($0)\n" } ?? "")    filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
            export: { to: \(to), format: png, name: "{relpath}/{stem}.png" }
        """
    }

    func manifest(_ root: String = "out") throws -> [[String: Any]] {
        let text = try String(contentsOfFile: work + "/" + root + "/.medley/manifest-hot.jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func events(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func data(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The outputs a run without `afterwards` makes of the same files (copied to ref-in), by relative path.
    func referenceOutputs(copying input: String) throws -> [String: Data] {
        try FileManager.default.copyItem(atPath: work + "/" + input, toPath: work + "/ref-in")
        let path = try pipeline(pipelineText(from: "ref-in", to: "ref-out", afterwards: nil), name: "reference.yaml")
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertNotEqual(run.reason, .uncaughtSignal, run.stderr)
        var outputs: [String: Data] = [:]
        for name in Tool.files(under: work + "/ref-out") { outputs[name] = data(work + "/ref-out/" + name) }
        return outputs
    }

    func outputs(_ root: String = "out") -> [String: Data] {
        var found: [String: Data] = [:]
        for name in Tool.files(under: work + "/" + root) { found[name] = data(work + "/" + root + "/" + name) }
        return found
    }

    // MARK: success, failure, re-run

    func testSourcesMoveAfterTheirOutputKeepingTheirPathAndFailedOnesStay() throws {
        let sources = try makeImages(["a", "sub/b", "sub/deeper/c"], in: work + "/in")
        let broken = try Data(contentsOf: URL(fileURLWithPath: Tool.fixtures + "/broken/truncated.jpg"))
        try broken.write(to: URL(fileURLWithPath: work + "/in/sub/broken.jpg"))
        let expected = try referenceOutputs(copying: "in")
        XCTAssertEqual(Set(expected.keys), ["a.png", "sub/b.png", "sub/deeper/c.png"], "the reference run: three outputs, the broken file none")

        let path = try pipeline(pipelineText())
        let eventsPath = work + "/events.jsonl"
        let run = try Tool.medley(["run", path, "--events", eventsPath])
        XCTAssertEqual(run.status, 1, "one item failed: \(run.stderr)")
        XCTAssertTrue(run.stderr.contains(work + "/in/sub/broken.jpg"), run.stderr)

        // Every output byte for byte what the run without `afterwards` made.
        XCTAssertEqual(outputs(), expected)
        // Each source moved, unchanged, to its relative path below done/; the broken one stays.
        for (name, bytes) in sources {
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/" + name), "\(name) left in place")
            XCTAssertEqual(data(work + "/in/done/" + name), bytes, "\(name) moved with its bytes")
        }
        XCTAssertEqual(data(work + "/in/sub/broken.jpg"), broken, "a failed item is not moved")
        XCTAssertEqual(Tool.files(under: work + "/in/done"), ["a.jpg", "sub/b.jpg", "sub/deeper/c.jpg"])

        // The manifest and the itemFinished events say where each went.
        let records = try manifest()
        XCTAssertEqual(records.count, 4)
        for record in records {
            let item = try XCTUnwrap(record["item"] as? String)
            if item == "sub/broken.jpg" {
                XCTAssertEqual(record["status"] as? String, "failed")
                XCTAssertNil(record["movedTo"])
            } else {
                XCTAssertEqual(record["status"] as? String, "succeeded")
                XCTAssertEqual(record["movedTo"] as? String, work + "/in/done/" + item)
            }
        }
        let finished = try events(eventsPath).filter { $0["event"] as? String == "itemFinished" }
        XCTAssertEqual(Set(finished.compactMap { $0["movedTo"] as? String }),
                       Set(sources.keys.map { work + "/in/done/" + $0 }))

        // A second run finds nothing new: done/ is not ingested, nothing is written or moved.
        let second = try Tool.medley(["run", path, "--events", eventsPath])
        XCTAssertEqual(second.status, 1, "the broken file fails again: \(second.stderr)")
        let again = try events(eventsPath)
        XCTAssertEqual(again.filter { $0["event"] as? String == "itemStarted" }.compactMap { $0["input"] as? String },
                       [work + "/in/sub/broken.jpg"], "only the file left in place is looked at")
        XCTAssertEqual(again.filter { $0["event"] as? String == "itemFinished" }.count, 0)
        XCTAssertEqual(Tool.files(under: work + "/in/done"), ["a.jpg", "sub/b.jpg", "sub/deeper/c.jpg"])
        XCTAssertEqual(outputs(), expected)
        // Its manifest still lists the items moved before, from the run state, with where they went.
        let listed = try manifest()
        XCTAssertEqual(listed.count, 4)
        var movedTo: [String: String] = [:]
        for record in listed { movedTo[record["item"] as? String ?? ""] = record["movedTo"] as? String ?? "-" }
        let done: String = work + "/in/done/"
        let wanted: [String: String] = ["a.jpg": done + "a.jpg", "sub/b.jpg": done + "sub/b.jpg",
                                        "sub/deeper/c.jpg": done + "sub/deeper/c.jpg", "sub/broken.jpg": "-"]
        XCTAssertEqual(movedTo, wanted)
    }

    /// The state a SIGKILL between an item's run-state row and its move leaves: outputs and rows in
    /// place, sources not moved. The same pipeline with `afterwards` (which does not change what
    /// the outputs are) finds every item unchanged, writes nothing, and moves every source.
    func testUnchangedItemsWhoseOutputIsInPlaceAreMovedWithoutBeingRedone() throws {
        let sources = try makeImages(["a", "sub/b"], in: work + "/in")
        let before = try pipeline(pipelineText(afterwards: nil), name: "before.yaml")
        XCTAssertEqual(try Tool.medley(["run", before, "--quiet"]).status, 0)
        let written = Dictionary(uniqueKeysWithValues: ["a.png", "sub/b.png"].map { name in
            (name, (try? FileManager.default.attributesOfItem(atPath: work + "/out/" + name)[.systemFileNumber] as? Int) ?? -1)
        })
        let path = try pipeline(pipelineText())
        let eventsPath = work + "/events.jsonl"
        let run = try Tool.medley(["run", path, "--events", eventsPath])
        XCTAssertEqual(run.status, 0, run.stderr)
        let log = try events(eventsPath)
        XCTAssertEqual(log.filter { $0["event"] as? String == "itemFinished" }.count, 0, "nothing is redone")
        let skipped = log.filter { $0["event"] as? String == "itemSkipped" }
        XCTAssertEqual(Set(skipped.compactMap { $0["movedTo"] as? String }), Set(sources.keys.map { work + "/in/done/" + $0 }))
        for (name, bytes) in sources {
            XCTAssertEqual(data(work + "/in/done/" + name), bytes)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/" + name))
        }
        for (name, inode) in written {
            let now = try FileManager.default.attributesOfItem(atPath: work + "/out/" + name)[.systemFileNumber] as? Int
            XCTAssertEqual(now, inode, "\(name) is the output the first run wrote, not a new one")
        }
        let records = try manifest()
        XCTAssertEqual(Set(records.compactMap { $0["movedTo"] as? String }), Set(sources.keys.map { work + "/in/done/" + $0 }))
    }

    /// The fuzz finding of `manifest` (Tests/regressions/fuzz/manifest/) through `medley run`: an unchanged item
    /// moved aside has its manifest line rewritten from its run-state record. A record whose `bytes` and
    /// histogram counts are beyond what a JSON number holds exactly (a hand-edited or damaged state) must not
    /// come back changed (9007199254740993 was written as …992): each is left out or kept exactly, as
    /// Python's json module (exact integers) reads the lines.
    func testARecordsNumbersBeyondAJSONNumberAreNeverWrittenBackChanged() throws {
        try makeImages(["a"], in: work + "/in")
        let before = try pipeline(pipelineText(afterwards: nil), name: "before.yaml")
        XCTAssertEqual(try Tool.medley(["run", before, "--quiet"]).status, 0)
        let beyond = "9007199254740993"
        let edit = """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for key, record in db.execute("SELECT input, record FROM items").fetchall():
                r = json.loads(record)
                r["bytes"] = int(sys.argv[2])
                r["analysis"] = {"histogram": {"bins": 2, "red": [1, int(sys.argv[2])], "green": [0, 0], "blue": [0, 0]}}
                db.execute("UPDATE items SET record = ? WHERE input = ?", (json.dumps(r, separators=(",", ":")), key))
            db.commit()
            """
        _ = try Peer.must(Peer.python, ["-c", edit, work + "/out/.medley/state.sqlite", beyond])
        let run = try Tool.medley(["run", try pipeline(pipelineText()), "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let read = """
            import json, sys
            for line in open(sys.argv[1]):
                r = json.loads(line)
                print(r.get("item"), r.get("bytes"), (r.get("analysis") or {}).get("histogram", {}).get("red"), r.get("movedTo"))
            """
        let lines = try Peer.must(Peer.python, ["-c", read, work + "/out/.medley/manifest-hot.jsonl"]).stdout
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let fields = lines.first?.split(separator: " ").map(String.init) ?? []
        XCTAssertEqual(fields.first, "a.jpg")
        XCTAssertTrue(fields.count > 1 && ["None", beyond].contains(fields[1]), "bytes left out or kept exactly: \(lines)")
        XCTAssertFalse(lines[0].contains("9007199254740992"), "never rounded to the nearest double: \(lines)")
        XCTAssertTrue(lines[0].hasSuffix(work + "/in/done/a.jpg"), "the source moved aside: \(lines)")
    }

    /// The job's report, written after the sources moved, says where each went and still has its
    /// "before" picture (read from the moved file, its content hash checked).
    func testTheReportShowsWhereSourcesWentWithTheirBeforePictures() throws {
        try makeImages(["a", "sub/b"], in: work + "/in")
        let path = try pipeline(pipelineText() + "\n    report: true\n")
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        // The page's script makes the cards: read them as Chromium renders the page.
        let rendered = try chromium(["--window-size=1280,4000", "--dump-dom", "file://" + work + "/out/.medley/report-hot/index.html"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let page = rendered.stdout
        for item in ["a.jpg", "sub/b.jpg"] {
            let start = try XCTUnwrap(page.range(of: "data-item=\"\(item)\""), "\(item) is on the page")
            let article = String(page[start.upperBound...].prefix { _ in true }.components(separatedBy: "</article>")[0])
            XCTAssertTrue(article.contains("source moved to " + work + "/in/done/" + item), article)
            XCTAssertTrue(article.contains("alt=\"before\""), "\(item) keeps its before picture: \(article)")
        }
    }

    /// A glob root lists its files below its folder part: FOLDER may lie there, keeps the paths below
    /// it, and is not matched by the glob's `**` on a second run.
    func testAGlobRootMovesBelowItsFolderPart() throws {
        let sources = try makeImages(["a", "sub/b"], in: work + "/in")
        let path = try pipeline(pipelineText(from: "\"in/**/*.jpg\""))
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet"]).status, 0)
        for (name, bytes) in sources { XCTAssertEqual(data(work + "/in/done/" + name), bytes, name) }
        let eventsPath = work + "/events.jsonl"
        XCTAssertEqual(try Tool.medley(["run", path, "--quiet", "--events", eventsPath]).status, 0)
        XCTAssertEqual(try events(eventsPath).filter { $0["event"] as? String == "itemStarted" }.count, 0, "done/ is not matched")
        XCTAssertEqual(Tool.files(under: work + "/in"), ["done/a.jpg", "done/sub/b.jpg"])
    }

    /// A file named directly as a root (beside a folder root holding FOLDER) moves too, by its name.
    func testAFileGivenAsARootMovesByItsName() throws {
        let near = try makeImages(["a"], in: work + "/in")
        let single = try makeImages(["x"], in: work + "/single")
        let path = try pipeline(pipelineText(from: "in, single/x.jpg"))
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(data(work + "/in/done/a.jpg"), near["a.jpg"])
        XCTAssertEqual(data(work + "/in/done/x.jpg"), single["x.jpg"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/single/x.jpg"))
        XCTAssertFalse(run.stderr.contains("warn"), run.stderr)
    }

    // MARK: validation

    /// Each case: the pipeline, the text its error is about (the error points at its first
    /// character) and words of the message.
    func testFolderOutsideMissingOrLeadingOutFailsValidationAtItsPlace() throws {
        try makeImages(["a"], in: work + "/in")
        try FileManager.default.createDirectory(atPath: work + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work + "/in/out-link", withDestinationPath: work + "/elsewhere")
        let twoJobs = pipelineText() + """

              - name: second
                ingest: { from: [in] }
                filters: [ { CISepiaTone: { inputIntensity: 0.5 } } ]
                export: { to: out2, format: png }
            """
        let cases: [(String, String, String, String)] = [
            ("outside", pipelineText(afterwards: "{ move: elsewhere }"), "elsewhere", "outside every ingest folder"),
            ("link", pipelineText(afterwards: "{ move: in/out-link/done }"), "in/out-link/done", "symbolic link"),
            ("itself", pipelineText(afterwards: "{ move: in }"), "in }", "the ingest folder"),
            ("no move", pipelineText(afterwards: "{ }"), "{ }", "needs 'move'"),
            ("typo", pipelineText(afterwards: "{ mvoe: in/done }"), "mvoe", "did you mean 'move'?"),
            ("list", pipelineText(afterwards: "{ move: [in/a, in/b] }"), "[in/a", "must be text"),
            ("not a mapping", pipelineText(afterwards: "in/done"), "in/done", "must be a mapping"),
            ("export inside", pipelineText(to: "in/done/out"), "in/done }", "overlap"),
            ("two jobs", twoJobs, "in/done }", "reads the same folders"),
        ]
        for (name, text, at, words) in cases {
            let file = try pipeline(text)
            let lines = text.components(separatedBy: "\n")
            let lineIndex = try XCTUnwrap(lines.firstIndex { $0.contains("afterwards") && $0.contains(at) }
                                          ?? lines.firstIndex { $0.contains(at) }, name)
            let column = try XCTUnwrap(lines[lineIndex].range(of: at)).lowerBound.utf16Offset(in: lines[lineIndex]) + 1
            let result = try Tool.medley(["run", file])
            XCTAssertEqual(result.status, 2, "\(name): \(result.stderr)")
            let located = "\(file):\(lineIndex + 1):\(column): error:"
            let line = result.stderr.components(separatedBy: "\n").first { $0.hasPrefix(located) }
            XCTAssertNotNil(line, "\(name): expected \(located) in\n\(result.stderr)")
            XCTAssertTrue(line?.contains(words) == true, "\(name): expected '\(words)' in \(line ?? result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "\(name): nothing is written")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/done"), "\(name): nothing is made")
            XCTAssertNotNil(data(work + "/in/a.jpg"), "\(name): nothing is moved")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/elsewhere"), [])
    }

    // MARK: links, clashes, dry run

    func testAPlantedLinkBelowTheFolderIsNotFollowed() throws {
        let sources = try makeImages(["a", "sub/b"], in: work + "/in")
        try FileManager.default.createDirectory(atPath: work + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/in/done", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work + "/in/done/sub", withDestinationPath: work + "/outside")
        let path = try pipeline(pipelineText())
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/outside"), [], "nothing lands outside the roots")
        XCTAssertEqual(data(work + "/in/sub/b.jpg"), sources["sub/b.jpg"], "the source stays in place")
        XCTAssertEqual(data(work + "/in/done/a.jpg"), sources["a.jpg"], "a source whose folder is clear moves")
        XCTAssertNotNil(data(work + "/out/sub/b.png"), "its output is written all the same")
        let record = try XCTUnwrap(try manifest().first { $0["item"] as? String == "sub/b.jpg" })
        XCTAssertNil(record["movedTo"])
        let warnings = (record["warnings"] as? [String] ?? []).joined(separator: " ")
        XCTAssertTrue(warnings.contains("symbolic link") && warnings.contains("left in place"), warnings)
        XCTAssertTrue(run.stderr.contains("warn  " + work + "/in/sub/b.jpg"), run.stderr)
    }

    func testATakenNameGetsANumberAndNothingIsReplaced() throws {
        let sources = try makeImages(["a", "sub/b"], in: work + "/in")
        try FileManager.default.createDirectory(atPath: work + "/in/done/sub", withIntermediateDirectories: true)
        let old = Data("an earlier a.jpg".utf8), older = Data("an earlier b.jpg".utf8), oldest = Data("an earlier b (1).jpg".utf8)
        try old.write(to: URL(fileURLWithPath: work + "/in/done/a.jpg"))
        try older.write(to: URL(fileURLWithPath: work + "/in/done/sub/b.jpg"))
        try oldest.write(to: URL(fileURLWithPath: work + "/in/done/sub/b (1).jpg"))
        let path = try pipeline(pipelineText())
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(data(work + "/in/done/a.jpg"), old)
        XCTAssertEqual(data(work + "/in/done/a (1).jpg"), sources["a.jpg"])
        XCTAssertEqual(data(work + "/in/done/sub/b.jpg"), older)
        XCTAssertEqual(data(work + "/in/done/sub/b (1).jpg"), oldest)
        XCTAssertEqual(data(work + "/in/done/sub/b (2).jpg"), sources["sub/b.jpg"])
        let moved = Dictionary(uniqueKeysWithValues: try manifest().map { ($0["item"] as? String ?? "", $0["movedTo"] as? String) })
        XCTAssertEqual(moved["a.jpg"], work + "/in/done/a (1).jpg")
        XCTAssertEqual(moved["sub/b.jpg"], work + "/in/done/sub/b (2).jpg")
    }

    func testADryRunSaysWhatWouldMoveAndMovesNothing() throws {
        let sources = try makeImages(["a", "sub/b"], in: work + "/in")
        let path = try pipeline(pipelineText())
        let run = try Tool.medley(["run", path, "--dry-run"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for name in sources.keys {
            XCTAssertTrue(run.stderr.contains("would move  \(work!)/in/\(name) → \(work!)/in/done/\(name)"), run.stderr)
            XCTAssertEqual(data(work + "/in/" + name), sources[name])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/done"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
    }

    /// A second ingest root on another file system (tmpfs /dev/shm beside the scratch folder): its
    /// source cannot be renamed into FOLDER, so it stays in place with a warning (never a copy and a
    /// delete), while the source on FOLDER's own file system moves.
    func testASourceOnAnotherFileSystemStaysWithAWarning() throws {
        let other = "/dev/shm/medley-move-\(UUID().uuidString)"
        var here = stat(), there = stat()
        guard stat(work, &here) == 0, FileManager.default.fileExists(atPath: "/dev/shm"), stat("/dev/shm", &there) == 0 else {
            throw XCTSkip("no /dev/shm on this machine: no second file system to move from")
        }
        guard here.st_dev != there.st_dev else {
            throw XCTSkip("/dev/shm and \(work!) are one file system here: no cross-device move to try")
        }
        defer { try? FileManager.default.removeItem(atPath: other) }
        let near = try makeImages(["a"], in: work + "/in")
        let far = try makeImages(["far"], in: other)
        let path = try pipeline(pipelineText(from: "in, \(other)"))
        let run = try Tool.medley(["run", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(data(work + "/in/done/a.jpg"), near["a.jpg"])
        XCTAssertEqual(data(other + "/far.jpg"), far["far.jpg"], "the source on the other file system stays")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/done/far.jpg"), "and is not copied")
        XCTAssertNotNil(data(work + "/out/far.png"), "its output is written all the same")
        let record = try XCTUnwrap(try manifest().first { $0["item"] as? String == "far.jpg" })
        XCTAssertNil(record["movedTo"])
        let warnings = (record["warnings"] as? [String] ?? []).joined(separator: " ")
        XCTAssertTrue(warnings.contains("another file system") && warnings.contains("left in place"), warnings)
    }

    // MARK: SIGKILL

    /// Killed at points of its own progress (after the k-th finished item, read from its events),
    /// a run leaves each source exactly once — in place, or moved with its output complete — and
    /// the runs after it finish the job: every source moved, every output as an unsharded run
    /// without `afterwards` makes it.
    func testAKilledRunNeverLeavesASourceMovedWithoutItsOutput() throws {
        let names = (0..<90).map { i in (i % 2 == 0 ? "" : "sub/") + String(format: "img-%02d", i) }
        let sources = try makeImages(names, in: work + "/in")
        let expected = try referenceOutputs(copying: "in")
        XCTAssertEqual(expected.count, names.count)
        let path = try pipeline(pipelineText())

        func checkEverySourceOnce(_ when: String) {
            for name in names {
                let source = name + ".jpg", output = name + ".png"
                let inPlace = data(work + "/in/" + source), moved = data(work + "/in/done/" + source)
                XCTAssertTrue((inPlace == nil) != (moved == nil), "\(when): \(source) is in exactly one place")
                XCTAssertEqual(inPlace ?? moved, sources[source], "\(when): \(source) keeps its bytes")
                if moved != nil {
                    XCTAssertEqual(data(work + "/out/" + output), expected[output], "\(when): \(source) moved, so its output is whole")
                }
                if let written = data(work + "/out/" + output) {
                    XCTAssertEqual(written, expected[output], "\(when): an output is complete or absent")
                }
            }
        }
        // 90 items: each trial can run at most about two pipe pages of events (some 20 items) past its
        // k-th itemFinished, so all three die with items still to do.
        for (trial, k) in [2, 6, 12].enumerated() {
            let run = try EventedRun(["run", path, "--quiet", "--jobs", "1"])
            XCTAssertTrue(run.read(untilThe: k, "itemFinished"), "trial \(trial) ended early: \(run.stderr)")
            XCTAssertTrue(run.process.isRunning, "trial \(trial): the run is killed mid-run")
            kill(run.process.processIdentifier, SIGKILL)
            _ = run.finish()
            XCTAssertEqual(run.process.terminationReason, .uncaughtSignal)
            checkEverySourceOnce("after kill \(trial)")
            let moved = names.filter { FileManager.default.fileExists(atPath: work + "/in/done/" + $0 + ".jpg") }.count
            XCTAssertTrue(moved >= k && moved < names.count, "trial \(trial) died mid-run: \(moved) of \(names.count) moved")
        }
        let final = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(final.status, 0, final.stderr)
        checkEverySourceOnce("after the last run")
        XCTAssertEqual(outputs(), expected)
        XCTAssertEqual(Tool.files(under: work + "/in").filter { !$0.hasPrefix("done/") }, [], "every source moved")
        XCTAssertEqual(Tool.files(under: work + "/in/done"), names.map { $0 + ".jpg" }.sorted())
        // The last run's manifest lists every item once (those moved by earlier runs from the run
        // state), each with where its source went.
        let records = try manifest()
        XCTAssertEqual(records.compactMap { $0["item"] as? String }.sorted(), names.map { $0 + ".jpg" }.sorted())
        for record in records {
            let item = try XCTUnwrap(record["item"] as? String)
            XCTAssertEqual(record["status"] as? String, "succeeded", item)
            XCTAssertEqual(record["movedTo"] as? String, work + "/in/done/" + item)
        }
    }
}
