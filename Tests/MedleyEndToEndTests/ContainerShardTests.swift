import Foundation
import XCTest

/// The Kubernetes Indexed Job contract, run with the image `deploy/container/build-image.sh`
/// makes: four containers at once, each with `JOB_COMPLETION_INDEX=i`, `MEDLEY_SHARD_COUNT=4`,
/// one shared volume at `/library` and the Job's own `command` (read from
/// `deploy/k8s/indexed-job.yaml`), so every medley is PID 1 in a PID namespace of its own; then
/// `medley merge` in a container, compared with an unsharded run of the same image over a copy
/// of the library: manifests field by field, outputs byte for byte, the playlist.
///
/// How podman runs here (root, in a Firecracker VM with hybrid cgroups v1 + v2 and without
/// CAP_SYS_RESOURCE): crun 1.8 refuses hybrid cgroups ("cgroups in hybrid mode not supported,
/// drop all controllers from cgroupv2"), so the runtime is runc with `--cgroup-manager
/// cgroupfs`; podman's default rlimits (nofile 1048576) are above this process's hard limits,
/// which the runtime cannot raise without CAP_SYS_RESOURCE ("setrlimit RLIMIT_NOFILE: Operation
/// not permitted"), so each container gets this process's own hard limits (nproc no higher than
/// the kernel's pid_max: conmon runs with that as its hard limit here, and a higher nproc fails
/// the same way); no network (`--network=none`). podman does run here, so nothing falls back to
/// `unshare` + chroot and nothing is skipped. The image store is root's default one (overlay):
/// the Debian root is a base image made once per package list (2–3 min the first time), and the
/// test's image is rebuilt on it only when the binary changes (`--if-changed` compares the hash
/// of the binary, the package list and the script in its label).
final class ContainerShardTests: EndToEndCase {
    static let image = "localhost/medley-test:latest"
    static let shards = 4
    /// Names this test's containers: medley-e2e-RUN-shard-1 … -shard-4, -merge, -whole.
    private let run = UUID().uuidString.prefix(8).lowercased()
    private var names: [String] { (1...Self.shards).map { "shard-\($0)" } + ["merge", "whole"] }

    override func tearDownWithError() throws {
        // Containers run with --rm; any a failure left behind are removed here.
        for name in names { _ = try? Tool.run("/usr/bin/podman", ["rm", "--force", "--ignore", "medley-e2e-\(run)-\(name)"]) }
        try super.tearDownWithError()
    }

    /// Global podman flags and `run` flags every container of this test gets.
    private static let runtimeFlags = ["--runtime", "runc", "--cgroup-manager", "cgroupfs"]
    private static func limitFlags() -> [String] {
        // "Max open files            20000                20000                files" in /proc/self/limits
        let limits = (try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8)) ?? ""
        func hard(_ name: String, _ fallback: UInt64) -> UInt64 {
            guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return fallback }
            let fields = line.dropFirst(name.count).split(separator: " ")
            return fields.count >= 2 ? UInt64(fields[1]) ?? fallback : fallback  // "unlimited": the fallback
        }
        let pidMax = (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8))
            .flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 32768
        let nofile = min(hard("Max open files", 1 << 20), 1 << 20), nproc = min(hard("Max processes", pidMax), pidMax)
        return ["--ulimit", "nofile=\(nofile):\(nofile)", "--ulimit", "nproc=\(nproc):\(nproc)"]
    }

    /// `podman run --rm` of the image with the volume at /library; `command` as the Job gives it.
    private func container(_ name: String, library: String, environment: [String: String] = [:],
                           command: [String]) throws -> Tool.Result {
        let unique = "medley-e2e-\(run)-\(name)"
        var arguments = Self.runtimeFlags + ["run", "--rm", "--name", unique, "--hostname", name, "--network=none",
                                             "--timeout", "900", "--volume", "\(library):/library"] + Self.limitFlags()
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["--env", "\(key)=\(value)"] }
        return try Tool.run("/usr/bin/podman", arguments + [Self.image] + command)
    }

    /// A Job's `command:` from deploy/k8s/NAME (a flow sequence, which is JSON).
    private func jobCommand(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: Tool.packageRoot + "/deploy/k8s/" + name, encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("command:") })
        let start = try XCTUnwrap(line.firstIndex(of: "[")), end = try XCTUnwrap(line.lastIndex(of: "]"))
        let command = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line[start...end].utf8)) as? [String])
        XCTAssertTrue(text.contains("image: localhost/medley:latest"), "the Job names the image build-image.sh makes")
        return command
    }

    /// FNV-1a of the relative path, modulo the shard count, counted from 1: the share the README
    /// documents, computed here independently of Medley's code.
    private func owner(_ relativePath: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in relativePath.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(Self.shards)) + 1
    }

    private func manifest(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    /// A manifest value as sorted-key JSON text, so two records compare field by field.
    private func canonical(_ value: Any?) throws -> String {
        guard let value else { return "absent" }
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    private func makeLibrary(_ library: String) throws -> (photos: [String], music: [String]) {
        let fm = FileManager.default
        for folder in ["in/photos/2024", "in/music/Side B", "out"] {
            try fm.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
        }
        var photos: [String] = [], music: [String] = []
        for i in 0..<14 {
            let name = (i % 3 == 0 ? "2024/" : "") + "photo \(i).png"
            let from = "rgb(\(i * 17),\(255 - i * 13),\(90 + i * 5))", to = "rgb(\(250 - i * 11),\(i * 7),\(200 - i * 9))"
            let made = try Tool.run("convert", ["-size", "40x30", "gradient:\(from)-\(to)", library + "/in/photos/" + name])
            XCTAssertEqual(made.status, 0, made.stderr)
            photos.append(name)
        }
        // Bad input: a PNG signature and garbage. It fails in whichever shard owns it, and only there.
        try Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + Array(repeating: 0x41, count: 64))
            .write(to: URL(fileURLWithPath: library + "/in/photos/broken.png"))
        photos.append("broken.png")
        for i in 0..<8 {
            let name = (i % 2 == 0 ? "Side B/" : "") + "tone \(i).wav"
            let made = try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", library + "/in/music/" + name,
                                            "synth", "0.4", "sine", "\(220 + 55 * i)", "gain", "-6"])
            XCTAssertEqual(made.status, 0, made.stderr)
            music.append(name)
        }
        try """
            version: 1
            jobs:
              - name: photos
                ingest: { from: [in/photos] }
                filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
                export: { to: out/photos, format: png, name: "{relpath}/{stem}.png" }
              - name: music
                ingest: { from: [in/music], media: [anyAudio] }
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                tag: { set: { artist: "Medley Tones", title: "{stem}" } }
                export: { to: out/music, name: "{relpath}/{stem}.flac" }
                playlist: { to: out/music/tones.m3u8 }
            """.write(toFile: library + "/pipeline.yaml", atomically: true, encoding: .utf8)
        return (photos.sorted(), music.sorted())
    }

    func testFourPodsOfTheIndexedJobMergeIntoTheUnshardedRun() throws {
        let podman = "/usr/bin/podman"
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: podman), "scripts/setup.sh installs podman")
        let built = try Tool.run(Tool.packageRoot + "/deploy/container/build-image.sh",
                                 ["--binary", Tool.medley, "--tag", Self.image, "--if-changed"])
        XCTAssertEqual(built.status, 0, built.stderr)
        guard built.status == 0 else { return }

        let library = work + "/library", whole = work + "/whole"
        let (photos, music) = try makeLibrary(library)
        // The unsharded run gets a copy (times kept, so file properties agree).
        XCTAssertEqual(try Tool.run("cp", ["-a", library, whole]).status, 0)

        // The Job: four pods at once, every one with the Job's command and its index.
        let command = try jobCommand("indexed-job.yaml")
        XCTAssertEqual(command.first, "medley")
        XCTAssertTrue(command.contains("--failed-items-ok"), "\(command)")
        XCTAssertTrue(command.contains("/library/pipeline.yaml"), "\(command)")
        final class Pods: @unchecked Sendable {  // guarded by `lock`
            let lock = NSLock()
            var results = [Tool.Result?](repeating: nil, count: ContainerShardTests.shards)
        }
        let started = Pods(), group = DispatchGroup()
        for index in 0..<Self.shards {
            DispatchQueue.global().async(group: group) {
                let result = try? self.container("shard-\(index + 1)", library: library,
                                                  environment: ["JOB_COMPLETION_INDEX": "\(index)", "MEDLEY_SHARD_COUNT": "\(Self.shards)"],
                                                  command: command)
                started.lock.lock(); started.results[index] = result; started.lock.unlock()
            }
        }
        group.wait()
        let pods = started.results
        let brokenShard = owner("broken.png")
        for (index, pod) in pods.enumerated() {
            let pod = try XCTUnwrap(pod, "podman could not be started for index \(index)")
            // The Job's --failed-items-ok: every pod that went through its items succeeds (a pod failing
            // for a corrupt file would be retried to no end); only the shard owning it names it.
            XCTAssertEqual(pod.status, 0, "pod \(index): \(pod.stderr)")
            XCTAssertEqual(pod.stderr.contains("broken.png"), index + 1 == brokenShard, "pod \(index): \(pod.stderr)")
        }

        // Every medley was PID 1 of its own PID namespace: each shard's lock names pid 1 and its pod.
        for job in ["photos", "music"] {
            let medley = library + "/out/\(job)/.medley"
            for k in 1...Self.shards {
                let holder = try String(contentsOfFile: medley + "/lock-shard-\(k)-of-\(Self.shards)", encoding: .utf8)
                XCTAssertEqual(holder, "1 shard-\(k) run --shard \(k)/\(Self.shards)\n", "\(job) shard \(k)")
                // Each shard listed exactly the items FNV-1a gives it.
                let items = try manifest(medley + "/manifest-\(job)-shard-\(k)-of-\(Self.shards).jsonl").compactMap { $0["item"] as? String }
                XCTAssertEqual(items.sorted(), (job == "photos" ? photos : music).filter { owner($0) == k }, "\(job) shard \(k)")
            }
        }

        // The merge, as deploy/k8s/merge-job.yaml runs it, in a container too.
        let mergeCommand = try jobCommand("merge-job.yaml")
        XCTAssertEqual(mergeCommand, ["medley", "merge", "/library/pipeline.yaml"])
        let merged = try container("merge", library: library, command: mergeCommand)
        XCTAssertEqual(merged.status, 0, merged.stderr)
        // The unsharded run: the same image, one container, over the copy.
        let unsharded = try container("whole", library: whole, command: ["medley", "run", "/library/pipeline.yaml"])
        XCTAssertEqual(unsharded.status, 1, "the broken file fails: \(unsharded.stderr)")
        XCTAssertTrue(unsharded.stderr.contains("broken.png"), unsharded.stderr)

        for job in ["photos", "music"] {
            let name = "out/\(job)/.medley/manifest-\(job).jsonl"
            let shardedRecords = try manifest(library + "/" + name), wholeRecords = try manifest(whole + "/" + name)
            // The merge sorts by item; an unsharded run lists items as they finish.
            XCTAssertEqual(shardedRecords.compactMap { $0["item"] as? String }, job == "photos" ? photos : music)
            XCTAssertEqual(wholeRecords.compactMap { $0["item"] as? String }.sorted(), job == "photos" ? photos : music)
            let wholeByItem = Dictionary(wholeRecords.map { ($0["item"] as? String ?? "", $0) }) { first, _ in first }
            for a in shardedRecords {
                let b = try XCTUnwrap(wholeByItem[a["item"] as? String ?? ""])
                XCTAssertEqual(Set(a.keys), Set(b.keys), "\(job) \(a["item"] ?? "")")
                // `finished` is when each item finished: the one field two runs of the same items never share.
                for key in a.keys.sorted() where key != "finished" {
                    XCTAssertEqual(try canonical(a[key]), try canonical(b[key]), "\(job) \(a["item"] ?? ""): \(key)")
                }
                // The persistentID is XXH3-64 of the input's bytes, as xxhsum computes it.
                let item = try XCTUnwrap(a["item"] as? String)
                let input = library + "/in/\(job)/" + item
                XCTAssertEqual(a["input"] as? String, "/library/in/\(job)/" + item)
                if item == "broken.png" {
                    XCTAssertEqual(a["status"] as? String, "failed")
                    continue
                }
                XCTAssertEqual(a["status"] as? String, "succeeded", item)
                // xxhsum -H3 prints "XXH3 (PATH) = HEX".
                let xxh = try Tool.run("xxhsum", ["-H3", input]).stdout.components(separatedBy: " = ").last?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                XCTAssertEqual((a["persistentID"] as? String)?.lowercased(), xxh, item)
            }
        }
        // Outputs: the same files, byte for byte; the playlist too.
        // (Medley's own files, each export root's .medley/, are compared above through the manifests.)
        func outputFiles(_ root: String) -> [String] {
            Tool.files(under: root).filter { !$0.split(separator: "/").contains(".medley") }
        }
        let outputs = outputFiles(library + "/out")
        XCTAssertEqual(outputs, outputFiles(whole + "/out"))
        XCTAssertEqual(outputs.count, (photos.count - 1) + music.count + 1, "every good item, and the playlist: \(outputs)")
        for file in outputs {
            XCTAssertEqual(FileManager.default.contents(atPath: library + "/out/" + file),
                           FileManager.default.contents(atPath: whole + "/out/" + file), file)
        }
        // FLAC is lossless: every output decodes (sox) to the very samples of its WAV.
        for name in music {
            let stem = String(name.dropLast(".wav".count))
            let source = try Tool.run("sox", [library + "/in/music/" + name, "-t", "raw", "-"])
            let output = try Tool.run("sox", [library + "/out/music/" + stem + ".flac", "-t", "raw", "-"])
            XCTAssertEqual(output.status, 0, output.stderr)
            XCTAssertFalse(source.data.isEmpty, name)
            XCTAssertEqual(output.data, source.data, name)
        }
        let playlist = try String(contentsOfFile: library + "/out/music/tones.m3u8", encoding: .utf8)
        XCTAssertEqual(playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.count, music.count, playlist)
        XCTAssertTrue(playlist.contains("#EXTINF:0,Medley Tones - tone 3\n"), playlist)
        // No temporary (nor a run's lock) left behind by any pod: .medley/tmp is gone or empty.
        for job in ["photos", "music"] {
            let tmp = library + "/out/\(job)/.medley/tmp"
            XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [], [], tmp)
        }
    }
}
