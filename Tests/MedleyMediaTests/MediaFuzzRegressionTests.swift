import Foundation
import XCTest
@testable import MedleyMedia

/// Replays every input the fuzz targets over MedleyMedia's own byte parsers ever failed on
/// (Tests/regressions/fuzz/{jpeg,webp,icc,mpeg}/, saved by scripts/fuzz.sh): each ends in an
/// answer or nil, never a trap.
final class MediaFuzzRegressionTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("regressions/fuzz")

    static func files(_ target: String) -> [URL] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    func testSavedInputs() throws {
        let profile = Array(repeating: UInt8(0x41), count: 300)
        for file in Self.files("icc") {
            let bytes = [UInt8](try Data(contentsOf: file))
            _ = ICCProfile.problem(bytes); _ = ICCProfile.colourSpace(bytes); _ = ICCProfile.isSRGB(bytes)
        }
        for file in Self.files("jpeg") {
            let bytes = [UInt8](try Data(contentsOf: file))
            if let tagged = JPEGSegments.insertingICCProfile(profile, into: bytes) { XCTAssertGreaterThan(tagged.count, bytes.count) }
        }
        for file in Self.files("webp") {
            let bytes = [UInt8](try Data(contentsOf: file))
            if let stripped = WebPChunks.strippingMetadata(bytes) {
                XCTAssertEqual(WebPChunks.strippingMetadata(stripped), stripped, file.lastPathComponent)
            }
            _ = WebPChunks.strippingMetadata(bytes, keepICC: true)
        }
        // The product's own entry point: the file read from its path.
        for file in Self.files("mpeg") { _ = MPEGFrameScan.count(ofFileAt: file.path) }
    }
}
