import Foundation
@testable import MedleyCore
import MedleyMedia
import MedleyStore
import XCTest

/// The run stops on a full disk decided by the failure's cause, carried through `ItemFailure`,
/// the file-system adapter and the run state — never by searching the words.
final class DiskFullTests: XCTestCase {
    private let noSpace = "No space left on device", quota = "Disk quota exceeded"  // glibc's strerror(28), strerror(122)

    func testAnItemFailureIsADiskFullByItsCauseNotItsWords() {
        let worded = ItemFailure(.output, "cannot put the result in place at /out/a.png: /out: \(noSpace)")
        XCTAssertNil(DiskFull.words(for: worded), "words alone are not a full disk")
        let io = ItemFailure(.output, "cannot write: \(noSpace)", cause: MediaError.system("write", errno: EIO))
        XCTAssertNil(DiskFull.words(for: io))
        let full = ItemFailure(.output, "cannot put the result in place", cause: MediaError.system("rename", errno: ENOSPC))
        XCTAssertEqual(DiskFull.words(for: full), noSpace)
        XCTAssertEqual(ItemFailure(MediaError(.ffmpeg, "encode", "cannot write: End of file", cause: .system(errno: EDQUOT))).failureClass, .diskFull)
        XCTAssertEqual(DiskFull.words(for: ItemFailure(MediaError.system("write", errno: EDQUOT))), quota)
    }

    func testFileSystemAndRunStateFailuresCarryTheirCause() {
        XCTAssertEqual(DiskFull.words(for: FileSystemFailure(path: "/out/.medley/tmp", kind: .system(ENOSPC))), noSpace)
        XCTAssertNil(DiskFull.words(for: FileSystemFailure(path: "/out/a", kind: .link)))
        XCTAssertEqual(FileSystemFailure(path: "/out/a", kind: .system(EACCES)).failureClass, .permission)
        let full = StateError.cannotWrite(path: "/out/.medley/state.sqlite",
                                          cause: MediaError(.sqlite, "write", "database or disk is full", cause: .library(code: 13)))
        XCTAssertEqual(full.description, "cannot write the run state /out/.medley/state.sqlite: database or disk is full")
        XCTAssertEqual(DiskFull.words(for: full), noSpace)
        let locked = StateError.cannotWrite(path: "/s", cause: MediaError(.sqlite, "write", "database or disk is full (not)", cause: .library(code: 5)))
        XCTAssertNil(DiskFull.words(for: locked), "SQLITE_BUSY is no full disk, whatever its words")
    }

    /// An encoder's error names this run's temporary file; the output's name replaces it, and the cause survives.
    func testRenamingTheTemporaryKeepsTheCause() {
        let inner = MediaError(.libvips, "save", "vips2png: unable to write to target /o/.medley/tmp/x-1.png", cause: .system(errno: ENOSPC),
                               path: "/o/.medley/tmp/x-1.png")
        let renamed = AtomicOutput.naming("/o/a.png", for: "/o/.medley/tmp/x-1.png", in: ItemFailure(inner, .output))
        guard let failure = renamed as? ItemFailure else { return XCTFail("\(renamed)") }
        XCTAssertEqual(failure.reason, "vips2png: unable to write to target /o/a.png")
        XCTAssertEqual((failure.cause as? MediaError)?.path, "/o/a.png")
        XCTAssertEqual(failure.failureClass, .diskFull)
    }
}
