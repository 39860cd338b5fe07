import Foundation
import MedleySystem
@testable import MedleyCore
import MedleyYAML
import XCTest

/// Files a pipeline names (LUTs, logos, profiles) are read only from its `assets:` folders and its
/// job's ingest roots, after links are resolved; their fingerprint is XXH3 as `xxhsum -H3` prints it.
final class AssetFileTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "medley-assets-\(UUID().uuidString)"
        for sub in ["looks", "photos", "elsewhere"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try Data("TITLE \"x\"\nLUT_3D_SIZE 2\n".utf8).write(to: URL(fileURLWithPath: folder + "/looks/a.cube"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/elsewhere/b.cube"))
        try Data("in ingest".utf8).write(to: URL(fileURLWithPath: folder + "/photos/c.cube"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A reader with `assets: [looks]` and a job whose ingest root is `photos`.
    func reader() -> SchemaReader {
        let reader = SchemaReader(sink: DiagnosticSink(file: "p.yaml"), directory: folder)
        reader.readAssetRoots(.scalar("looks", plain: true, mark: SourceMark(line: 2, column: 9)))
        reader.assets.jobRoots = [FileSystem.resolvedPath(folder + "/photos")].compactMap { $0 }
        return reader
    }

    func node(_ text: String) -> YAMLNode { .scalar(text, plain: true, mark: SourceMark(line: 7, column: 15)) }

    func testAFileInAnAssetsFolderIsReadWithXXH3Fingerprint() throws {
        let reader = reader()
        let asset = try XCTUnwrap(reader.assetFile(node("looks/a.cube"), what: "CIColorCube.file"))
        XCTAssertEqual(reader.sink.diagnostics.map(\.message), [])
        XCTAssertEqual(asset.bytes, Array("TITLE \"x\"\nLUT_3D_SIZE 2\n".utf8))
        // `xxhsum -H3 FILE` prints "XXH3 (FILE) = 16 hex digits" (lower case).
        let printed = try xxhsum(folder + "/looks/a.cube")
        let expected = try XCTUnwrap(printed.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(String(asset.fingerprint, radix: 16).leftPadded(16), expected)
        XCTAssertEqual(reader.assets.jobFingerprints.count, 1)
    }

    func testAFileInTheJobsIngestRootIsAllowed() throws {
        let reader = reader()
        XCTAssertNotNil(reader.assetFile(node("photos/c.cube"), what: "file"))
        XCTAssertEqual(reader.sink.diagnostics.count, 0)
    }

    func testAFileOutsideTheReadRootsIsRefusedWithASuggestion() throws {
        let reader = reader()
        XCTAssertNil(reader.assetFile(node("elsewhere/b.cube"), what: "CIColorCube.file"))
        let diagnostic = try XCTUnwrap(reader.sink.diagnostics.first)
        XCTAssertEqual(diagnostic.mark.line, 7)
        XCTAssertEqual(diagnostic.mark.column, 15)
        XCTAssertTrue(diagnostic.message.contains("outside the folders this pipeline may read"), diagnostic.message)
        XCTAssertTrue(diagnostic.suggestion?.contains("assets:") ?? false, "\(diagnostic.suggestion ?? "none")")
        // `..` cannot climb out either.
        XCTAssertNil(reader.assetFile(node("looks/../elsewhere/b.cube"), what: "file"))
    }

    func testAPlantedLinkOutOfTheRootIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: folder + "/looks/planted.cube",
                                                   withDestinationPath: folder + "/elsewhere/b.cube")
        let reader = reader()
        XCTAssertNil(reader.assetFile(node("looks/planted.cube"), what: "file"))
        let message = try XCTUnwrap(reader.sink.diagnostics.first?.message)
        XCTAssertTrue(message.contains("resolves to") && message.contains("elsewhere/b.cube"), message)
    }

    func testMissingFoldersAndNonFilesAreRefused() throws {
        let reader = reader()
        XCTAssertNil(reader.assetFile(node("looks/none.cube"), what: "file"))
        XCTAssertNil(reader.assetFile(node("looks"), what: "file"))
        reader.readAssetRoots(node("no-such-folder"))
        let messages = reader.sink.diagnostics.map(\.message)
        XCTAssertEqual(messages.count, 3, "\(messages)")
        XCTAssertTrue(messages[0].contains("does not exist"), messages[0])
        XCTAssertTrue(messages[1].contains("not a regular file"), messages[1])
        XCTAssertTrue(messages[2].contains("assets folder 'no-such-folder' does not exist"), messages[2])
    }

    func testAFileOverTheSizeLimitIsRefusedBeforeItIsRead() throws {
        // A sparse file: its size is over the limit, no data is written.
        let path = folder + "/looks/huge.cube"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(AssetFile.maximumBytes) + 1)
        try handle.close()
        let reader = reader()
        XCTAssertNil(reader.assetFile(node("looks/huge.cube"), what: "file"))
        XCTAssertTrue(reader.sink.diagnostics.first?.message.contains("more than the \(AssetFile.maximumBytes)") ?? false)
    }

    func testTheAssetsKeyIsPartOfThePipelineSchema() throws {
        let text = """
            version: 1
            assets: [looks]
            jobs:
              - name: j
                ingest: { from: [photos] }
                export: { to: out }
            """
        XCTAssertNoThrow(try PipelineReader.parse(text, file: "p.yaml", directory: folder))
    }
}

/// `xxhsum -H3 PATH`'s output.
private func xxhsum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/xxhsum")
    process.arguments = ["-H3", path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
