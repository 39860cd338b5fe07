import Foundation
import XCTest
@testable import MedleyTags
import MedleyTestSupport

/// Replays every input the tag fuzz targets ever failed on (Tests/regressions/fuzz/TARGET/,
/// saved by scripts/fuzz.sh) through the product's entry points: each read ends in tags or a
/// TagIOError, never a trap; a round trip (read → write → read) reads back what it wrote.
final class TagFuzzRegressionTests: XCTestCase {
    /// The saved inputs of `target`, name and bytes.
    static func inputs(_ target: String) throws -> [(String, [UInt8])] {
        try FuzzRegressions.files(target).map { ($0.lastPathComponent, [UInt8](try Data(contentsOf: $0))) }
    }

    func testRegressionFolderIsThere() {
        XCTAssertTrue(FileManager.default.fileExists(atPath: FuzzRegressions.root.appendingPathComponent("README.md").path))
    }

    func testReadersOnSavedInputs() throws {
        for (name, bytes) in try Self.inputs("tags") { _ = try? TagIO.read(bytes: bytes); _ = name }
        for container in ["mp3", "mp4", "flac", "ogg", "wav", "aiff", "caf"] {
            for (name, bytes) in try Self.inputs(container) {
                do { _ = try TagIO.read(bytes: bytes, container: container) } catch is TagIOError {} catch {
                    XCTFail("\(container)/\(name): not a TagIOError: \(error)")
                }
            }
        }
    }

    func testRoundTripsOnSavedInputs() throws {
        for container in ["mp3", "mp4", "flac", "ogg", "wav", "aiff", "caf"] {
            for (name, bytes) in try Self.inputs("roundtrip-" + container) {
                guard let first = try? TagIO.read(bytes: bytes, container: container) else { continue }
                guard let written = try? TagIO.write(first, toBytes: bytes, container: container).bytes else { continue }
                guard let second = try? TagIO.read(bytes: written, container: container) else {
                    XCTFail("roundtrip-\(container)/\(name): the file written from readable tags cannot be read back"); continue
                }
                guard let again = try? TagIO.write(second, toBytes: written, container: container).bytes,
                      let third = try? TagIO.read(bytes: again, container: container) else {
                    XCTFail("roundtrip-\(container)/\(name): a file Medley wrote cannot be rewritten"); continue
                }
                XCTAssertEqual(third.entries, second.entries, "roundtrip-\(container)/\(name)")
                XCTAssertEqual(third.artwork, second.artwork, "roundtrip-\(container)/\(name)")
                XCTAssertEqual(third.extra, second.extra, "roundtrip-\(container)/\(name)")
            }
        }
    }
}
