import Foundation
import MedleyTestSupport
import XCTest

/// Runs programs and finds files for the end-to-end tests. Expected values in these tests come
/// from ImageMagick (`convert`, `identify`), the vips command line, exiftool and the formulas
/// written in the tests, never from Medley's own code.
enum Tool {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let fixtures = packageRoot + "/fixtures"

    /// The test data cache `scripts/test-data.sh` fills from Debian's packages (the same variable
    /// and default): tests read it, never download.
    static let testData: String = {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["MEDLEY_TEST_DATA"], !folder.isEmpty { return folder }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return cache + "/medley-tests"
    }()

    /// The medley binary built next to this test bundle (`swift build --build-tests`).
    static let medley: String = {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here.path + "/medley", here.deletingLastPathComponent().path + "/medley",
                          packageRoot + "/.build/debug/medley"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return packageRoot + "/.build/debug/medley"
    }()

    struct Result {
        let status: Int32
        /// `.uncaughtSignal` when the program crashed or was killed (then `status` is the signal).
        var reason: Process.TerminationReason = .exit
        let stdout: String
        let stderr: String
        let data: Data
    }

    /// Runs a program to completion and returns its exit status and output; a program still
    /// running after `timeLimit` seconds (a hang guard, `ProcessRunner.defaultTimeLimit` unless
    /// given) is killed with its process group, and the call throws `ProcessRunner.TimedOut`.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: String? = nil,
                    environment: [String: String] = [:],
                    timeLimit: TimeInterval = ProcessRunner.defaultTimeLimit) throws -> Result {
        let output = try ProcessRunner.run(executable, arguments, in: folder, environment: environment, timeLimit: timeLimit)
        return Result(status: output.status, reason: output.reason,
                      stdout: String(decoding: output.stdout, as: UTF8.self),
                      stderr: String(decoding: output.stderr, as: UTF8.self), data: output.stdout)
    }

    static func medley(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(medley, arguments, environment: environment)
    }

    /// Decoded pixels according to ImageMagick: `channels` is "rgb", "rgba" or "gray"; 8-bit
    /// or 16-bit (little-endian) samples.
    static func pixels(_ path: String, channels: String = "rgb", depth: Int = 8) throws -> (width: Int, height: Int, samples: [Int]) {
        let size = try run("identify", ["-format", "%w %h", path])
        let parts = size.stdout.split(separator: " ").compactMap { Int($0) }
        guard parts.count == 2 else { throw NSError(domain: "identify", code: 1, userInfo: [NSLocalizedDescriptionKey: size.stderr]) }
        let raw = try run("convert", [path, "-depth", "\(depth)", "-endian", "LSB", "\(channels):-"])
        let bytes = [UInt8](raw.data)
        let samples = depth == 8 ? bytes.map(Int.init)
            : stride(from: 0, to: bytes.count - 1, by: 2).map { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 }
        return (parts[0], parts[1], samples)
    }

    /// Runs the vips command line; a failure throws with vips' own message.
    static func vips(_ arguments: [String]) throws {
        let result = try run("vips", arguments)
        guard result.status == 0 else {
            throw NSError(domain: "vips", code: Int(result.status),
                          userInfo: [NSLocalizedDescriptionKey: "vips \(arguments.joined(separator: " ")): \(result.stderr)"])
        }
    }

    /// One header field from `vipsheader -f`, enumerations lowercased without their C prefix:
    /// "3" for bands, "ushort" for `((VipsBandFormat) VIPS_FORMAT_USHORT)`, "srgb" for
    /// `((VipsInterpretation) VIPS_INTERPRETATION_sRGB)`.
    static func vipsHeader(_ path: String, _ field: String) throws -> String {
        let text = try run("vipsheader", ["-f", field, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("(("), let name = text.split(separator: " ").last else { return text }
        let constant = name.trimmingCharacters(in: CharacterSet(charactersIn: ")"))
        return constant.split(separator: "_", maxSplits: 2).last.map { $0.lowercased() } ?? constant
    }

    /// An image as libvips reads it, every sample cast to float (no rounding), for references made
    /// with the vips command line. `scratch` is a folder for the intermediate files.
    static func vipsFloats(_ path: String, scratch: String) throws -> (width: Int, height: Int, bands: Int, samples: [Float]) {
        let size = try ["width", "height", "bands"].map { Int(try vipsHeader(path, $0)) ?? 0 }
        let cast = scratch + "/floats-\(UUID().uuidString).v", raw = cast + ".raw"
        try vips(["cast", path, cast, "float"])
        try vips(["rawsave", cast, raw])  // native byte order, interleaved
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        try? FileManager.default.removeItem(atPath: cast)
        try? FileManager.default.removeItem(atPath: raw)
        let samples = data.withUnsafeBytes { bytes in
            (0..<bytes.count / 4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
        guard samples.count == size[0] * size[1] * size[2] else {
            throw NSError(domain: "vips", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path): \(samples.count) samples"])
        }
        return (size[0], size[1], size[2], samples)
    }

    /// One exiftool tag as text (`-n`: numbers, not descriptions); nil if absent.
    static func exif(_ path: String, _ tag: String) throws -> String? {
        let result = try run("exiftool", ["-s3", "-n", "-\(tag)", path])
        let value = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// Writes `bytes` to a new file named by raw bytes — `folder` + "/" + `name` — which may be no
    /// valid UTF-8 (no Swift String can spell such a name). Returns whether it was made.
    static func createFile(in folder: String, rawName name: [UInt8], bytes: Data = Data()) -> Bool {
        let path = Array((folder + "/").utf8) + name
        let descriptor = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { text in
            text.baseAddress.map { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) } ?? -1
        }
        guard descriptor >= 0 else { return false }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return close(descriptor) == 0 && written == bytes.count
    }

    /// Every regular file under a folder, relative to it, sorted.
    static func files(under folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let next = walker.nextObject() as? String {
            // Medley's own files (manifest, run state) live in .medley/; tests look there by name.
            if next == ".medley" || next.hasPrefix(".medley/") { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + next, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(next)
            }
        }
        return found.sorted()
    }
}

/// The sepia of docs/images.md (GPUImage's matrix, mixed by intensity) in linear light, evaluated here in Double (IEC 61966-2-1 transfer functions).
enum Reference {
    static let sepia: [[Double]] = [[0.3588, 0.7044, 0.1368], [0.2990, 0.5870, 0.1140], [0.2392, 0.4696, 0.0912]]

    static func toLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func toSRGB(_ v: Double) -> Double {
        let x = min(max(v, 0), 1)
        return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }

    /// One RGB pixel (0…max) through mix(in, M·in, intensity) in linear light.
    static func sepia(_ rgb: [Int], intensity: Double, max: Double = 255) -> [Double] {
        sepiaLinear(rgb.map { toLinear(Double($0) / max) }, intensity: intensity).map { toSRGB($0) * max }
    }

    /// mix(in, M·in, intensity) on linear values, unclamped.
    static func sepiaLinear(_ linear: [Double], intensity: Double) -> [Double] {
        (0..<3).map { c in
            let toned = sepia[c][0] * linear[0] + sepia[c][1] * linear[1] + sepia[c][2] * linear[2]
            return (1 - intensity) * linear[c] + intensity * toned
        }
    }
}

/// A scratch folder per test, removed afterwards.
class EndToEndCase: XCTestCase {
    var work: String!

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Tool.medley), "build medley first: \(Tool.medley)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    /// Writes a pipeline file into the scratch folder and returns its path.
    func pipeline(_ text: String, name: String = "pipeline.yaml") throws -> String {
        let path = work + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// A `medley run` whose events (`--events -`) the test reads as they happen, through a pipe of
/// one page. Medley writes each event before going on, so when the test stops reading, the run
/// can get at most a page of events ahead of it: the test stops or kills it at a chosen point of
/// its progress, whatever the machine's speed or load.
final class EventedRun {
    let process = Process()
    private let events = Pipe()
    private let errors = Pipe()
    private var buffer = Data()
    private(set) var lines: [[String: Any]] = []
    /// Standard error, read in the background so it can never block the run; `errorsChanged`
    /// is signalled whenever more arrives or the stream ends.
    private let errorText = Locked("")
    private let errorsEnded = Locked(false)
    private let errorsChanged = NSCondition()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Tool.medley)
        process.arguments = arguments + ["--events", "-"]
        process.standardOutput = events
        process.standardError = errors
        // F_SETPIPE_SZ (Linux): the smallest pipe the kernel allows, one page.
        let pageSize = fcntl(events.fileHandleForWriting.fileDescriptor, 1031, 4096)
        guard pageSize > 0, pageSize <= 4096 else { throw NSError(domain: "F_SETPIPE_SZ", code: Int(errno)) }
        try process.run()
        let reader = errors.fileHandleForReading, text = errorText, ended = errorsEnded, changed = errorsChanged
        DispatchQueue.global().async {
            while true {
                let chunk = reader.availableData
                changed.lock()
                if chunk.isEmpty { ended.mutate { $0 = true } } else { text.mutate { $0 += String(decoding: chunk, as: UTF8.self) } }
                changed.broadcast()
                changed.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    /// Waits (without reading events) until standard error contains `text`; false if it ended first.
    @discardableResult
    func waitForStderr(containing text: String) -> Bool {
        errorsChanged.lock()
        defer { errorsChanged.unlock() }
        while !errorText.value.contains(text) {
            if errorsEnded.value { return false }
            errorsChanged.wait()
        }
        return true
    }

    /// Reads events until `until` holds for one of them (true), or the stream ends (false).
    @discardableResult
    func read(until: ([String: Any]) -> Bool) -> Bool {
        while true {
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                guard let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                lines.append(event)
                if until(event) { return true }
            }
            let chunk = events.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            buffer.append(chunk)
        }
    }

    /// Reads until the `count`-th event named `name` of this run; false if the run ended first.
    @discardableResult
    func read(untilThe count: Int, _ name: String) -> Bool {
        var seen = lines.filter { $0["event"] as? String == name }.count
        if seen >= count { return true }
        return read { event in
            if event["event"] as? String == name { seen += 1 }
            return seen >= count
        }
    }

    /// Reads every remaining event and waits for the process; returns its standard error.
    func finish() -> String {
        read { _ in false }
        process.waitUntilExit()
        errorsChanged.lock()
        while !errorsEnded.value { errorsChanged.wait() }
        errorsChanged.unlock()
        return errorText.value
    }

    /// What the run has written to standard error so far.
    var stderr: String { errorText.value }

    func count(_ name: String) -> Int { lines.filter { $0["event"] as? String == name }.count }
}

/// A value shared between threads.
final class Locked<Value>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func mutate(_ change: (inout Value) -> Void) { lock.lock(); change(&stored); lock.unlock() }
}

/// ffmpeg's `ebur128` filter: the independent loudness reader of the loudness tests.
enum EBUR128 {
    /// The summary of the files played one after another (ffmpeg's `concat` filter for several):
    /// integrated loudness (LUFS) and true peak (dBTP), as ffmpeg prints them (to 0.1).
    static func summary(_ paths: [String]) throws -> (integrated: Double, truePeak: Double) {
        let inputs = paths.flatMap { ["-i", $0] }
        let chain = paths.count == 1 ? "[0:a]ebur128=peak=true"
            : paths.indices.map { "[\($0):a]" }.joined() + "concat=n=\(paths.count):v=0:a=1,ebur128=peak=true"
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner"] + inputs + ["-filter_complex", chain, "-f", "null", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try XCTUnwrap(result.stderr.components(separatedBy: "Summary:").last)
        func value(after label: String) throws -> Double {
            let line = try XCTUnwrap(summary.split(separator: "\n").first { $0.contains(label) }, label)
            let field = try XCTUnwrap(line.split(separator: " ").dropFirst().first { Double($0) != nil }, String(line))
            return try XCTUnwrap(Double(field))
        }
        return (try value(after: "I:"), try value(after: "Peak:"))
    }
}
