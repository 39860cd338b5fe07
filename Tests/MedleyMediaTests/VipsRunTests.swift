import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// `Vips.run`: an item's libvips work, its failure repeated alone and its log messages those of the
/// run whose outcome is the item's. The message comes from libvips itself: a JPEG whose EXIF
/// resolution unit is 7 (only 1–3 exist) makes libvips log "unknown EXIF resolution unit" through
/// GLib each time it parses the EXIF; what one read of the file logs is measured here, outside
/// `Vips.run`, and is what a run that read it once must report.
final class VipsRunTests: XCTestCase {
    var work = ""
    var odd = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-vips-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        odd = work + "/odd-unit.jpg"
        try FileManager.default.copyItem(atPath: SinkFailureTests.fixtures + "/images/landscape.jpg", toPath: odd)
        let exiftool = Process()
        exiftool.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        exiftool.arguments = ["exiftool", "-q", "-overwrite_original", "-n", "-ResolutionUnit=7", odd]
        try exiftool.run()
        exiftool.waitUntilExit()
        XCTAssertEqual(exiftool.terminationStatus, 0, "exiftool sets the odd unit")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    /// Opens the odd file and reads its pixels.
    func readOdd() throws {
        _ = try VipsImage.open(odd, access: .sequential).pixels()
    }

    /// What one read of the odd file logs, collected without `Vips.run`.
    func oneRead() throws -> [String] {
        var messages = LibraryMessages()
        try Vips.collectingMessages(into: &messages) { try readOdd() }
        XCTAssertEqual(messages.lines.count, 1, "\(messages.lines)")
        XCTAssertTrue(messages.lines.first?.hasPrefix("VIPS: unknown EXIF resolution unit") == true, "\(messages.lines)")
        return messages.lines
    }

    func testMessagesOfTheWorkComeBackWithItsValue() throws {
        var messages = LibraryMessages()
        let value = try Vips.run(collectingInto: &messages) { again in
            try readOdd()
            return again
        }
        XCTAssertFalse(value, "a run that succeeds is not repeated")
        XCTAssertEqual(messages.lines, try oneRead())
    }

    func testAFailedRunsMessagesAreNotCountedBesideTheRunAlone() throws {
        // The first run reads the file (its warnings), then fails; the run alone opens it again and
        // succeeds. The item's messages are the run alone's: those of one read, not of two.
        var messages = LibraryMessages()
        var runs: [Bool] = []
        try Vips.run(collectingInto: &messages) { again in
            runs.append(again)
            try readOdd()
            if !again { throw MediaError(.libvips, "test", "failed the first time") }
        }
        XCTAssertEqual(runs, [false, true])
        XCTAssertEqual(messages.lines, try oneRead(), "the failed run's warnings are not the item's")
    }

    func testMessagesAreKeptWhenTheWorkFails() throws {
        var messages = LibraryMessages()
        XCTAssertThrowsError(try Vips.run(collectingInto: &messages) { _ in
            try readOdd()
            throw MediaError(.libvips, "test", "fails every time")
        }) { error in
            XCTAssertTrue(error is MediaError, "\(error)")
        }
        XCTAssertEqual(messages.lines, try oneRead(), "the run alone's, though it failed")
    }
}
