import Foundation
import XCTest
@testable import MedleyMedia
import MedleyTestSupport

/// Replays every input the fuzz targets over MedleyMedia's own byte parsers ever failed on
/// (Tests/regressions/fuzz/{jpeg,webp,icc,mpeg,subtitle}/, saved by scripts/fuzz.sh): each ends in an
/// answer or nil, never a trap.
final class MediaFuzzRegressionTests: XCTestCase {
    func testSavedInputs() throws {
        let profile = Array(repeating: UInt8(0x41), count: 300)
        for file in FuzzRegressions.files("icc") {
            let bytes = [UInt8](try Data(contentsOf: file))
            _ = ICCProfile.problem(bytes); _ = ICCProfile.colourSpace(bytes); _ = ICCProfile.isSRGB(bytes)
        }
        for file in FuzzRegressions.files("jpeg") {
            let bytes = [UInt8](try Data(contentsOf: file))
            if let tagged = JPEGSegments.insertingICCProfile(profile, into: bytes) { XCTAssertGreaterThan(tagged.count, bytes.count) }
        }
        for file in FuzzRegressions.files("webp") {
            let bytes = [UInt8](try Data(contentsOf: file))
            if let stripped = WebPChunks.strippingMetadata(bytes) {
                XCTAssertEqual(WebPChunks.strippingMetadata(stripped), stripped, file.lastPathComponent)
            }
            _ = WebPChunks.strippingMetadata(bytes, keepICC: true)
        }
        // The product's own entry point: the file read from its path.
        for file in FuzzRegressions.files("mpeg") { _ = MPEGFrameScan.count(ofFileAt: file.path) }
        // Subtitle files (the `subtitle` target, over medley_subtitle.c): listed, then written as
        // each text format; an error is an answer too.
        let scratch = NSTemporaryDirectory() + "medley-subtitle-replay-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for file in FuzzRegressions.files("subtitle") {
            let listed = try? Movie.streams(path: file.path)
            for format in SubtitleFileFormat.allCases {
                let cues = try? Movie.extractSubtitle(path: file.path, nth: 0, to: scratch + "." + format.rawValue, format: format)
                if let listed, !listed.streams.contains(where: { $0.kind == .subtitle }) { XCTAssertNil(cues, file.lastPathComponent) }
            }
        }
    }
}
