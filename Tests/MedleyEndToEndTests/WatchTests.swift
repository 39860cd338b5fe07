import Foundation
import XCTest

/// `medley watch` as a child process: files arriving one by one, a burst of 1,000, a folder moved
/// in, a file written slowly, a file replaced, the playlist and report after a batch, a SIGTERM and
/// a SIGKILL in the middle of a burst with a restart after each. Every wait is on the events file
/// (polled, with an overall timeout that only guards against a hang); outputs are checked against
/// their inputs' pixels as ImageMagick decodes them.
final class WatchTests: EndToEndCase {
    var watches: [WatchProcess] = []

    override func tearDownWithError() throws {
        for watch in watches { watch.kill() }
        watches = []
        try super.tearDownWithError()
    }

    var input: String { work + "/in" }
    var output: String { work + "/out" }

    /// Images (and audio, transcoded to PCM in CAF) from `in` to `out`, named after their inputs.
    func writePipeline(extra: String = "") throws {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        _ = try pipeline("""
            version: 1
            jobs:
              - name: hot
                ingest: { from: [in], media: [any], exclude: ["*.part"] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44100 }
                export: { to: out, format: png, name: "{stem}.{ext}" }
            \(extra)
            """)
    }

    func start(_ extra: [String] = [], jobs: Int = 2) throws -> WatchProcess {
        let watch = try WatchProcess(pipeline: work + "/pipeline.yaml", events: work + "/events-\(watches.count).jsonl",
                                     arguments: ["--jobs", "\(jobs)"] + extra)
        watches.append(watch)
        XCTAssertTrue(watch.waitFor { $0.event == "watchStarted" }, "watchStarted; stderr: \(watch.stderr)")
        return watch
    }

    /// A small PNG of noise (different for every seed), written to `path` by vips.
    func makeImage(_ path: String, seed: Int, size: Int = 12) throws {
        try Tool.vips(["gaussnoise", path, "\(size)", "\(size)", "--mean", "\(60 + seed % 120)", "--sigma", "40", "--seed", "\(seed)"])
    }

    /// Asserts that the output of `input` has the input's pixels.
    func assertSamePixels(_ inputPath: String, _ outputPath: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try Tool.pixels(inputPath), actual = try Tool.pixels(outputPath)
        XCTAssertEqual(actual.width, expected.width, file: file, line: line)
        XCTAssertEqual(actual.samples, expected.samples, "\(outputPath) has the pixels of \(inputPath)", file: file, line: line)
    }

    /// Asserts that each output has its input's pixels: decoded once per distinct input (the burst
    /// repeats a few images), the other outputs of the same input compared byte for byte with it.
    func assertSamePixels(_ pairs: [(input: String, output: String)], file: StaticString = #filePath, line: UInt = #line) throws {
        var checked: [Data: Data] = [:]  // input bytes → an output already compared with them by pixels
        for (inputPath, outputPath) in pairs {
            let source = try XCTUnwrap(FileManager.default.contents(atPath: inputPath), inputPath, file: file, line: line)
            let made = try XCTUnwrap(FileManager.default.contents(atPath: outputPath), "\(outputPath) exists", file: file, line: line)
            if let reference = checked[source] {
                XCTAssertEqual(made, reference, "\(outputPath): the output of the same content", file: file, line: line)
            } else {
                try assertSamePixels(inputPath, outputPath, file: file, line: line)
                checked[source] = made
            }
        }
    }

    /// A new file opened once for writing, as a writer that streams into it does.
    func openForWriting(_ path: String) throws -> FileHandle {
        let descriptor = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    func finished(_ watch: WatchProcess, _ path: String) -> [WatchProcess.Event] {
        watch.events.filter { $0.event == "itemFinished" && $0.input == path }
    }

    /// Leftover temporaries of any run: none may remain once a watch has ended.
    func temporaries() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: output + "/.medley/tmp")) ?? []
    }

    // MARK: tests

    func testFilesArrivingOneByOneAndAFileReplacedAreEachProcessedFromTheirCompleteContent() throws {
        try writePipeline()
        // One file there before the watch: the catch-up pass takes it.
        try makeImage(input + "/before.png", seed: 1)
        let watch = try start()
        XCTAssertEqual(finished(watch, input + "/before.png").count, 1, "the catch-up pass")
        let staging = work + "/staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for index in 0..<3 {
            // Written elsewhere, copied in (closed after writing).
            try makeImage(staging + "/f\(index).png", seed: 10 + index)
            try FileManager.default.copyItem(atPath: staging + "/f\(index).png", toPath: input + "/f\(index).png")
            XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/f\(index).png" }, watch.stderr)
        }
        // A file replaced by a rename over it: processed again, from the new content.
        try makeImage(staging + "/new.png", seed: 99, size: 20)
        XCTAssertEqual(rename(staging + "/new.png", input + "/f1.png"), 0)
        XCTAssertTrue(watch.waitFor { _ in self.finished(watch, self.input + "/f1.png").count == 2 }, watch.stderr)
        // Rewritten in place with new bytes: processed again. Touched only (same bytes): looked at, skipped as unchanged.
        try makeImage(staging + "/rewrite.png", seed: 77, size: 16)
        try XCTUnwrap(FileManager.default.contents(atPath: staging + "/rewrite.png")).write(to: URL(fileURLWithPath: input + "/f2.png"))
        XCTAssertTrue(watch.waitFor { _ in self.finished(watch, self.input + "/f2.png").count == 2 }, watch.stderr)
        XCTAssertEqual(try Tool.run("touch", [input + "/f0.png"]).status, 0)
        XCTAssertTrue(watch.waitFor { $0.event == "itemSkipped" && $0.input == self.input + "/f0.png" }, watch.stderr)
        // A file that is not media is ignored, not failed; an excluded name is never looked at.
        try Data("plain text".utf8).write(to: URL(fileURLWithPath: input + "/notes.txt"))
        try makeImage(staging + "/skip.png", seed: 3)
        try FileManager.default.copyItem(atPath: staging + "/skip.png", toPath: input + "/skip.part")
        try makeImage(input + "/last.png", seed: 4)
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/last.png" }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)

        XCTAssertEqual(finished(watch, input + "/f0.png").count, 1, "f0 once: touching it redid nothing")
        try assertSamePixels(staging + "/f0.png", output + "/f0.png")
        try assertSamePixels(staging + "/rewrite.png", output + "/f2.png")
        try assertSamePixels(input + "/f1.png", output + "/f1.png")
        XCTAssertEqual(try Tool.pixels(output + "/f1.png").width, 20, "the replacement's content")
        XCTAssertEqual(watch.events.filter { $0.event == "itemFailed" }.count, 0, watch.stderr)
        XCTAssertTrue(watch.events.allSatisfy { $0.input != input + "/skip.part" }, "excluded by ingest.exclude")
        XCTAssertEqual(Set(Tool.files(under: output).filter { !$0.hasPrefix(".medley") }),
                       ["before.png", "f0.png", "f1.png", "f2.png", "last.png"])
        XCTAssertEqual(temporaries(), [])
    }

    /// `ingest.page: all` in a watch: a PDF that arrives gives every page its own output, as the catch-up
    /// pass does (vipsheader's n-pages says how many), each with that page's pixels as vipsthumbnail draws them.
    func testEveryPageOfAnArrivingPDF() throws {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        _ = try pipeline("""
            version: 1
            jobs:
              - name: pages
                ingest: { from: [in], page: all }
                filters: [ { resize: { width: 144, height: 144 } } ]
                export: { to: out, format: png }
            """)
        let watch = try start()
        let source = Tool.fixtures + "/vectors/page.pdf"
        try FileManager.default.copyItem(atPath: source, toPath: work + "/page.pdf")
        XCTAssertEqual(rename(work + "/page.pdf", input + "/page.pdf"), 0)
        let pages = try XCTUnwrap(Int(try Tool.vipsHeader(source, "n-pages")))
        XCTAssertTrue(watch.waitFor { _ in self.finished(watch, self.input + "/page.pdf").count == pages }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        XCTAssertEqual(Set(Tool.files(under: output).filter { !$0.hasPrefix(".medley") }), Set((1...pages).map { "page-\($0).png" }))
        for page in 1...pages {
            let peer = work + "/peer-\(page).png"
            XCTAssertEqual(try Tool.run("vipsthumbnail", [input + "/page.pdf[page=\(page - 1)]", "-s", "144", "-o", peer]).status, 0)
            try assertSamePixels(peer, output + "/page-\(page).png")
        }
        XCTAssertFalse(watch.stderr.contains("a PDF of"), watch.stderr)
    }

    func testABurstOfAThousandFilesIsProcessedEachOnce() throws {
        try writePipeline()
        let watch = try start()
        let seed = work + "/seed.png"
        try makeImage(seed, seed: 7, size: 8)
        for index in 0..<1000 { try FileManager.default.copyItem(atPath: seed, toPath: input + "/b\(index).png") }
        XCTAssertTrue(watch.waitFor(timeout: 150) { _ in watch.count("itemFinished") >= 1000 }, "1,000 finished; stderr: \(watch.stderr)")
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        let inputs = watch.events.filter { $0.event == "itemFinished" }.compactMap(\.input)
        XCTAssertEqual(inputs.count, 1000, "each file once")
        XCTAssertEqual(Set(inputs), Set((0..<1000).map { input + "/b\($0).png" }))
        let first = try XCTUnwrap(FileManager.default.contents(atPath: output + "/b0.png"))
        try assertSamePixels(seed, output + "/b0.png")
        for index in 0..<1000 {
            XCTAssertEqual(FileManager.default.contents(atPath: output + "/b\(index).png"), first, "b\(index).png")
        }
        // The manifest put in place after the batches lists every item once.
        let manifest = try String(contentsOfFile: output + "/.medley/manifest-hot.jsonl", encoding: .utf8)
        XCTAssertEqual(manifest.split(separator: "\n").count, 1000)
        XCTAssertEqual(temporaries(), [])
    }

    func testAFolderMovedInAndAFolderMadeWithFilesAreBothSeen() throws {
        try writePipeline()
        let watch = try start()
        // A tree built outside the root, then moved in with one rename: no event names its files.
        let staging = work + "/staging/album"
        try FileManager.default.createDirectory(atPath: staging + "/disc 2", withIntermediateDirectories: true)
        try makeImage(staging + "/a.png", seed: 21)
        try makeImage(staging + "/disc 2/b.png", seed: 22)
        XCTAssertEqual(rename(staging, input + "/album"), 0)
        // A folder made inside the root, with files written into it at once (racing its watch).
        try FileManager.default.createDirectory(atPath: input + "/made/deeper", withIntermediateDirectories: true)
        try makeImage(input + "/made/deeper/c.png", seed: 23)
        let expected = [input + "/album/a.png", input + "/album/disc 2/b.png", input + "/made/deeper/c.png"]
        XCTAssertTrue(watch.waitFor { _ in expected.allSatisfy { !self.finished(watch, $0).isEmpty } }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        // Named "{stem}.{ext}": the outputs sit side by side in `out`.
        try assertSamePixels(input + "/album/a.png", output + "/a.png")
        try assertSamePixels(input + "/album/disc 2/b.png", output + "/b.png")
        try assertSamePixels(input + "/made/deeper/c.png", output + "/c.png")
        for path in expected { XCTAssertEqual(finished(watch, path).count, 1, path) }
    }

    func testAFileWrittenSlowlyIsTakenOnlyOnceCompleteAndAWriterThatNeverClosesAfterItSettles() throws {
        try writePipeline()
        // A settle time of ten minutes: however long load stalls the writer between its chunks, the
        // slow file can only be taken when it is closed.
        let watch = try start(["--settle", "10m"])
        let complete = work + "/complete.png"
        try makeImage(complete, seed: 31, size: 96)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: complete))
        // Six chunks over about three seconds, the file held open throughout (the pacing is the test's input).
        let slow = input + "/slow.png"
        let handle = try openForWriting(slow)
        let chunk = (bytes.count + 5) / 6
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try handle.write(contentsOf: bytes[start..<min(bytes.count, start + chunk)])
            Thread.sleep(forTimeInterval: 0.5)
        }
        try handle.close()
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == slow }, watch.stderr)
        // Deleted before it settled (and closed only after): forgotten, never started.
        let vanish = input + "/vanish.png"
        let doomed = try openForWriting(vanish)
        try doomed.write(contentsOf: bytes[0..<(bytes.count / 2)])
        XCTAssertEqual(unlink(vanish), 0)
        try doomed.close()
        // A last file as a marker: once it is done, every event of the files before it is in.
        try makeImage(input + "/marker.png", seed: 33)
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/marker.png" }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)

        XCTAssertEqual(watch.events.filter { $0.input == slow && $0.event == "itemStarted" }.count, 1, "no event for a partial file")
        XCTAssertEqual(watch.events.filter { $0.event == "itemFailed" }.count, 0, watch.stderr)
        try assertSamePixels(complete, output + "/slow.png")
        XCTAssertFalse(watch.events.contains { $0.input == vanish }, "a file deleted before it settled is forgotten")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/vanish.png"))

        // Written whole and left open, under a watch that settles in 3 s: taken once its size and
        // time have held that long, while its writer still has it open.
        let settled = try start(["--settle", "3s"])
        let open = input + "/open.png"
        try makeImage(work + "/open-source.png", seed: 32)
        let held = try openForWriting(open)
        try held.write(contentsOf: try XCTUnwrap(FileManager.default.contents(atPath: work + "/open-source.png")))
        XCTAssertTrue(settled.waitFor { $0.event == "itemFinished" && $0.input == open }, settled.stderr)
        try held.close()
        try makeImage(input + "/marker-2.png", seed: 34)
        XCTAssertTrue(settled.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/marker-2.png" }, settled.stderr)
        settled.terminate()
        XCTAssertEqual(settled.waitForExit(), 0, settled.stderr)
        try assertSamePixels(work + "/open-source.png", output + "/open.png")
        XCTAssertEqual(finished(settled, open).count, 1, "closing it later changes nothing: it is unchanged")
        XCTAssertEqual(settled.events.filter { $0.event == "itemFailed" }.count, 0, settled.stderr)
    }

    func testPlaylistAndReportAreRefreshedAfterABatch() throws {
        try writePipeline(extra: """
                playlist: { to: out/hot.m3u8 }
                report: true
            """)
        let watch = try start()
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/tone.flac", toPath: input + "/one.flac")
        XCTAssertTrue(watch.waitFor { $0.event == "outputsRefreshed" && watch.count("itemFinished") >= 1 }, watch.stderr)
        let first = try String(contentsOfFile: output + "/hot.m3u8", encoding: .utf8)
        XCTAssertTrue(first.contains("one.caf"), first)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/tone.flac", toPath: input + "/two.flac")
        let refreshes = watch.events.filter { $0.event == "outputsRefreshed" }.count
        XCTAssertTrue(watch.waitFor { _ in
            watch.events.filter { $0.event == "outputsRefreshed" }.count > refreshes
                && !self.finished(watch, self.input + "/two.flac").isEmpty
        }, watch.stderr)
        let second = try String(contentsOfFile: output + "/hot.m3u8", encoding: .utf8)
        XCTAssertEqual(second.split(separator: "\n").filter { $0.hasSuffix(".caf") }, ["one.caf", "two.caf"], second)
        let report = try String(contentsOfFile: output + "/.medley/report-hot/index.html", encoding: .utf8)
        XCTAssertTrue(report.contains("two.flac"), "the report lists the second batch's item")
        let manifest = try String(contentsOfFile: output + "/.medley/manifest-hot.jsonl", encoding: .utf8)
        XCTAssertEqual(manifest.split(separator: "\n").count, 2, "each item once in the manifest")
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
    }

    /// A burst of `count` distinct images in `in` (made in a staging folder, then moved in one by one).
    func burst(_ count: Int) throws -> [String: String] {
        let staging = work + "/staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        var sources: [String: String] = [:]
        for variant in 0..<7 { try makeImage(staging + "/v\(variant).png", seed: 100 + variant, size: 8 + variant) }
        for index in 0..<count {
            let source = staging + "/s\(index).png"
            try FileManager.default.copyItem(atPath: staging + "/v\(index % 7).png", toPath: source)
            sources[input + "/s\(index).png"] = source
        }
        for index in 0..<count {
            // Written under a hidden name (never ingested), then renamed into place.
            XCTAssertTrue(FileManager.default.createFile(atPath: input + "/.s\(index).tmp",
                                                         contents: FileManager.default.contents(atPath: staging + "/s\(index).png")))
            XCTAssertEqual(rename(input + "/.s\(index).tmp", input + "/s\(index).png"), 0)
        }
        return sources
    }

    /// The first watch's events come through a one-page pipe the test stops reading at the 10th
    /// itemFinished, so the SIGTERM lands in the 60-item burst however fast the machine (see the
    /// SIGKILL test below).
    func testSIGTERMInABurstFinishesInFlightItemsAndARestartDoesOnlyTheRest() throws {
        try writePipeline()
        let watch = try EventedRun(["watch", work + "/pipeline.yaml", "--jobs", "1"])
        defer { if watch.process.isRunning { Foundation.kill(watch.process.processIdentifier, SIGKILL) } }
        XCTAssertTrue(watch.read(untilThe: 1, "watchStarted"), watch.stderr)
        let sources = try burst(60)
        XCTAssertTrue(watch.read(untilThe: 10, "itemFinished"), watch.stderr)
        XCTAssertTrue(watch.process.isRunning, "the watch is stopped in the burst")
        watch.process.terminate()
        let stderr = watch.finish()
        XCTAssertEqual(watch.process.terminationReason, .exit)
        XCTAssertEqual(watch.process.terminationStatus, 0, stderr)
        let events = watch.lines.compactMap { $0["event"] as? String }
        let done = Set(watch.lines.filter { $0["event"] as? String == "itemFinished" }.compactMap { $0["input"] as? String })
        XCTAssertGreaterThanOrEqual(done.count, 10)
        XCTAssertLessThan(done.count, sources.count, "the SIGTERM landed before the burst was done")
        try assertSamePixels(try done.map { (try XCTUnwrap(sources[$0]), output + "/" + ($0 as NSString).lastPathComponent) })
        XCTAssertEqual(temporaries(), [], "no temporary left")
        XCTAssertEqual(events.last, "jobFinished")

        let again = try start()
        XCTAssertTrue(again.waitFor { _ in
            Set(again.events.filter { $0.event == "itemFinished" }.compactMap(\.input)).union(done).count == sources.count
        }, again.stderr)
        again.terminate()
        XCTAssertEqual(again.waitForExit(), 0, again.stderr)
        let redone = again.events.filter { $0.event == "itemFinished" }.compactMap(\.input)
        XCTAssertEqual(Set(redone).intersection(done), [], "nothing finished is redone")
        XCTAssertEqual(redone.count, sources.count - done.count, "the rest, each once")
        XCTAssertEqual(again.events.filter { $0.event == "itemSkipped" }.count, done.count, "the finished ones skipped as unchanged")
        try assertSamePixels(sources.map { ($0.value, output + "/" + ($0.key as NSString).lastPathComponent) })
    }

    /// The first watch's events come through a pipe of one page that the test stops reading at the
    /// 8th itemFinished: the watch can write at most a page or two more (some 20 items' events) before
    /// it blocks, so the SIGKILL lands in the middle of the 40-item burst however fast the machine.
    func testSIGKILLInABurstThenARestartLeavesEveryOutputOnceAndCorrect() throws {
        try writePipeline()
        let watch = try EventedRun(["watch", work + "/pipeline.yaml", "--jobs", "1"])
        defer { if watch.process.isRunning { Foundation.kill(watch.process.processIdentifier, SIGKILL) } }
        XCTAssertTrue(watch.read(untilThe: 1, "watchStarted"), watch.stderr)
        let sources = try burst(40)
        XCTAssertTrue(watch.read(untilThe: 8, "itemFinished"), watch.stderr)
        XCTAssertTrue(watch.process.isRunning, "the watch is killed in the burst")
        Foundation.kill(watch.process.processIdentifier, SIGKILL)
        _ = watch.finish()
        XCTAssertEqual(watch.process.terminationReason, .uncaughtSignal)
        let done = Set(watch.lines.filter { $0["event"] as? String == "itemFinished" }.compactMap { $0["input"] as? String })
        XCTAssertGreaterThanOrEqual(done.count, 8)
        XCTAssertLessThan(done.count, sources.count, "the kill landed before the burst was done")

        let again = try start()
        XCTAssertTrue(again.waitFor { _ in
            Set(again.events.filter { $0.event == "itemFinished" || $0.event == "itemSkipped" }.compactMap(\.input)).count == sources.count
        }, again.stderr)
        again.terminate()
        XCTAssertEqual(again.waitForExit(), 0, again.stderr)
        let redone = again.events.filter { $0.event == "itemFinished" }.compactMap(\.input)
        XCTAssertEqual(Set(redone).intersection(done), [], "an item whose itemFinished was written is not redone")
        XCTAssertEqual(Set(Tool.files(under: output).filter { !$0.hasPrefix(".medley") }),
                       Set(sources.keys.map { ($0 as NSString).lastPathComponent }), "every output exactly once")
        try assertSamePixels(sources.map { ($0.value, output + "/" + ($0.key as NSString).lastPathComponent) })
        XCTAssertEqual(temporaries(), [], "the restart removed the killed watch's temporaries")
    }

    /// FNV-1a of the relative path, the formula `--shard` documents: shard (1…count) of a path.
    func shard(of relativePath: String, count: UInt64) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relativePath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % count) + 1
    }

    func testTwoShardsWatchingTheSameRootsEachTakeTheirShareOfArrivals() throws {
        try writePipeline()
        let first = try start(["--shard", "1/2"]), second = try start(["--shard", "2/2"])
        let seed = work + "/seed.png"
        try makeImage(seed, seed: 5, size: 8)
        let names = (0..<16).map { "n\($0).png" }
        for name in names { try FileManager.default.copyItem(atPath: seed, toPath: input + "/" + name) }
        func taken(_ watch: WatchProcess) -> Set<String> {
            Set(watch.events.filter { $0.event == "itemFinished" }.compactMap { $0.input.map { ($0 as NSString).lastPathComponent } })
        }
        let expected = (one: Set(names.filter { shard(of: $0, count: 2) == 1 }), two: Set(names.filter { shard(of: $0, count: 2) == 2 }))
        XCTAssertTrue(first.waitFor { _ in taken(first).count >= expected.one.count }, first.stderr)
        XCTAssertTrue(second.waitFor { _ in taken(second).count >= expected.two.count }, second.stderr)
        first.terminate()
        second.terminate()
        XCTAssertEqual(first.waitForExit(), 0, first.stderr)
        XCTAssertEqual(second.waitForExit(), 0, second.stderr)
        XCTAssertEqual(taken(first), expected.one, "shard 1 takes the paths the hash gives it")
        XCTAssertEqual(taken(second), expected.two)
        XCTAssertEqual(Set(Tool.files(under: output).filter { !$0.hasPrefix(".medley") }), Set(names))
    }

    func testAnOverflowOfTheKernelsQueueWalksTheRootsAgainAndLosesNothing() throws {
        // The queue's length per watch (fs.inotify.max_queued_events); events beyond it are dropped.
        let limitText = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
        let limit = try XCTUnwrap(Int(limitText.trimmingCharacters(in: .whitespacesAndNewlines)))
        guard limit <= 1 << 20 else {
            throw XCTSkip("fs.inotify.max_queued_events is \(limit): too many events to overflow it in a test")
        }
        try writePipeline()
        let watch = try start()
        // Stopped, the watch reads no event; two files written a byte at a time, in turn (so the
        // kernel cannot merge neighbouring events), make more than the queue holds.
        let sources = [work + "/a-source.png", work + "/b-source.png"]
        let side = Int(Double(limit / 2 + 1024).squareRoot()) + 8
        for (index, source) in sources.enumerated() { try makeImage(source, seed: 41 + index, size: side) }
        let bytes = try sources.map { try XCTUnwrap(FileManager.default.contents(atPath: $0)) }
        XCTAssertGreaterThan(bytes[0].count + bytes[1].count, limit, "enough writes to overflow the queue")
        XCTAssertEqual(Foundation.kill(watch.process.processIdentifier, SIGSTOP), 0)
        let targets = [input + "/a.png", input + "/b.png"]
        let handles = try targets.map { try openForWriting($0) }
        for offset in 0..<max(bytes[0].count, bytes[1].count) {
            for (handle, data) in zip(handles, bytes) where offset < data.count {
                try handle.write(contentsOf: data[offset..<(offset + 1)])
            }
        }
        for handle in handles { try handle.close() }
        XCTAssertEqual(Foundation.kill(watch.process.processIdentifier, SIGCONT), 0)
        XCTAssertTrue(watch.waitFor { $0.event == "watchRescan" }, "the overflow is seen; stderr: \(watch.stderr)")
        XCTAssertTrue(watch.waitFor { _ in targets.allSatisfy { !self.finished(watch, $0).isEmpty } }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        try assertSamePixels(sources[0], output + "/a.png")
        try assertSamePixels(sources[1], output + "/b.png")
    }

    /// `ingest.afterwards.move` under a watch: each arrival is processed once, then moved into
    /// `in/done` (a folder inside the watched root), and what lands there is never taken again.
    func testSourcesMovedAsideAfterwardsAreNotTakenAgainAsArrivals() throws {
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        _ = try pipeline("""
            version: 1
            jobs:
              - name: hot
                ingest: { from: [in], media: [image], afterwards: { move: in/done } }
                export: { to: out, format: png, name: "{relpath}/{stem}.{ext}" }
            """)
        let staging = work + "/staging"
        try FileManager.default.createDirectory(atPath: staging + "/sub", withIntermediateDirectories: true)
        try makeImage(input + "/before.png", seed: 5)
        let watch = try start()
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/before.png" }, watch.stderr)
        var names = ["before.png"]
        for index in 0..<3 {
            try makeImage(staging + "/a\(index).png", seed: 30 + index)
            XCTAssertEqual(rename(staging + "/a\(index).png", input + "/a\(index).png"), 0)
            names.append("a\(index).png")
        }
        try makeImage(staging + "/sub/b.png", seed: 40)
        XCTAssertEqual(rename(staging + "/sub", input + "/sub"), 0)
        names.append("sub/b.png")
        for name in names {
            XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/" + name }, "\(name): \(watch.stderr)")
        }
        // Every source reaches done/ once its output is in place (the move follows the finish event).
        XCTAssertTrue(watch.waitFor { _ in names.allSatisfy { FileManager.default.fileExists(atPath: self.input + "/done/" + $0) } },
                      watch.stderr)
        // A batch after the moves: the watch is still taking arrivals, and only those.
        try makeImage(staging + "/last.png", seed: 50)
        XCTAssertEqual(rename(staging + "/last.png", input + "/last.png"), 0)
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/last.png" }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        names.append("last.png")
        for name in names {
            XCTAssertEqual(finished(watch, input + "/" + name).count, 1, "\(name) processed once")
            try assertSamePixels(input + "/done/" + name, output + "/" + name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: input + "/" + name), "\(name) moved aside")
        }
        XCTAssertFalse(watch.events.contains { ($0.input ?? "").hasPrefix(input + "/done/") }, "nothing in done/ is an item")
        XCTAssertEqual(temporaries(), [])
    }

    /// A file whose name is not UTF-8 cannot be passed on (no path of Swift's can hold it): the
    /// watch reports it as `run` does, an item failure naming it, and goes on watching.
    func testANameThatIsNotUTF8IsReportedAsAFailureAndTheWatchGoesOn() throws {
        try writePipeline()
        let watch = try start()
        try makeImage(work + "/odd-source.png", seed: 41)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: work + "/odd-source.png"))
        // "in/odd\xff.png", made with the raw bytes (0xFF never occurs in UTF-8).
        XCTAssertTrue(Tool.createFile(in: input, rawName: Array("odd".utf8) + [0xFF] + Array(".png".utf8), bytes: bytes))
        XCTAssertTrue(watch.waitFor { $0.event == "itemFailed" && ($0.error ?? "").contains("not valid UTF-8") }, watch.stderr)
        // Still watching: a file after it is processed.
        try makeImage(input + "/after.png", seed: 42)
        XCTAssertTrue(watch.waitFor { $0.event == "itemFinished" && $0.input == self.input + "/after.png" }, watch.stderr)
        watch.terminate()
        XCTAssertEqual(watch.waitForExit(), 0, watch.stderr)
        let failures = watch.events.filter { $0.event == "itemFailed" }
        XCTAssertEqual(failures.count, 1, "reported once, not per write: \(failures)")
        XCTAssertTrue(failures.first?.error?.contains(input + "/odd\u{FFFD}.png") == true, "\(failures)")
    }

    func testBadSettleValuesAndAlbumJobsAreRefusedBeforeAnythingRuns() throws {
        try writePipeline()
        for bad in ["2", "0s", "-1s", "fast", "2h", "1e3s"] {
            let result = try Tool.medley(["watch", work + "/pipeline.yaml", "--settle", bad])
            XCTAssertEqual(result.status, 2, "--settle \(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--settle"), result.stderr)
        }
        _ = try pipeline("""
            version: 1
            jobs:
              - name: albums
                ingest: { from: [in], media: [music] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC, normalize: { loudness: -23LUFS, truePeak: -1dBTP, album: true } }
                export: { to: out, name: "{stem}.{ext}" }
            """, name: "albums.yaml")
        let result = try Tool.medley(["watch", work + "/albums.yaml"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/.medley"), "nothing was run: \(result.stderr)")
    }
}

/// `medley watch` started as a child process, its events read from the `--events` file by polling.
final class WatchProcess {
    struct Event {
        let event: String
        let input: String?
        var error: String? = nil
    }

    let process = Process()
    private let eventsPath: String
    private let errorPath: String
    private var consumed = 0
    private var partial = Data()
    private(set) var events: [Event] = []

    init(pipeline: String, events eventsPath: String, arguments: [String]) throws {
        self.eventsPath = eventsPath
        errorPath = eventsPath + ".stderr"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Tool.medley)
        process.arguments = ["watch", pipeline, "--events", eventsPath] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
    }

    var stderr: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    func count(_ name: String) -> Int { events.filter { $0.event == name }.count }

    /// Reads the events written since the last look.
    func poll() {
        guard let data = FileManager.default.contents(atPath: eventsPath), data.count > consumed else { return }
        partial.append(data[consumed...])
        consumed = data.count
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = partial[partial.startIndex..<newline]
            partial = Data(partial[partial.index(after: newline)...])
            guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
                  let name = object["event"] as? String else { continue }
            events.append(Event(event: name, input: object["input"] as? String, error: object["error"] as? String))
        }
    }

    /// Polls the events until `condition` holds for one of them (or for the whole, as the test's
    /// closure reads `events`); false when the process ended first or `timeout` (a hang guard) passed.
    func waitFor(timeout: Double = 90, _ condition: @escaping (Event) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var checked = 0
        while Date() < deadline {
            poll()
            while checked < events.count {
                if condition(events[checked]) { return true }
                checked += 1
            }
            // A condition over all events is asked again after each new event; with no new event, once more.
            if let last = events.last, checked == events.count, condition(last) { return true }
            if !process.isRunning {
                poll()
                return events.contains(where: condition)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func terminate() { if process.isRunning { process.terminate() } }

    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the process to end (bounded: killed after two minutes) and returns its exit status.
    func waitForExit() -> Int32 {
        let deadline = Date(timeIntervalSinceNow: 120)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill() }
        process.waitUntilExit()
        poll()
        return process.terminationStatus
    }
}
