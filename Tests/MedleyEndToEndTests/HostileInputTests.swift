import Foundation
import XCTest

/// A generated corpus of ≥ 200 malformed files (fixtures/make-hostile-corpus.sh): no crash, no
/// hang, every file accounted for, every cut file and lying header reported, every good file
/// converted, and the pixel bomb refused from its header without decoding a pixel.
final class HostileInputTests: EndToEndCase {
    func testMalformedCorpusIsReportedItemByItem() throws {
        let corpus = work + "/corpus"
        let made = try Tool.run(Tool.fixtures + "/make-hostile-corpus.sh", [corpus])
        XCTAssertEqual(made.status, 0, made.stderr)
        let files = Tool.files(under: corpus)
        XCTAssertGreaterThanOrEqual(files.count, 200)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: hostile
                ingest: { from: [corpus], media: [any] }
                filters: [ CISepiaTone ]
                transcode: { AVFormatIDKey: kAudioFormatFLAC }
                export: { to: out, format: png, name: "{relpath}/{stem}.{ext}" }
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.medley)
        process.arguments = ["run", path, "--quiet", "--events", work + "/events.jsonl"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "no crash")
        XCTAssertEqual(process.terminationStatus, 1, "some items failed, none stopped the run")

        let records = try String(contentsOfFile: work + "/out/.medley/manifest-hostile.jsonl", encoding: .utf8)
            .split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let byItem = Dictionary(records.map { ($0["item"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(records.count, files.count, "each file once")
        XCTAssertEqual(Set(byItem.keys), Set(files), "every file accounted for")
        for (item, record) in byItem {
            switch record["status"] as? String {
            case "succeeded":
                let output = record["output"] as? String ?? ""
                XCTAssertTrue(FileManager.default.fileExists(atPath: output), "\(item): output \(output)")
                XCTAssertFalse(item.hasPrefix("truncated/") || item.hasPrefix("lies/"), "\(item) must fail")
            case "failed":
                XCTAssertFalse((record["error"] as? String ?? "").isEmpty, "\(item): a reason")
                XCTAssertFalse(item.hasPrefix("good/"), "\(item) must convert: \(record["error"] ?? "")")
            default:
                XCTFail("\(item): status \(record["status"] ?? "none")")
            }
        }
        // Nothing half-written: only outputs of succeeded items exist.
        let succeeded = records.filter { $0["status"] as? String == "succeeded" }.count
        XCTAssertEqual(Tool.files(under: work + "/out").count, succeeded)

        // The bomb: refused by the header check (only it says "not decoded" and names the claimed
        // size; a decode that started would fail with the decoder's own words instead).
        let bomb = try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "itemFailed" && ($0["input"] as? String ?? "").hasSuffix("bomb-100000x100000.png") }
        let reason = bomb?["error"] as? String ?? ""
        XCTAssertTrue(reason.contains("100000 × 100000 pixels") && reason.contains("limits.maxPixels") && reason.contains("not decoded"),
                      "\(bomb ?? [:])")
    }

    /// A write that fails half-way (the file-size limit stands in for a full disk: the encoder sees
    /// the same failed write()): that item fails with the system's reason, its temporary file is
    /// gone, and the other items are written.
    func testAFailedWriteFailsOnlyThatItemAndLeavesNoTemporaryFile() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/small.jpg")
        // 800×800 of noise: a PNG of ~500 KB, over the 200 KB limit below.
        XCTAssertEqual(try Tool.run("vips", ["gaussnoise", input + "/noise.png", "800", "800"]).status, 0)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: full
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
            """)
        let result = try Tool.run("bash", ["-c", "trap '' XFSZ; ulimit -f 200; exec \"$0\" run \"$1\" --quiet", Tool.medley, path])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("noise.png") && result.stderr.contains("File too large"), result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["small.png"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/.medley/tmp"), "no temporary file left")
    }

    /// Names with a line break or bytes that are not UTF-8: the first converts under a clean name,
    /// the second is reported with its reason; events and manifest stay valid JSON lines.
    func testHostileFileNames() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let photo = try Data(contentsOf: URL(fileURLWithPath: Tool.fixtures + "/images/landscape.jpg"))
        try photo.write(to: URL(fileURLWithPath: input + "/new\nline.jpg"))
        // "bad<0xFF>name.jpg" through the C API: Foundation cannot spell a name that is not UTF-8.
        let raw: [UInt8] = Array((input + "/bad").utf8) + [0xFF] + Array("name.jpg".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = photo.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: names
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--events", work + "/events.jsonl"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["newline.png"])
        XCTAssertTrue(result.stderr.contains("ok    \(input)/new\\nline.jpg"), "one line per item:\n\(result.stderr)")
        XCTAssertTrue(result.stderr.contains("not valid UTF-8"), result.stderr)
        for file in [work + "/events.jsonl", work + "/out/.medley/manifest-names.jsonl"] {
            for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), "\(file): \(line)")
            }
        }
    }

    /// Permissions: a symlink planted under the export root cannot carry an output outside it.
    func testASymlinkInTheExportRootCannotLeadWritesOutside() throws {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input + "/evil", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/out", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/evil/a.jpg")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input + "/ok.jpg")
        try FileManager.default.createSymbolicLink(atPath: work + "/out/evil", withDestinationPath: work + "/elsewhere")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: links
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png, name: "{relpath}/{stem}.png" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("refused to write \(work!)/out/evil/a.png: \(work!)/out/evil is a symbolic link"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work + "/elsewhere"), [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/ok.png"))
    }
}
