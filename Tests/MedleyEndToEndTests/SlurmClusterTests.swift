import Foundation
import XCTest

/// Medley on a real Slurm cluster: a throw-away single-node cluster (munged, slurmctld, slurmd
/// from Debian's slurm-wlm, started by deploy/slurm/single-node-cluster.sh into the test's scratch
/// folder and stopped in tearDown) runs deploy/slurm/medley-array.sbatch as a 4-task array and
/// deploy/slurm/medley-merge.sbatch after it (`--dependency=afterok`). Expected values come from
/// an unsharded run of the same pipeline into another export root, compared file by file and
/// manifest record by record, and from the FNV-1a share formula written out below. Jobs are
/// awaited by polling `scontrol show job` (an overall timeout only guards against hangs); the
/// task cancelled half-way (and the one whose medley is killed half-way) is stopped once its
/// events, read through a named pipe of one page, show items finished — the pipe holds the task
/// back, so "half-way" does not depend on speed.
final class SlurmClusterTests: EndToEndCase {
    private var cluster: String!
    private var environment: [String: String] = [:]
    private static let deploy = Tool.packageRoot + "/deploy/slurm"
    /// Only guards against a hang; every wait ends on progress.
    private static let hangTimeout: TimeInterval = 150

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard getuid() == 0 else {
            throw XCTSkip("the single-node Slurm cluster runs its daemons as root (SlurmUser=root); run the tests as root, as CI does")
        }
        for tool in ["sbatch", "scontrol", "scancel", "slurmctld", "slurmd", "munged", "mungekey"] {
            XCTAssertEqual(try Tool.run("sh", ["-c", "command -v \(tool)"]).status, 0,
                           "\(tool) is missing: scripts/setup.sh installs slurm-wlm and munge")
        }
        cluster = work + "/cluster"
        let folder = cluster!
        addTeardownBlock {
            // Always, even after a failed start: stop is safe on a half-started or stopped cluster.
            let stopped = try? Tool.run(Self.deploy + "/single-node-cluster.sh", ["stop", folder])
            XCTAssertEqual(stopped?.status, 0, stopped?.stderr ?? "stop did not run")
        }
        let started = try Tool.run(Self.deploy + "/single-node-cluster.sh", ["start", cluster])
        XCTAssertEqual(started.status, 0, started.stderr)
        guard started.status == 0 else { throw NSError(domain: "single-node-cluster.sh start failed: \(started.stderr)", code: 1) }
        environment = ["SLURM_CONF": cluster + "/slurm.conf", "MEDLEY": Tool.medley]
        try FileManager.default.createDirectory(atPath: work + "/logs", withIntermediateDirectories: true)
    }

    // MARK: - The input tree and the pipeline

    /// 25 copies of each of four small fixture images (PNG 8-bit RGBA, 8-bit gray and 16-bit RGB,
    /// WebP) in groups, one broken JPEG, and six audio files (so the music job writes a playlist).
    private func makeInputs() throws -> (photos: [String], music: [String], broken: String) {
        let fm = FileManager.default
        var photos: [String] = []
        let images = ["photo.webp", "alpha.png", "gray.png", "deep16.png"]
        for copy in 0..<25 {
            let group = "g\(copy % 5)"
            try fm.createDirectory(atPath: work + "/in/photos/" + group, withIntermediateDirectories: true)
            for image in images {
                let stem = (image as NSString).deletingPathExtension, ext = (image as NSString).pathExtension
                let relative = "\(group)/\(stem)-\(copy).\(ext)"
                try fm.copyItem(atPath: Tool.fixtures + "/images/" + image, toPath: work + "/in/photos/" + relative)
                photos.append(relative)
            }
        }
        try fm.createDirectory(atPath: work + "/in/photos/damaged", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Tool.fixtures + "/broken/truncated.jpg", toPath: work + "/in/photos/damaged/truncated.jpg")
        photos.append("damaged/truncated.jpg")
        try fm.createDirectory(atPath: work + "/in/music", withIntermediateDirectories: true)
        var music: [String] = []
        for file in ["incoming/ambient-01.flac", "incoming/ambient-02.ogg", "incoming/rock-01.mp3", "incoming/show-ep1.m4a",
                     "incoming/untagged.flac", "compilation/various-03.mp3"] {
            let name = (file as NSString).lastPathComponent
            try fm.copyItem(atPath: Tool.fixtures + "/music/" + file, toPath: work + "/in/music/" + name)
            music.append(name)
        }
        return (photos, music, "damaged/truncated.jpg")
    }

    /// The pipeline writing into export root `to` (a folder below the scratch folder).
    private func pipelineFile(to root: String) throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: photos
                ingest: { from: [\(work!)/in/photos] }
                filters: [ CIPhotoEffectMono ]
                export: { to: \(work!)/\(root), format: png, name: "photos/{relpath}/{stem}.png" }
              - name: music
                ingest: { from: [\(work!)/in/music] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100 }
                export: { to: \(work!)/\(root), name: "music/{stem}.m4a" }
                playlist: { to: \(work!)/\(root)/music.m3u8 }
            """, name: root + ".yaml")
    }

    /// The shard (from 1) of 4 that takes an item: FNV-1a 64 of its path below the ingest root, mod 4.
    private func shard(of relative: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relative.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % 4) + 1
    }

    /// Shard k's items of both jobs: (job, path below its ingest root, absolute input path).
    private func share(_ k: Int, photos: [String], music: [String]) -> [(job: String, item: String, input: String)] {
        let mine: [(job: String, item: String, input: String)] = photos.filter { shard(of: $0) == k }.map { ("photos", $0, work + "/in/photos/" + $0) }
        let tracks: [(job: String, item: String, input: String)] = music.filter { shard(of: $0) == k }.map { ("music", $0, work + "/in/music/" + $0) }
        return mine + tracks
    }

    // MARK: - Slurm

    @discardableResult
    private func slurm(_ tool: String, _ arguments: [String]) throws -> Tool.Result {
        try Tool.run(tool, arguments, in: work + "/logs", environment: environment)
    }

    /// `sbatch --parsable …` from the logs folder (the jobs' working directory); the job id.
    private func submit(_ arguments: [String]) throws -> String {
        let result = try slurm("sbatch", ["--parsable", "--chdir=\(work!)/logs"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        let id = String(result.stdout.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else { throw NSError(domain: "sbatch: no job id in '\(result.stdout)' \(result.stderr)", code: 1) }
        return id
    }

    private struct JobRecord { let task: String; let jobId: String; let state: String; let exitCode: String }

    /// `scontrol show job -o ID`: one record per job, or per array task (a pending rest of an
    /// array is one record with a range of tasks).
    private func records(_ id: String) throws -> [JobRecord] {
        let result = try slurm("scontrol", ["show", "job", "-o", id])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map { line in
            var fields: [String: String] = [:]
            for token in line.split(separator: " ") {
                let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            return JobRecord(task: fields["ArrayTaskId"] ?? fields["JobId"] ?? "?", jobId: fields["JobId"] ?? "?", state: fields["JobState"] ?? "?",
                             exitCode: fields["ExitCode"] ?? "?")
        }
    }

    private static let ended: Set<String> = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
                                             "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"]

    /// Polls until every task of the job has ended; its records by task (or job id).
    private func waitForJob(_ id: String) throws -> [String: JobRecord] {
        let deadline = Date().addingTimeInterval(Self.hangTimeout)
        while true {
            let now = try records(id)
            if !now.isEmpty, now.allSatisfy({ Self.ended.contains($0.state) }) {
                return Dictionary(now.map { ($0.task, $0) }) { first, _ in first }
            }
            if Date() > deadline {
                XCTFail("job \(id) has not ended after \(Int(Self.hangTimeout)) s: \(now.map { "\($0.task) \($0.state)" })\n" + logs())
                return Dictionary(now.map { ($0.task, $0) }) { first, _ in first }
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
    }

    /// Every job log and the daemons' log tails, for a failure message.
    private func logs() -> String {
        var text = ""
        for name in (try? FileManager.default.contentsOfDirectory(atPath: work + "/logs"))?.sorted() ?? [] where name.hasSuffix(".log") {
            text += "--- \(name)\n" + ((try? String(contentsOfFile: work + "/logs/" + name, encoding: .utf8)) ?? "") + "\n"
        }
        for daemon in ["slurmctld", "slurmd"] {
            let log = (try? String(contentsOfFile: cluster + "/log/\(daemon).log", encoding: .utf8)) ?? ""
            text += "--- \(daemon).log (end)\n" + log.split(separator: "\n").suffix(15).joined(separator: "\n") + "\n"
        }
        return text
    }

    private func events(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    private func inputs(_ events: [[String: Any]], _ name: String) -> [String] {
        events.filter { $0["event"] as? String == name }.compactMap { $0["input"] as? String }
    }

    // MARK: - Comparing with the unsharded run

    /// Every file below `root` (outside .medley) with its bytes.
    private func tree(_ root: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in Tool.files(under: root) { files[name] = FileManager.default.contents(atPath: root + "/" + name) }
        return files
    }

    /// The job's manifest below `root` as records by item, with the root's path made neutral and
    /// the fields that time the run (elapsed milliseconds, dates) left out.
    private func manifest(_ root: String, job: String) throws -> [String: NSDictionary] {
        let text = try String(contentsOfFile: root + "/.medley/manifest-\(job).jsonl", encoding: .utf8)
        var records: [String: NSDictionary] = [:]
        for line in text.split(separator: "\n") {
            // A failure's reason names the output, never the run's temporary file (by its random run id).
            XCTAssertFalse(line.contains("/.medley/tmp/"), String(line))
            let neutral = line.replacingOccurrences(of: root + "/", with: "<root>/")
            var record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(neutral.utf8)) as? [String: Any])
            for key in Self.timingKeys { record.removeValue(forKey: key) }
            let item = try XCTUnwrap(record["item"] as? String)
            XCTAssertNil(records[item], "\(item) twice in \(root)'s \(job) manifest")
            records[item] = record as NSDictionary
        }
        return records
    }

    private static let timingKeys: Set<String> = ["ms", "milliseconds", "seconds", "time", "started", "finished", "date", "at"]

    private func assertSameAsUnsharded(_ root: String, _ whole: String, photos: [String], music: [String],
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let sharded = tree(work + "/" + root), unsharded = tree(work + "/" + whole)
        XCTAssertEqual(Set(sharded.keys), Set(unsharded.keys), "the same files", file: file, line: line)
        for (name, bytes) in unsharded where sharded[name] != bytes {
            XCTFail("\(root)/\(name) differs from the unsharded run's", file: file, line: line)
        }
        XCTAssertTrue(unsharded.keys.contains("music.m3u8"), "the playlist", file: file, line: line)
        for (job, items) in [("photos", photos), ("music", music)] {
            let merged = try manifest(work + "/" + root, job: job), alone = try manifest(work + "/" + whole, job: job)
            XCTAssertEqual(Set(merged.keys), Set(items), "\(job): every item once", file: file, line: line)
            XCTAssertEqual(Set(alone.keys), Set(items), file: file, line: line)
            for item in items where merged[item] != alone[item] {
                XCTFail("\(job) \(item): merged \(merged[item].map { "\($0)" } ?? "nil") ≠ unsharded \(alone[item].map { "\($0)" } ?? "nil")",
                        file: file, line: line)
            }
        }
    }

    // MARK: - The test

    func testArrayMergeAndAResubmittedCancelledTaskEqualAnUnshardedRun() throws {
        let (photos, music, broken) = try makeInputs()
        let sharded = try pipelineFile(to: "out"), whole = try pipelineFile(to: "whole"), again = try pipelineFile(to: "again")
        let array = Self.deploy + "/medley-array.sbatch", merge = Self.deploy + "/medley-merge.sbatch"

        // The reference: one unsharded run. The broken JPEG fails alone (exit 1).
        let reference = try Tool.medley(["run", whole, "--quiet"])
        XCTAssertEqual(reference.status, 1, reference.stderr)
        XCTAssertTrue(reference.stderr.contains(work + "/in/photos/" + broken), reference.stderr)

        // Round 1: a 4-task array (one CPU each: two tasks at a time here), the merge after it.
        let first = try submit(["--array=0-3", "--cpus-per-task=1", array, sharded])
        let firstMerge = try submit(["--dependency=afterok:\(first)", merge, sharded])
        let tasks = try waitForJob(first)
        XCTAssertEqual(Set(tasks.keys), ["0", "1", "2", "3"], logs())
        for (task, record) in tasks {
            XCTAssertEqual(record.state, "COMPLETED", "task \(task)\n" + logs())
            XCTAssertEqual(record.exitCode, "0:0", "task \(task)")
        }
        // The task holding the broken file: medley exited 1, the task 0, the failure in its events.
        let brokenTask = shard(of: broken) - 1
        let brokenLog = try String(contentsOfFile: work + "/logs/medley-\(first)_\(brokenTask).log", encoding: .utf8)
        XCTAssertTrue(brokenLog.contains("medley exited 1: some items failed"), brokenLog)
        let brokenEvents = try events(work + "/logs/medley-\(first)_\(brokenTask).events.jsonl")
        XCTAssertEqual(inputs(brokenEvents, "itemFailed"), [work + "/in/photos/" + broken])
        // Each task took exactly its share (the formula), and the shares cover the whole set.
        for task in 0..<4 {
            let log = try events(work + "/logs/medley-\(first)_\(task).events.jsonl")
            let done = Set(inputs(log, "itemFinished") + inputs(log, "itemFailed"))
            XCTAssertEqual(done, Set(share(task + 1, photos: photos, music: music).map(\.input)), "task \(task)'s items")
        }
        let merged = try waitForJob(firstMerge)
        XCTAssertEqual(merged[firstMerge]?.state, "COMPLETED", logs())
        try assertSameAsUnsharded("out", "whole", photos: photos, music: music)

        // Round 2, a fresh export root: the two tasks with the biggest shares (not holding the
        // broken file) write their events into named pipes of one page that the test reads; once
        // 3 of its items have finished, the first is cancelled (scancel: SIGTERM, the items in
        // flight finish) and the second's medley is killed (SIGKILL, as the kernel's OOM killer
        // would: an item in flight is cut off). The array is held until the pipes exist.
        let shares: [Int] = (1...4).map { self.share($0, photos: photos, music: music).count }
        // The two biggest shares; the lower task is the one cancelled, as Slurm starts array tasks
        // in order: on a one-CPU node it runs first, and is dealt with before the other starts.
        let chosen = (1...4).filter { $0 != shard(of: broken) }.sorted { shares[$0 - 1] > shares[$1 - 1] }.prefix(2).sorted()
        let victim = chosen.first ?? 1, killed = chosen.last ?? 2
        let victimItems = self.share(victim, photos: photos, music: music)
        let share = victimItems.count, task = victim - 1
        let killedItems = self.share(killed, photos: photos, music: music)
        let task2 = killed - 1
        XCTAssertGreaterThanOrEqual(killedItems.count, 20, "the killed task needs a share well beyond a pipe page of events")
        XCTAssertGreaterThanOrEqual(share, 24, "the cancelled task needs a share well beyond a pipe page of events")
        let second = try submit(["--array=0-3", "--cpus-per-task=1", "--hold", array, again])
        let secondMerge = try submit(["--dependency=afterok:\(second)", merge, again])
        let fifo = work + "/logs/medley-\(second)_\(task).events.jsonl"
        XCTAssertEqual(try Tool.run("mkfifo", [fifo]).status, 0)
        let reader = PipeEvents(fifo, holdingAfter: 3)
        let fifo2 = work + "/logs/medley-\(second)_\(task2).events.jsonl"
        XCTAssertEqual(try Tool.run("mkfifo", [fifo2]).status, 0)
        let reader2 = PipeEvents(fifo2, holdingAfter: 3)
        try slurm("scontrol", ["release", second])
        let reachedHalfWay = reader.wait(forFinished: 3, timeout: Self.hangTimeout)
        XCTAssertTrue(reachedHalfWay, "task \(task) never finished 3 items\n" + logs())
        XCTAssertEqual(try slurm("scancel", ["\(second)_\(task)"]).status, 0)
        reader.release()
        if !reader.waitForEnd(timeout: Self.hangTimeout) {
            reader.abandon()
            XCTFail("task \(task)'s medley kept its events pipe open after scancel\n" + logs())
        }
        XCTAssertTrue(reader2.wait(forFinished: 3, timeout: Self.hangTimeout), "task \(task2) never finished 3 items\n" + logs())
        // The task's medley, among the processes Slurm tracks for it (listpids takes the task's own job id).
        let taskJob = try records(second).first { $0.task == "\(task2)" }?.jobId ?? "?"
        let pids = try slurm("scontrol", ["listpids", taskJob])
        let medleys = pids.stdout.split(separator: "\n").compactMap { row -> String? in
            guard let pid = row.split(separator: " ").first.map(String.init), pid.allSatisfy(\.isNumber),
                  let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.first == Tool.medley && arguments.dropFirst().first == "run" ? pid : nil
        }
        XCTAssertEqual(medleys.count, 1, pids.stdout + pids.stderr)
        for pid in medleys { XCTAssertEqual(try Tool.run("kill", ["-KILL", pid]).status, 0) }
        reader2.release()
        if !reader2.waitForEnd(timeout: Self.hangTimeout) {
            reader2.abandon()
            XCTFail("task \(task2)'s events pipe stayed open after its medley was killed\n" + logs())
        }
        let secondTasks = try waitForJob(second)
        XCTAssertEqual(secondTasks["\(task)"]?.state, "CANCELLED", logs())
        // The killed medley's task fails with its status (128 + 9).
        XCTAssertEqual(secondTasks["\(task2)"]?.state, "FAILED", logs())
        XCTAssertEqual(secondTasks["\(task2)"]?.exitCode, "137:0")
        for other in 0..<4 where other != task && other != task2 { XCTAssertEqual(secondTasks["\(other)"]?.state, "COMPLETED", "task \(other)\n" + logs()) }
        // The merge waiting on the whole array can never run: Slurm cancels it (--kill-on-invalid-dep).
        XCTAssertEqual(try waitForJob(secondMerge)[secondMerge]?.state, "CANCELLED", logs())
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/again/.medley/manifest-photos.jsonl"), "no merge ran")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/logs/medley-merge-\(secondMerge).log"), "no merge ran")

        let cancelled = reader.lines
        let finishedBefore = Set(inputs(cancelled, "itemFinished"))
        XCTAssertGreaterThanOrEqual(finishedBefore.count, 3)
        XCTAssertLessThan(finishedBefore.count, share, "cancelled half-way, not after its last item")
        XCTAssertTrue(cancelled.allSatisfy { $0["event"] as? String != "itemFailed" }, "\(cancelled)")
        // What the cancelled task did not finish is not in its export root, whole or in part.
        for (job, item, input) in victimItems where !finishedBefore.contains(input) {
            let stem = ((item as NSString).lastPathComponent as NSString).deletingPathExtension
            let output = job == "photos" ? "photos/" + ((item as NSString).deletingLastPathComponent) + "/\(stem).png" : "music/\(stem).m4a"
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/again/" + output), "\(output): its item did not finish")
        }

        // Resubmitting just that task without the shard count stops at once (exit 2): a 1-task
        // array says nothing about the shard count.
        let unnamed = try submit(["--array=\(task)", "--cpus-per-task=1", array, again])
        let refused = try waitForJob(unnamed)
        XCTAssertEqual(refused["\(task)"]?.state, "FAILED")
        XCTAssertEqual(refused["\(task)"]?.exitCode, "2:0")
        let refusal = (try? String(contentsOfFile: work + "/logs/medley-\(unnamed)_\(task).log", encoding: .utf8)) ?? ""
        XCTAssertTrue(refusal.contains("must name the shard count"), refusal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/logs/medley-\(unnamed)_\(task).events.jsonl"), "nothing was run")

        // The killed task: whatever had not started is not in the export root either.
        let killedRun = reader2.lines
        let finishedBefore2 = Set(inputs(killedRun, "itemFinished")), started2 = Set(inputs(killedRun, "itemStarted"))
        XCTAssertGreaterThanOrEqual(finishedBefore2.count, 3)
        XCTAssertLessThan(finishedBefore2.count, killedItems.count, "killed half-way, not after its last item")
        for (job, item, input) in killedItems where !started2.contains(input) {
            let stem = ((item as NSString).lastPathComponent as NSString).deletingPathExtension
            let output = job == "photos" ? "photos/" + ((item as NSString).deletingLastPathComponent) + "/\(stem).png" : "music/\(stem).m4a"
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/again/" + output), "\(output): its item never started")
        }

        // With MEDLEY_SHARDS=4, both tasks in one resubmission: only unfinished items are redone.
        let resubmitted = try submit(["--array=\(task),\(task2)", "--cpus-per-task=1", "--export=ALL,MEDLEY_SHARDS=4", array, again])
        let lastMerge = try submit(["--dependency=afterok:\(resubmitted)", merge, again])
        let resubmittedTasks = try waitForJob(resubmitted)
        XCTAssertEqual(resubmittedTasks["\(task)"]?.state, "COMPLETED", logs())
        XCTAssertEqual(resubmittedTasks["\(task2)"]?.state, "COMPLETED", logs())
        XCTAssertEqual(try waitForJob(lastMerge)[lastMerge]?.state, "COMPLETED", logs())
        let redo = try events(work + "/logs/medley-\(resubmitted)_\(task).events.jsonl")
        let everything = Set(victimItems.map(\.input))
        XCTAssertEqual(Set(inputs(redo, "itemSkipped")), finishedBefore, "finished before the cancel: skipped")
        XCTAssertEqual(Set(inputs(redo, "itemFinished")), everything.subtracting(finishedBefore), "the rest: redone")
        XCTAssertEqual(inputs(redo, "itemFinished").count, share - finishedBefore.count)
        XCTAssertEqual(inputs(redo, "itemFailed"), [])
        // The killed task: everything it finished is skipped, plus at most the items it had in
        // flight (finished on disk, killed before their event was read); all the rest is redone.
        let redo2 = try events(work + "/logs/medley-\(resubmitted)_\(task2).events.jsonl")
        let skipped2 = Set(inputs(redo2, "itemSkipped")), redone2 = inputs(redo2, "itemFinished")
        XCTAssertTrue(finishedBefore2.isSubset(of: skipped2), "finished before the kill: skipped")
        XCTAssertTrue(skipped2.subtracting(finishedBefore2).isSubset(of: started2.subtracting(finishedBefore2)),
                      "skipped beyond those: only items in flight when killed")
        XCTAssertEqual(Set(redone2), Set(killedItems.map(\.input)).subtracting(skipped2), "the rest: redone")
        XCTAssertEqual(redone2.count, killedItems.count - skipped2.count)
        XCTAssertEqual(inputs(redo2, "itemFailed"), [])
        // Nothing half-written is left: no temporary file, and every output equals the unsharded run's.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: work + "/again/.medley/tmp")) ?? []
        XCTAssertEqual(leftovers, [], "temporary files left in .medley/tmp")
        try assertSameAsUnsharded("again", "whole", photos: photos, music: music)
        print("SlurmClusterTests: shares \(shares); task \(task): \(finishedBefore.count) finished before scancel, \(share - finishedBefore.count) redone; "
              + "task \(task2): \(finishedBefore2.count) finished, \(started2.subtracting(finishedBefore2).count) in flight when killed, \(redone2.count) redone")
    }
}

/// Reads a task's events from a named pipe as they happen. The pipe is shrunk to one page, so
/// when the reader holds back (after `wait(forFinished:)`) the writer can get at most a page
/// ahead and then blocks: the task stays where the test stopped it, whatever the machine's speed.
private final class PipeEvents: @unchecked Sendable {
    // @unchecked: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var collected: [[String: Any]] = []
    private var holdAt: Int?
    private var ended = false
    private let path: String

    /// Reading holds back once `count` items have finished, until `release()`.
    init(_ path: String, holdingAfter count: Int) {
        self.path = path
        holdAt = count
        Thread.detachNewThread { [self] in self.read() }
    }

    private func read() {
        // Blocks until the task's medley opens the pipe for writing.
        guard let handle = FileHandle(forReadingAtPath: path) else { finish(); return }
        // F_SETPIPE_SZ (Linux): the smallest pipe the kernel allows, one page.
        _ = fcntl(handle.fileDescriptor, 1031, 4096)
        var buffer = Data()
        while true {
            condition.lock()
            while let limit = holdAt, finishedCount >= limit { condition.wait() }
            condition.unlock()
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                condition.lock()
                collected.append(event)
                condition.broadcast()
                condition.unlock()
            }
        }
        try? handle.close()
        finish()
    }

    private var finishedCount: Int { collected.filter { $0["event"] as? String == "itemFinished" }.count }

    private func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// True once `count` items have finished (false if the stream ended first or the hang
    /// timeout passed).
    func wait(forFinished count: Int, timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while finishedCount < count && !ended {
            if !condition.wait(until: deadline) { return false }
        }
        return finishedCount >= count
    }

    /// Reads on to the end of the stream.
    func release() {
        condition.lock()
        holdAt = nil
        condition.broadcast()
        condition.unlock()
    }

    func waitForEnd(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while !ended { if !condition.wait(until: deadline) { return false } }
        return true
    }

    /// Unblocks a reader still waiting for a writer (the task never opened the pipe).
    func abandon() {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK)
        if descriptor >= 0 { close(descriptor) }
    }

    var lines: [[String: Any]] {
        condition.lock()
        defer { condition.unlock() }
        return collected
    }
}
