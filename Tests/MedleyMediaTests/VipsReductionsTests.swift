import Foundation
import MedleyMedia
import MedleyTestSupport
import XCTest

/// The libvips reductions behind `analyze:` and `autoAdjust:`, on pixels whose means and counts
/// are worked out by hand here.
final class VipsReductionsTests: XCTestCase {
    /// 2 × 2 pixels, RGB: (10, 20, 30) three times and (50, 60, 250) once.
    func image() throws -> VipsImage {
        try VipsImage.fromPixels([10, 20, 30, 10, 20, 30, 10, 20, 30, 50, 60, 250], width: 2, height: 2, bands: 3)
    }

    func testBandMeansAreEachBandsMean() throws {
        let means = try image().bandMeans()
        XCTAssertEqual(means.count, 3)
        let expected: [Double] = [(3 * 10 + 50) / 4, (3 * 20 + 60) / 4, (3 * 30 + 250) / 4]
        for band in 0..<3 { XCTAssertEqual(means[band], expected[band], accuracy: 1e-9) }
    }

    func testHistogramsCountEachValuePerBand() throws {
        let counts = try image().histograms()
        XCTAssertEqual(counts.count, 3)
        XCTAssertTrue(counts.allSatisfy { $0.count == 256 && $0.reduce(0, +) == 4 })
        let found: [Int] = [counts[0][10], counts[0][50], counts[1][20], counts[1][60], counts[2][30], counts[2][250]]
        XCTAssertEqual(found, [3, 1, 3, 1, 3, 1])
    }

    func testLuminanceOfGreyIsTheGreyAndOfWhiteIsWhite() throws {
        // libvips' B_W of an sRGB grey keeps its value (Y of a neutral is its linear value, re-encoded).
        let grey = try VipsImage.fromPixels([128, 128, 128, 255, 255, 255], width: 2, height: 1, bands: 3).luminance()
        XCTAssertEqual(grey.bands, 1)
        let counts = try grey.histograms()[0]
        XCTAssertEqual(counts[127] + counts[128] + counts[129], 1, "128 within libvips' rounding")
        XCTAssertEqual(counts[255], 1)
    }

    func testAFloatImageHasNoEightBitHistogramButFailsInsteadOfTrapping() throws {
        let float = try VipsImage.constant(width: 4, height: 4, values: [0.5, 0.5, 0.5])
        XCTAssertThrowsError(try float.histograms())
        XCTAssertEqual(try float.bandMeans(), [0.5, 0.5, 0.5])
    }
}
