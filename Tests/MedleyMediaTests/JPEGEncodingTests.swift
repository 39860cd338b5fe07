import Foundation
import MedleyMedia
import XCTest
import MedleyTestSupport

/// `JPEGEncoding` (the quality and subsampling `export.quality: same` keeps) against ImageMagick:
/// its estimate must be `identify -format %Q` and its sampling `%[jpeg:sampling-factor]`, for JPEGs
/// ImageMagick writes at many qualities and samplings here, and for the photo corpus' real JPEGs.
final class JPEGEncodingTests: XCTestCase {
    var work: String!

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "jpeg-encoding-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: work) }

    /// ImageMagick's own reading of the file: quality and sampling factors.
    func identify(_ path: String) throws -> (quality: Int?, sampling: String) {
        let out = try Peer.must("identify", ["-format", "%Q|%[jpeg:sampling-factor]", path]).stdout
        let parts = out.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(parts.count, 2, out)
        let quality = Int(parts[0]).flatMap { $0 == 0 ? nil : $0 }
        return (quality, parts.count > 1 ? parts[1] : "")
    }

    func check(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try identify(path)
        let read = try XCTUnwrap(try JPEGEncoding.read(path: path), path, file: file, line: line)
        XCTAssertEqual(read.quality, expected.quality, path, file: file, line: line)
        XCTAssertEqual(read.samplingText, expected.sampling, path, file: file, line: line)
    }

    func testEstimateIsImageMagicksForEveryQualityAndSampling() throws {
        // A real photograph as the picture (the tables do not depend on it, the test's variety does).
        let source = packageRoot + "/fixtures/images/landscape.jpg"
        for quality in [1, 2, 5, 10, 23, 37, 49, 50, 51, 64, 75, 85, 89, 90, 92, 97, 99, 100] {
            for sampling in ["1x1", "2x2", "2x1"] {
                let path = work + "/q\(quality)-\(sampling).jpg"
                try Peer.must("convert", [source, "-quality", "\(quality)", "-sampling-factor", sampling, path])
                try check(path)
            }
            let grey = work + "/grey\(quality).jpg"
            try Peer.must("convert", [source, "-colorspace", "Gray", "-quality", "\(quality)", grey])
            try check(grey)
        }
    }

    func testEstimateIsImageMagicksForTheCorpusJPEGs() throws {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["MEDLEY_TEST_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache") + "/medley-tests"
        let folder = data + "/photos/photos"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertFalse(names.isEmpty, "the photo corpus is missing under \(folder): run scripts/test-data.sh")
        for name in names { try check(folder + "/" + name) }
    }

    func testNotAJPEGAndCutHeadersAreNil() throws {
        let png = work + "/a.png"
        try Peer.must("convert", ["-size", "8x8", "xc:red", png])
        XCTAssertNil(try JPEGEncoding.read(path: png))
        let jpeg = work + "/a.jpg"
        try Peer.must("convert", ["-size", "8x8", "xc:red", "-quality", "80", jpeg])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        XCTAssertEqual(JPEGEncoding.read(bytes: bytes)?.quality, 80)
        // Cut inside the headers: every prefix shorter than the first scan reads as nothing, never a trap.
        for cut in stride(from: 0, to: min(bytes.count, 400), by: 7) {
            let prefix = Array(bytes.prefix(cut))
            if let read = JPEGEncoding.read(bytes: prefix) { XCTAssertEqual(read.quality, 80, "cut at \(cut)") }
        }
    }

    var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}
