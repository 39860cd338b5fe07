import Foundation
import XCTest

/// `medley probe FOLDER` (issue 30, D2): a folder stands for the files a run ingests from it, as
/// `exiftool -r` takes folders. The expected files are the tree built here less what ingest skips
/// (hidden files and folders, files that are not media); each file's size is checked against exiftool.
final class ProbeFolderTests: EndToEndCase {
    func makeTree() throws -> [String] {
        let fm = FileManager.default
        for folder in ["tree/b/deeper", "tree/.hidden"] {
            try fm.createDirectory(atPath: work + "/" + folder, withIntermediateDirectories: true)
        }
        let images = Tool.fixtures + "/images/"
        try fm.copyItem(atPath: images + "landscape.jpg", toPath: work + "/tree/a.jpg")
        try fm.copyItem(atPath: images + "gray.png", toPath: work + "/tree/b/gray.png")
        try fm.copyItem(atPath: images + "portrait-exif6.jpg", toPath: work + "/tree/b/deeper/portrait.jpg")
        try fm.copyItem(atPath: images + "alpha.png", toPath: work + "/tree/.hidden/skipped.png")
        try fm.copyItem(atPath: images + "alpha.png", toPath: work + "/tree/.dotfile.png")
        try "not media".write(toFile: work + "/tree/b/notes.txt", atomically: true, encoding: .utf8)
        // Byte-wise order of the relative paths, as a run ingests them.
        return ["a.jpg", "b/deeper/portrait.jpg", "b/gray.png"].map { work + "/tree/" + $0 }
    }

    func testAFolderIsProbedRecursivelyAsIngestWalksItInJSON() throws {
        let expected = try makeTree()
        let result = try Tool.medley(["probe", work + "/tree", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["path"] as? String }, expected)
        for item in items {
            let path = try XCTUnwrap(item["path"] as? String)
            XCTAssertEqual(item["width"] as? Int, Int(try XCTUnwrap(Tool.exif(path, "ImageWidth"))), path)
            XCTAssertEqual(item["height"] as? Int, Int(try XCTUnwrap(Tool.exif(path, "ImageHeight"))), path)
        }
    }

    func testTextModePrintsEachFileOfFoldersAndFilesInOrder() throws {
        let expected = try makeTree()
        let single = Tool.fixtures + "/images/alpha.png"
        let result = try Tool.medley(["probe", single, work + "/tree"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let headers = result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init)
        XCTAssertEqual(headers.count, 1 + expected.count, result.stdout)
        XCTAssertEqual(headers.first, single)
        XCTAssertEqual(result.stdout.components(separatedBy: "  mediaType: image").count - 1, 1 + expected.count)
    }

    func testAMissingFolderFailsAloneWithExitOne() throws {
        let expected = try makeTree()
        let result = try Tool.medley(["probe", work + "/nowhere", work + "/tree", "--json"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("nowhere"), result.stderr)
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["path"] as? String }, expected)
    }
}
