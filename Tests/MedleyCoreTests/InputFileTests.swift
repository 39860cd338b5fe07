import Foundation
import XCTest
@testable import MedleyCore

/// `InputFile.open`: an item reads the file ingest listed, under the root, or fails with the reason — whatever was
/// swapped in between the listing and the opening.
final class InputFileTests: XCTestCase {
    private var tree: IngestTempTree!
    private var outside: IngestTempTree!

    override func setUpWithError() throws {
        tree = try IngestTempTree()
        outside = try IngestTempTree()
    }

    override func tearDown() {
        tree.remove()
        outside.remove()
    }

    /// The file records ingest makes for the tree's "in" folder.
    private func listed() -> [String: IngestedFile] {
        Dictionary(IngestRun(IngestSource(roots: [tree.path("in")])).files.map { ($0.relativePath, $0) },
                   uniquingKeysWith: { first, _ in first })
    }

    private func failure(opening file: IngestedFile?) throws -> String {
        let file = try XCTUnwrap(file)
        XCTAssertThrowsError(try InputFile.open(file))
        do {
            _ = try InputFile.open(file)
            return "opened"
        } catch {
            return "\(error)"
        }
    }

    func testReadsTheListedFileThroughItsOwnDescriptorAndClosesIt() throws {
        try tree.file("in/sub/a.jpg", bytes: [1, 2, 3, 4, 5])
        let input = try InputFile.open(try XCTUnwrap(listed()["sub/a.jpg"]))
        XCTAssertEqual(input.readPath, "/proc/self/fd/\(input.descriptor)")
        XCTAssertEqual(input.file.size, 5)
        // Renamed away after opening: the open file is still what is read.
        try FileManager.default.moveItem(atPath: tree.path("in/sub/a.jpg"), toPath: tree.path("moved.jpg"))
        XCTAssertEqual(FileManager.default.contents(atPath: input.readPath), Data([1, 2, 3, 4, 5]))
        let descriptor = input.descriptor
        input.close()
        XCTAssertEqual(fcntl(descriptor, F_GETFD), -1, "closed")
        XCTAssertEqual(input.descriptor, -1)
    }

    func testAFileSwappedForALinkIsNotFollowed() throws {
        try tree.file("in/a.jpg")
        try outside.file("secret.jpg", bytes: [7, 7, 7])
        let file = listed()["a.jpg"]
        try FileManager.default.removeItem(atPath: tree.path("in/a.jpg"))
        try tree.link("in/a.jpg", to: outside.path("secret.jpg"))
        XCTAssertEqual(try failure(opening: file),
                       "it was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
    }

    func testAParentFolderSwappedForALinkIsNotFollowed() throws {
        try tree.file("in/deep/er/a.jpg")
        try outside.file("er/a.jpg", bytes: [7, 7, 7])
        let file = listed()["deep/er/a.jpg"]
        try FileManager.default.moveItem(atPath: tree.path("in/deep"), toPath: tree.path("deep-moved"))
        try tree.link("in/deep", to: outside.root)
        XCTAssertEqual(try failure(opening: file),
                       "the folder deep on its path was replaced by a symbolic link after it was listed; not followed (a run reads only inside its ingest roots)")
    }

    func testALinkFollowedInsideTheRootThenTurnedOutwardsIsRefused() throws {
        try tree.file("in/real.jpg")
        try tree.link("in/link.jpg", to: "real.jpg")
        try outside.file("secret.jpg", bytes: [7, 7, 7])
        let file = try XCTUnwrap(listed()["link.jpg"])
        XCTAssertTrue(file.throughLink)
        XCTAssertNoThrow(try InputFile.open(file).close())
        try FileManager.default.removeItem(atPath: tree.path("in/link.jpg"))
        try tree.link("in/link.jpg", to: outside.path("secret.jpg"))
        XCTAssertEqual(try failure(opening: file),
                       "it now resolves outside the ingest root \(tree.path("in")) (a symbolic link replaced it or a folder on its path after it was listed); not read")
    }

    func testAFileSwappedForAFifoOrRemovedFails() throws {
        try tree.file("in/a.jpg")
        try tree.file("in/b.jpg")
        let files = listed()
        try FileManager.default.removeItem(atPath: tree.path("in/a.jpg"))
        XCTAssertEqual(mkfifo(tree.path("in/a.jpg"), 0o644), 0)
        XCTAssertEqual(try failure(opening: files["a.jpg"]),
                       "it is no longer a regular file (it was replaced after it was listed); not read")
        try FileManager.default.removeItem(atPath: tree.path("in/b.jpg"))
        XCTAssertEqual(try failure(opening: files["b.jpg"]), "it vanished after it was listed")
    }

    func testDecoderMessagesNameTheFileNotTheDescriptor() throws {
        try tree.file("in/a.jpg")
        let input = try InputFile.open(try XCTUnwrap(listed()["a.jpg"]))
        defer { input.close() }
        let n = input.descriptor
        XCTAssertEqual(input.describing("\"/proc/self/fd/\(n)\" is not a known file format; /proc/self/fd/\(n)0 too"),
                       "\"\(tree.path("in/a.jpg"))\" is not a known file format; /proc/self/fd/\(n)0 too")
    }
}
