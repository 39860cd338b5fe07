import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// A read that fails part-way fails the sink, however many workers it has. libvips 8.14 (Debian 12's)
/// can return success from a pool whose last worker is still failing, and its tile caches fill the
/// failed tile in black: before the watch in CVipsShim (medley_sink.h), a PNG cut in its last IDAT
/// saved with 8 workers came out "good" in about 70 % of tries (and in about 3 % with 2).
///
/// The file here is cut by the test itself, halfway through the data of its last IDAT chunk, so
/// the bottom rows cannot be decoded: every one of these sinks must fail, every time. Each try is a
/// new race; 200 of them with 8 workers would all have had to lose it for the old code to pass.
final class SinkFailureTests: XCTestCase {
    var work = ""
    let tries = 200

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try Vips.setThreadsPerImage(8)
    }

    override func tearDownWithError() throws {
        try Vips.setThreadsPerImage(ProcessInfo.processInfo.activeProcessorCount)
        try? FileManager.default.removeItem(atPath: work)
    }

    static var fixtures: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures").path
    }

    /// `png` cut halfway through its last IDAT chunk's data (chunks read from the file's own lengths).
    static func cutInLastIDAT(_ png: Data) throws -> Data {
        let bytes = [UInt8](png)
        var offset = 8, lastIDAT: (start: Int, length: Int)?
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let kind = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if kind == "IDAT" { lastIDAT = (offset + 8, length) }
            offset += 12 + length
        }
        let idat = try XCTUnwrap(lastIDAT, "the fixture has IDAT chunks")
        XCTAssertGreaterThan(idat.length, 100, "enough of the last IDAT to cut")
        return Data(bytes[..<(idat.start + idat.length / 2)])
    }

    /// How many of `tries` attempts did not throw; libvips' warnings (one per failed tile) are
    /// collected instead of printed.
    func successes(_ attempt: (Int) throws -> Void) throws -> Int {
        var count = 0
        var messages = LibraryMessages()
        try Vips.collectingMessages(into: &messages) {
            for index in 0..<tries where (try? attempt(index)) != nil { count += 1 }
        }
        return count
    }

    func truncated() throws -> String {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/images/alpha.png"))
        let path = work + "/cut.png"
        try Self.cutInLastIDAT(whole).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testATruncatedPNGFailsEverySaveWithEightWorkers() throws {
        let path = try truncated()
        XCTAssertEqual(Vips.threadsPerImage, 8)
        let saved = try successes { index in
            try VipsImage.open(path, access: .sequential).save(to: work + "/out-\(index).png", format: .png, quality: nil, strip: false)
        }
        XCTAssertEqual(saved, 0, "of \(tries) saves of a truncated PNG with 8 workers, none may succeed")
        var options = SaveOptions()
        options.strip = true
        let savedWithOptions = try successes { index in
            try VipsImage.open(path, access: .sequential).save(to: work + "/opt-\(index).png", format: .png, options: options)
        }
        XCTAssertEqual(savedWithOptions, 0, "the saver with options (strip) too")
    }

    func testATruncatedPNGFailsEveryReductionAndCopy() throws {
        let path = try truncated()
        let open = { try VipsImage.open(path, access: .sequential) }
        XCTAssertEqual(try successes { _ in _ = try open().bandMeans() }, 0, "bandMeans")
        XCTAssertEqual(try successes { _ in _ = try open().histograms() }, 0, "histograms")
        XCTAssertEqual(try successes { _ in _ = try open().copiedToMemory() }, 0, "copiedToMemory")
        XCTAssertEqual(try successes { _ in _ = try open().pixels() }, 0, "pixels")
    }

    /// The inner sinks of libvips that no watch sees: a random-access load decodes into memory
    /// before the first pixel is read. They run with one worker, which cannot lose its error.
    func testATruncatedPNGOpenedForRandomAccessFailsEveryTime() throws {
        let path = try truncated()
        let saved = try successes { index in
            try VipsImage.open(path, access: .random).save(to: work + "/random-\(index).png", format: .png, quality: nil, strip: false)
        }
        XCTAssertEqual(saved, 0, "of \(tries) random-access saves of a truncated PNG, none may succeed")
    }

    /// The watch changes nothing for a file that reads: the whole fixture saves every time with 8 workers,
    /// and vips (the command, one worker) finds the same pixels in the input and the output.
    func testAWholePNGSavesEveryTimeWithTheSamePixels() throws {
        let path = Self.fixtures + "/images/alpha.png"
        for index in 0..<5 {
            let output = work + "/whole-\(index).png"
            try VipsImage.open(path, access: .sequential).save(to: output, format: .png, quality: nil, strip: false)
            let difference = try Self.vips(["subtract", path, output, work + "/diff-\(index).v"])
            XCTAssertEqual(difference.status, 0, difference.output)
            let (status, maximum) = try Self.vips(["max", work + "/diff-\(index).v"])
            let (_, minimum) = try Self.vips(["min", work + "/diff-\(index).v"])
            XCTAssertEqual(status, 0)
            XCTAssertEqual(Double(maximum.trimmingCharacters(in: .whitespacesAndNewlines)), 0, "output \(index)")
            XCTAssertEqual(Double(minimum.trimmingCharacters(in: .whitespacesAndNewlines)), 0, "output \(index)")
        }
    }

    static func vips(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = arguments
        process.environment = ["VIPS_CONCURRENCY": "1", "PATH": "/usr/bin:/bin"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
