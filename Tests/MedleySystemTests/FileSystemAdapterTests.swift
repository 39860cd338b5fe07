import Foundation
import MedleySystem
import XCTest

/// The file-system adapter refuses links below a root, whoever asks, and keeps the errno.
final class FileSystemAdapterTests: XCTestCase {
    private var work: String!

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-fs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work + "/root/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/outside", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: work + "/root/real/a.txt"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: work + "/outside/a.txt"))
        try FileManager.default.createSymbolicLink(atPath: work + "/root/linked", withDestinationPath: work + "/outside")
        try FileManager.default.createSymbolicLink(atPath: work + "/root/real/b.txt", withDestinationPath: work + "/outside/a.txt")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    func testReadingBelowARootNeverFollowsALink() throws {
        let opened = try FileSystem.openForReading(below: work + "/root", ["real", "a.txt"]).get()
        defer { FileSystem.close(opened) }
        XCTAssertEqual(try FileSystem.read(opened, count: 100, at: 0).get(), Array("inside".utf8))
        XCTAssertEqual(try FileSystem.read(opened, count: 3, at: 2).get(), Array("sid".utf8))
        guard case .failure(let folder) = FileSystem.openForReading(below: work + "/root", ["linked", "a.txt"]) else {
            return XCTFail("a folder link was followed")
        }
        XCTAssertEqual(folder, .folderIsLink("linked"))
        guard case .failure(let file) = FileSystem.openForReading(below: work + "/root", ["real", "b.txt"]) else {
            return XCTFail("a file link was followed")
        }
        XCTAssertEqual(file, .fileIsLink)
        guard case .failure(let up) = FileSystem.openForReading(below: work + "/root", ["..", "outside", "a.txt"]) else {
            return XCTFail("'..' left the root")
        }
        XCTAssertEqual(up, .notBelowRoot)
        guard case .failure(.system(let missing)) = FileSystem.openForReading(below: work + "/root", ["real", "gone.txt"]) else {
            return XCTFail("a missing file opened")
        }
        XCTAssertEqual(missing.code, ENOENT)
        XCTAssertEqual(missing.failureClass, .notFound)
    }

    func testAListingRefusesALinkUnlessToldToFollowIt() throws {
        guard case .failure(let refused) = FolderListing.open(work + "/root/linked", followingLink: false) else {
            return XCTFail("a link was listed")
        }
        XCTAssertEqual(refused.code, ELOOP)
        let listing = try FolderListing.open(work + "/root/real", followingLink: false).get()
        var names: [String: FolderListing.EntryType] = [:]
        while let entry = try listing.next().get() {
            names[String(decoding: entry.name, as: UTF8.self)] = entry.type
        }
        XCTAssertEqual(names["a.txt"], .regular)
        XCTAssertEqual(names["b.txt"], .link)
        XCTAssertEqual(listing.status(of: "b.txt")?.isLink, true)
        XCTAssertEqual(listing.status(of: "a.txt")?.size, 6)
        XCTAssertEqual(try FileSystem.status(of: work + "/root/real").get().identity, listing.identity)
    }

    func testSafeFolderRefusesALinkBelowIt() throws {
        let root = try SafeFolder.open(work + "/root", creating: false)
        XCTAssertThrowsError(try root.folder("linked", creating: false)) { error in
            XCTAssertEqual((error as? FileSystemFailure)?.kind, .link)
        }
        XCTAssertThrowsError(try root.folder(at: ["real"], creating: false).openFile("b.txt", flags: O_RDONLY)) { error in
            XCTAssertEqual((error as? FileSystemFailure)?.kind, .link)
        }
    }

    /// memcmp order: bytes compared unsigned, a prefix first.
    func testNamesSortByteWise() {
        XCTAssertTrue(FolderListing.precedesByteWise(Array("a".utf8), Array("ab".utf8)))
        XCTAssertTrue(FolderListing.precedesByteWise(Array("Z".utf8), Array("a".utf8)))
        XCTAssertTrue(FolderListing.precedesByteWise([0x7F], [0xC3, 0xA9]))
        XCTAssertFalse(FolderListing.precedesByteWise(Array("b".utf8), Array("ab".utf8)))
    }
}
