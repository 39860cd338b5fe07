import Foundation
import MedleySystem
import XCTest

/// A failure's class comes from its cause — an errno, a library's code — never from its words.
/// Expected errno values are Linux's (asm-generic/errno-base.h, errno.h): ENOSPC 28, EDQUOT 122,
/// EIO 5, EACCES 13, EPERM 1, ENOENT 2; SQLite's from sqlite3.h: SQLITE_FULL 13, SQLITE_IOERR 10,
/// SQLITE_CORRUPT 11; FFmpeg's AVERROR(e) is −e and AVERROR_INVALIDDATA is −0x41444E49 (libavutil/error.h).
final class FailureClassTests: XCTestCase {
    func testWordsThatSayTheDiskIsFullDoNotMakeAFullDisk() {
        let io = MediaError(.system, "write", "No space left on device", cause: .system(errno: 5))
        XCTAssertNil(io.failureClass)
        let wordsOnly = MediaError(.libvips, "save", "vips2png: write failed: No space left on device")
        XCTAssertNil(wordsOnly.failureClass)
        XCTAssertEqual(io.description, "No space left on device", "the words stay as they were")
    }

    func testTheCauseMakesAFullDiskWhateverTheWords() {
        XCTAssertEqual(MediaError(.system, "write", "cannot write the manifest", cause: .system(errno: 28)).failureClass, .diskFull)
        XCTAssertEqual(MediaError(.system, "write", "over quota", cause: .system(errno: 122)).failureClass, .diskFull)
        XCTAssertEqual(MediaError(.sqlite, "write", "database or disk is full", cause: .library(code: 13)).failureClass, .diskFull)
        XCTAssertEqual(MediaError(.ffmpeg, "encode", "cannot write: I/O error", cause: .library(code: -28)).failureClass, .diskFull)
        XCTAssertEqual(MediaError.system("write", errno: 28).message, String(cString: strerror(28)))
    }

    func testPermissionNotFoundAndCorruptDataByCase() {
        XCTAssertEqual(FailureClass(errno: 13), .permission)
        XCTAssertEqual(FailureClass(errno: 1), .permission)
        XCTAssertEqual(FailureClass(errno: 2), .notFound)
        XCTAssertNil(FailureClass(errno: 5))
        XCTAssertEqual(MediaError(.medley, "read tags", "not a FLAC file", cause: .corruptData).failureClass, .corruptData)
        XCTAssertEqual(MediaError(.ffmpeg, "decode", "Invalid data found", cause: .library(code: -0x4144_4E49)).failureClass, .corruptData)
        XCTAssertEqual(MediaError(.sqlite, "open", "file is not a database", cause: .library(code: 26)).failureClass, .corruptData)
        // An extended code (SQLITE_IOERR_WRITE, 10 | 3<<8) is classed by its primary code: an I/O error is none of these.
        XCTAssertNil(MediaError(.sqlite, "write", "disk I/O error", cause: .library(code: 10 | 3 << 8)).failureClass)
        XCTAssertNil(MediaError(.libvips, "load", "not a known file format", cause: .unspecified).failureClass)
    }

    func testTheSystemErrnoIsKeptAndTheWordsCanChangeWithoutLosingIt() {
        let failure = MediaError.system("rename", errno: 28, path: "/tmp/.medley/tmp/abc-1.png")
        XCTAssertEqual(failure.systemErrno, 28)
        let renamed = failure.rewording { $0.replacingOccurrences(of: "/tmp/.medley/tmp/abc-1.png", with: "/out/a.png") }
        XCTAssertEqual(renamed.path, "/out/a.png")
        XCTAssertEqual(renamed.cause, .system(errno: 28))
        let said = failure.saying("cannot write the tags of a.flac: \(failure)", path: "a.flac")
        XCTAssertEqual(said.failureClass, .diskFull)
        XCTAssertEqual(said.description, "cannot write the tags of a.flac: No space left on device")
    }

    /// Foundation's errors (a FileHandle write) carry the errno as a POSIX error underneath.
    func testTheErrnoInsideAFoundationError() {
        XCTAssertEqual(MediaError.systemErrno(in: POSIXError(.ENOSPC)), 28)
        let wrapped = NSError(domain: NSCocoaErrorDomain, code: 512, userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: 122)])
        XCTAssertEqual(MediaError.systemErrno(in: wrapped), 122)
        XCTAssertNil(MediaError.systemErrno(in: NSError(domain: NSCocoaErrorDomain, code: 4)))
    }
}
