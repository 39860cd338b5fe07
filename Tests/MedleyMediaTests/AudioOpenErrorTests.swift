import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// libsndfile keeps a failed open's reason in one global error number: files opened in parallel
/// must each still fail with their own reason.
final class AudioOpenErrorTests: XCTestCase {
    func testParallelOpensEachReportTheirOwnReason() throws {
        let work = NSTemporaryDirectory() + "medley-open-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        // A RIFF/WAVE header with a fmt chunk and no data chunk, and a file that is not there.
        var wav = Array("RIFF".utf8) + [28, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0]
        wav += [1, 0, 1, 0, 0x44, 0xAC, 0, 0, 0x88, 0x58, 0x01, 0, 2, 0, 16, 0]
        let broken = work + "/no-data.wav", missing = work + "/missing.wav", good = work + "/good.wav"
        try Data(wav).write(to: URL(fileURLWithPath: broken))
        // And a good one (a successful open clears the global error number): 100 frames of silence.
        var ok = Array("RIFF".utf8) + [236, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0]
        ok += [1, 0, 1, 0, 0x44, 0xAC, 0, 0, 0x88, 0x58, 0x01, 0, 2, 0, 16, 0] + Array("data".utf8) + [200, 0, 0, 0]
        ok += [UInt8](repeating: 0, count: 200)
        try Data(ok).write(to: URL(fileURLWithPath: good))
        func reason(_ path: String) -> String {
            do { _ = try AudioReader(path: path); return "opened" } catch { return "\(error)" }
        }
        let alone = (broken: reason(broken), missing: reason(missing))
        XCTAssertTrue(alone.broken.hasPrefix("cannot decode: "), alone.broken)
        XCTAssertNotEqual(alone.broken, alone.missing)
        final class Box: @unchecked Sendable { var reasons = [String](repeating: "", count: 4000); let lock = NSLock() }
        XCTAssertEqual(reason(good), "opened")
        let box = Box()
        let paths = [broken, good, missing, good]
        let expected = [alone.broken, "opened", alone.missing, "opened"]
        DispatchQueue.concurrentPerform(iterations: box.reasons.count) { index in
            let got = reason(paths[index % 4])
            box.lock.lock(); box.reasons[index] = got; box.lock.unlock()
        }
        let wrong = box.reasons.indices.filter { box.reasons[$0] != expected[$0 % 4] }
        XCTAssertEqual(wrong.count, 0, "e.g. \(wrong.first.map { box.reasons[$0] } ?? "")")
    }
}
