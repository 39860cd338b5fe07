#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
@testable import MedleyCore

final class IngestEnumeratorTests: XCTestCase {
    private var tree: IngestTempTree!
    private var outside: IngestTempTree!

    override func setUpWithError() throws {
        tree = try IngestTempTree()
        outside = try IngestTempTree()
    }

    override func tearDown() {
        tree?.remove()
        outside?.remove()
    }

    // MARK: - Order

    func testOrderIsByteWiseOverWholeRelativePaths() throws {
        // "a.txt" < "a/b.txt" < "a0.txt" because "." < "/" < "0"; uppercase sorts before lowercase.
        for name in ["b.txt", "a0.txt", "a/c/d.txt", "a/b.txt", "a.txt", "a-b.txt", "B.txt", "Z/z.txt", "ab/x"] {
            try tree.file(name)
        }
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.errors, [])
        XCTAssertEqual(run.relativePaths,
                       ["B.txt", "Z/z.txt", "a-b.txt", "a.txt", "a/b.txt", "a/c/d.txt", "a0.txt", "ab/x", "b.txt"])
        // Sorting names per folder without the trailing "/" would put folder "a" before "a.txt"; make sure the
        // expected list above really is the byte-wise order of the paths.
        XCTAssertEqual(run.relativePaths, run.relativePaths.sorted(by: ingestBytewiseLess))
    }

    func testFileRecordsCarryPathRootSizeAndDate() throws {
        try tree.file("nested/deeper/tiny.tif", bytes: [UInt8](repeating: 7, count: 1234))
        // A modification time set by the test (not "now", which depends on how long the test ran).
        let stamp = Date(timeIntervalSince1970: 1_234_567_890.5)
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: tree.root + "/nested/deeper/tiny.tif")
        let run = IngestRun(IngestSource(roots: [tree.root + "/"]))  // a trailing slash does not leak into paths
        XCTAssertEqual(run.files.count, 1)
        let file = try XCTUnwrap(run.files.first)
        XCTAssertEqual(file.relativePath, "nested/deeper/tiny.tif")
        XCTAssertEqual(file.root, tree.root)
        XCTAssertEqual(file.path, tree.root + "/nested/deeper/tiny.tif")
        XCTAssertEqual(file.size, 1234)
        XCTAssertEqual(file.modified.timeIntervalSince1970, stamp.timeIntervalSince1970, accuracy: 1e-3)
    }

    func testRecursiveVersusNot() throws {
        try tree.file("top.jpg")
        try tree.file("sub/inner.jpg")
        try tree.file("sub/deeper/innermost.jpg")
        XCTAssertEqual(IngestRun(IngestSource(roots: [tree.root])).relativePaths,
                       ["sub/deeper/innermost.jpg", "sub/inner.jpg", "top.jpg"])
        XCTAssertEqual(IngestRun(IngestSource(roots: [tree.root], recursive: false)).relativePaths, ["top.jpg"])
    }

    // MARK: - Filters

    func testIncludeIsCaseInsensitive() throws {
        for name in ["x.JPG", "y.jpg", "z.png", "sub/w.Jpg", "sub/v.txt"] { try tree.file(name) }
        let run = IngestRun(IngestSource(roots: [tree.root], include: [try Glob("*.jpg")]))
        XCTAssertEqual(run.relativePaths, ["sub/w.Jpg", "x.JPG", "y.jpg"])
    }

    func testExcludeThumbsAnywhere() throws {
        for name in ["thumbs/a.jpg", "a/thumbs/b/c.jpg", "A/Thumbs/d.jpg", "thumbsup/d.jpg", "e.jpg", "a/f.jpg"] {
            try tree.file(name)
        }
        let run = IngestRun(IngestSource(roots: [tree.root], exclude: [try Glob("**/thumbs/**")]))
        XCTAssertEqual(run.relativePaths, ["a/f.jpg", "e.jpg", "thumbsup/d.jpg"])
    }

    func testIncludeAndExcludeTogether() throws {
        for name in ["keep.jpg", "keep.png", "drop.jpg", "raw/keep.jpg"] { try tree.file(name) }
        let source = IngestSource(roots: [tree.root], include: [try Glob("*.jpg"), try Glob("*.png")],
                                  exclude: [try Glob("drop*"), try Glob("raw/**")])
        XCTAssertEqual(IngestRun(source).relativePaths, ["keep.jpg", "keep.png"])
    }

    func testWholePathIncludePrunesFoldersButKeepsMatches() throws {
        for name in ["2023/06/a.jpg", "2023/07/b.jpg", "2022/c.jpg", "d.jpg"] { try tree.file(name) }
        let run = IngestRun(IngestSource(roots: [tree.root], include: [try Glob("2023/**/*.jpg")]))
        XCTAssertEqual(run.relativePaths, ["2023/06/a.jpg", "2023/07/b.jpg"])
    }

    // MARK: - Glob roots

    func testGlobRootWithoutDoubleStarDoesNotDescend() throws {
        for name in ["a.jpg", "B.JPG", "c.png", "sub/d.jpg"] { try tree.file(name) }
        let run = IngestRun(IngestSource(roots: [tree.root + "/*.jpg"]))
        XCTAssertEqual(run.errors, [])
        XCTAssertEqual(run.relativePaths, ["B.JPG", "a.jpg"])
        XCTAssertEqual(run.files.map(\.root), [tree.root, tree.root], "the root is the part before the pattern")
    }

    func testGlobRootWithDoubleStarDescends() throws {
        for name in ["p/a.png", "p/x/b.png", "p/x/y/c.PNG", "p/x/d.jpg", "q/e.png"] { try tree.file(name) }
        let run = IngestRun(IngestSource(roots: [tree.root + "/p/**/*.png"]))
        XCTAssertEqual(run.relativePaths, ["a.png", "x/b.png", "x/y/c.PNG"])
        XCTAssertEqual(Set(run.files.map(\.root)), [tree.root + "/p"])
    }

    func testGlobRootWithPatternInAFolderComponent() throws {
        for name in ["2023-06/a.jpg", "2023-07/b.jpg", "2022-01/c.jpg", "2023-08/deep/d.jpg"] { try tree.file(name) }
        let run = IngestRun(IngestSource(roots: [tree.root + "/2023-*/*.jpg"]))
        XCTAssertEqual(run.relativePaths, ["2023-06/a.jpg", "2023-07/b.jpg"])
    }

    func testExistingPathWithBracketsIsNotAGlob() throws {
        try tree.file("[2023] Trip/beach.jpg")
        let run = IngestRun(IngestSource(roots: [tree.root + "/[2023] Trip"]))
        XCTAssertEqual(run.errors, [])
        XCTAssertEqual(run.relativePaths, ["beach.jpg"])
    }

    func testBadGlobRootIsYieldedAsAnError() throws {
        try tree.file("a.jpg")
        let bad = tree.root + "/[abc"
        let run = IngestRun(IngestSource(roots: [bad, tree.root]))
        XCTAssertEqual(run.relativePaths, ["a.jpg"], "the next root is still walked")
        guard case .badPattern(let pattern, _)? = run.errors.first else {
            return XCTFail("expected .badPattern, got \(run.errors)")
        }
        XCTAssertEqual(pattern, bad)
    }

    // MARK: - Symlinks

    func testDirectoryLinkToItsParentTerminates() throws {
        try tree.file("a/photo.jpg")
        try tree.link("a/loop", to: "..")      // a/loop -> the root
        try tree.link("a/self", to: ".")       // a/self -> a
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.relativePaths, ["a/photo.jpg"])
        XCTAssertEqual(run.skippedLinks, 2, "both loop links are counted as not followed")
    }

    func testLinksLeavingTheRootAreNotFollowed() throws {
        let secret = try outside.file("secret.jpg")
        try outside.file("folder/other.jpg")
        try tree.file("mine.jpg")
        try tree.link("file-link.jpg", to: secret)
        try tree.link("folder-link", to: outside.path("folder"))
        try tree.link("sneaky.jpg", to: "../" + (outside.root as NSString).lastPathComponent + "/secret.jpg")
        try tree.link("dangling.jpg", to: tree.path("does-not-exist.jpg"))
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.relativePaths, ["mine.jpg"])
        XCTAssertEqual(run.errors, [])
        XCTAssertEqual(run.skippedLinks, 4)
    }

    func testLinksInsideTheRootAreFollowed() throws {
        try tree.file("real/photo.jpg", bytes: [1, 2, 3, 4, 5])
        try tree.link("alias.jpg", to: "real/photo.jpg")
        try tree.link("linked-folder", to: tree.path("real"))
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.relativePaths, ["alias.jpg", "linked-folder/photo.jpg", "real/photo.jpg"])
        XCTAssertEqual(run.files.first?.path, tree.path("alias.jpg"), "paths are as reached, not resolved")
        XCTAssertEqual(run.files.first?.size, 5, "size is the target's")
        XCTAssertEqual(run.skippedLinks, 0)
        // Reached through a link (the file's own, or a folder's): opened by following it, then checked.
        XCTAssertEqual(run.files.map(\.throughLink), [true, true, false])
        XCTAssertEqual(Set(run.files.map(\.canonicalRoot)), [tree.root])
    }

    /// A folder listed as a folder but swapped for a link before the walk enters it is not entered.
    func testAFolderSwappedForALinkBeforeItIsEnteredIsNotFollowed() throws {
        let elsewhere = try IngestTempTree()
        defer { elsewhere.remove() }
        try elsewhere.file("secret.jpg")
        try tree.file("a.jpg")
        try tree.file("zz/b.jpg")
        var enumerator = FileEnumerator(IngestSource(roots: [tree.root]))
        guard case .success(let first)? = enumerator.next() else { return XCTFail("a.jpg first") }
        XCTAssertEqual(first.relativePath, "a.jpg")
        try FileManager.default.removeItem(atPath: tree.path("zz"))
        try tree.link("zz", to: elsewhere.root)
        guard case .failure(let error)? = enumerator.next() else { return XCTFail("zz refused") }
        XCTAssertEqual(error, .unreadable(path: tree.path("zz"),
                                          reason: "it was replaced by a symbolic link after it was listed; not followed"))
        XCTAssertNil(enumerator.next())
    }

    // MARK: - Hidden and special files

    func testHiddenFilesAndMedleyFolderAreSkipped() throws {
        for name in [".medley/cache/thumb.jpg", ".hidden.jpg", "a/.DS_Store", ".git/config", "visible.jpg", "a/b.jpg"] {
            try tree.file(name)
        }
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.relativePaths, ["a/b.jpg", "visible.jpg"])
    }

    func testFifoIsSkippedWithoutBlocking() throws {
        try tree.file("a.jpg")
        XCTAssertEqual(mkfifo(tree.path("pipe.jpg"), 0o644), 0)
        XCTAssertEqual(IngestRun(IngestSource(roots: [tree.root])).relativePaths, ["a.jpg"])
    }

    func testNameThatIsNotUTF8IsReportedAndTheRestContinues() throws {
        try tree.file("a.jpg")
        try tree.file("z.jpg")
        // "b\xFF.jpg": 0xFF never occurs in UTF-8.
        let rawName: [UInt8] = Array(tree.root.utf8) + Array("/b".utf8) + [0xFF] + Array(".jpg".utf8) + [0]
        let descriptor = rawName.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { $0.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_CREAT | O_WRONLY, 0o644) } } ?? -1
        }
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        let run = IngestRun(IngestSource(roots: [tree.root]))
        XCTAssertEqual(run.relativePaths, ["a.jpg", "z.jpg"])
        XCTAssertEqual(run.errors.count, 1)
        guard case .unreadable(_, let reason)? = run.errors.first else { return XCTFail("\(run.errors)") }
        XCTAssertTrue(reason.contains("UTF-8"), reason)
    }

    // MARK: - Errors

    func testMissingRootIsYieldedAndNextRootContinues() throws {
        try tree.file("a.jpg")
        let missing = tree.path("no-such-folder")
        let run = IngestRun(IngestSource(roots: [missing, tree.root]))
        XCTAssertEqual(run.errors, [.missingRoot(missing)])
        XCTAssertEqual(run.relativePaths, ["a.jpg"])
        let missingGlob = tree.path("nowhere/*.jpg")
        XCTAssertEqual(IngestRun(IngestSource(roots: [missingGlob])).errors, [.missingRoot(missingGlob)])
    }

    func testRootThatVanishesBeforeItsTurn() throws {
        try tree.file("first/a.jpg")
        try tree.file("second/b.jpg")
        var enumerator = FileEnumerator(IngestSource(roots: [tree.path("first"), tree.path("second")]))
        XCTAssertEqual(try enumerator.next()?.get().relativePath, "a.jpg")
        try FileManager.default.removeItem(atPath: tree.path("second"))
        XCTAssertEqual(failure(of: enumerator.next()), .missingRoot(tree.path("second")))
        XCTAssertNil(enumerator.next(), "and then the enumeration ends")
    }

    /// The error of a failed element, or nil for a file or the end.
    private func failure(of result: Result<IngestedFile, IngestError>?) -> IngestError? {
        guard case .failure(let error)? = result else { return nil }
        return error
    }

    func testVanishedFolderIsReportedAndTheRestContinues() throws {
        try tree.file("a.jpg")
        try tree.file("gone/x.jpg")
        try tree.file("z.jpg")
        var enumerator = FileEnumerator(IngestSource(roots: [tree.root]))
        // The first call lists the root; delete "gone" after that, before the walk reaches it.
        XCTAssertEqual(try enumerator.next()?.get().relativePath, "a.jpg")
        try FileManager.default.removeItem(atPath: tree.path("gone"))
        var rest: [Result<IngestedFile, IngestError>] = []
        while let result = enumerator.next() { rest.append(result) }
        XCTAssertEqual(rest.count, 2)
        XCTAssertEqual(failure(of: rest.first), .unreadable(path: tree.path("gone"), reason: "No such file or directory"))
        XCTAssertEqual(try rest.last?.get().relativePath, "z.jpg")
    }

    func testUnreadableFolderIsReportedAndTheRestContinues() throws {
        try tree.file("a.jpg")
        try tree.file("locked/x.jpg")
        try tree.file("z.jpg")
        XCTAssertEqual(chmod(tree.root, 0o755), 0)
        XCTAssertEqual(chmod(tree.path("locked"), 0), 0)
        let run = try withUnprivilegedFileAccess { IngestRun(IngestSource(roots: [tree.root])) }
        XCTAssertEqual(run.relativePaths, ["a.jpg", "z.jpg"])
        XCTAssertEqual(run.errors, [.unreadable(path: tree.path("locked"), reason: "Permission denied")])
    }

    /// Runs `body` as an unprivileged user would touch files: root reads through `chmod 000`, so as
    /// root this thread's filesystem uid becomes 65534 (nobody) meanwhile. Linux's setfsuid acts
    /// on the calling thread only, and going from uid 0 to another drops CAP_DAC_OVERRIDE and
    /// CAP_DAC_READ_SEARCH until it is set back. (glibc's setfsuid is not in Swift's Glibc module,
    /// hence dlsym.) BadInputTests runs the binary as nobody for the same case end to end.
    private func withUnprivilegedFileAccess<T>(_ body: () throws -> T) throws -> T {
        guard geteuid() == 0 else { return try body() }
        typealias SetFilesystemUID = @convention(c) (UInt32) -> Int32
        let symbol = try XCTUnwrap(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setfsuid"), "glibc's setfsuid")
        let setfsuid = unsafeBitCast(symbol, to: SetFilesystemUID.self)
        _ = setfsuid(65534)
        defer { _ = setfsuid(0) }
        // setfsuid returns the previous uid, changed or not; an invalid uid changes nothing and reads it.
        XCTAssertEqual(setfsuid(UInt32.max), 65534, "the filesystem uid did not change")
        return try body()
    }

    // MARK: - Several roots

    func testSameFileThroughTwoRootsIsYieldedOnce() throws {
        try tree.file("a.jpg")
        try tree.file("sub/b.jpg")
        let run = IngestRun(IngestSource(roots: [tree.root, tree.path("sub"), tree.path("a.jpg")]))
        XCTAssertEqual(run.relativePaths, ["a.jpg", "sub/b.jpg"])
        XCTAssertEqual(run.errors, [])
        // Reversed, the inner root comes first and claims b.jpg under its own relative path.
        let reversed = IngestRun(IngestSource(roots: [tree.path("sub"), tree.root]))
        XCTAssertEqual(reversed.relativePaths, ["b.jpg", "a.jpg"])
    }

    func testFileGivenDirectly() throws {
        let path = try tree.file("pics/one.JPG", bytes: [9, 9])
        try tree.file("pics/two.jpg")
        let run = IngestRun(IngestSource(roots: [path]))
        // A file given directly: the file itself is what it must still resolve to when opened.
        XCTAssertEqual(run.files, [IngestedFile(path: path, root: tree.path("pics"), relativePath: "one.JPG",
                                                size: 2, modified: try XCTUnwrap(run.files.first?.modified),
                                                canonicalRoot: path)])
        XCTAssertEqual(IngestRun(IngestSource(roots: [path], exclude: [try Glob("*.jpg")])).files, [],
                       "filters apply to files given directly too")
    }

    // MARK: - Scale

    func testTwentyThousandFilesStreamInOrder() throws {
        // 20 top folders × 10 sub-folders × 100 files (one sub-folder has 99), plus a file "dNN.jpg" beside each
        // top folder "dNN" (the "." < "/" trap) — 20,000 files in all. Upper- and lower-case names are mixed.
        var expected = 0
        for top in 0..<20 {
            try tree.file(String(format: "d%02d.jpg", top))
            expected += 1
            for sub in 0..<10 {
                let folder = tree.path(String(format: "d%02d/%@%d", top, sub % 2 == 0 ? "S" : "s", sub))
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for index in 0..<(sub == 9 ? 99 : 100) {
                    let name = index % 3 == 0 ? "IMG_\(index).JPG" : "img_\(index).jpg"
                    let descriptor = open(folder + "/" + name, O_CREAT | O_WRONLY, 0o644)
                    XCTAssertGreaterThanOrEqual(descriptor, 0)
                    close(descriptor)
                    expected += 1
                }
            }
        }
        XCTAssertEqual(expected, 20_000)
        var enumerator = FileEnumerator(IngestSource(roots: [tree.root]))
        var count = 0
        var previous: [UInt8] = []
        var outOfOrder = 0
        while let result = enumerator.next() {
            guard case .success(let file) = result else { return XCTFail("unexpected \(result)") }
            let bytes = Array(file.relativePath.utf8)
            if count > 0, !previous.lexicographicallyPrecedes(bytes) { outOfOrder += 1 }
            previous = bytes
            count += 1
        }
        // How fast is for benchmarks/ (bench-incremental.sh); here: every file, in order.
        XCTAssertEqual(count, expected)
        XCTAssertEqual(outOfOrder, 0)
    }
}
