import Foundation
import XCTest
import MedleyFilters
import MedleyTestSupport

/// Replays every input the LUT fuzz targets ever failed on (Tests/regressions/fuzz/{cube,hald}/,
/// saved by scripts/fuzz.sh): each parse ends in a table or a LUTFileError, never a trap. A hald
/// input is laid out as the fuzz target reads it (Fuzz/Cube/CubeFuzz.swift).
final class LUTFuzzRegressionTests: XCTestCase {
    static func inputs(_ target: String) throws -> [[UInt8]] {
        try FuzzRegressions.files(target).map { [UInt8](try Data(contentsOf: $0)) }
    }

    func testSavedInputs() throws {
        for bytes in try Self.inputs("cube") { _ = CubeFile.parse(bytes) }
        for bytes in try Self.inputs("hald") where bytes.count >= 2 {
            let sides = [0, 1, 7, 8, 9, 27, 64]
            let side = sides[Int(bytes[0]) % sides.count], other = bytes[0] & 0x80 != 0 ? side + 1 : side
            _ = HaldCLUT.table(samples: bytes.dropFirst(2).map { Float($0) / 255 }, width: side, height: other, bands: Int(bytes[1]) % 6)
        }
    }
}
