import Foundation
import MedleyMedia
import XCTest
import MedleyTestSupport

/// `RawFile` (LibRaw) against LibRaw's own tools and exiftool, on the camera RAW corpus
/// `fixtures/realworld/make-raw.sh` builds from Debian's packages (`scripts/test-data.sh`):
/// Canon EOS 30D's full-size CR2, and exiftool's header-only RAWs of ten cameras.
/// - sizes, camera and exposure: `raw-identify -v` (libraw-bin) read line by line here;
/// - developed pixels: `dcraw_emu -w -T -6 -g 2.4 12.92` (the same LibRaw settings through its own
///   program), compared sample by sample (mean absolute difference and PSNR, computed here);
/// - the preview: byte for byte `exiftool -b -PreviewImage` (or `-JpgFromRaw`, the larger);
/// - damaged files: cut short and with a corrupt data header, each refused with words naming RAW.
class RawCorpusCase: XCTestCase {
    /// The corpus, or a failure saying how to make it.
    static let corpus: String = {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["MEDLEY_TEST_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache") + "/medley-tests"
        return data + "/realworld-raw/raw"
    }()
    static var fullSize: String { corpus + "/full/IMG_5952.CR2" }

    var work = ""

    override func setUpWithError() throws {
        for part in ["full", "tiny"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.corpus + "/\(part)/.done"),
                          "the RAW corpus is missing under \(Self.corpus): run scripts/test-data.sh")
        }
        work = NSTemporaryDirectory() + "medley-raw-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    func corpusFiles() throws -> [String] {
        try ["full", "tiny"].flatMap { part in
            try FileManager.default.contentsOfDirectory(atPath: Self.corpus + "/" + part)
                .filter { !$0.hasPrefix(".") }.sorted().map { Self.corpus + "/\(part)/" + $0 }
        }
    }

    /// `raw-identify -v`'s "Key: value" lines (the first of each key).
    func rawIdentify(_ path: String) throws -> [String: String]? {
        let result = try Peer.run("raw-identify", ["-v", path])
        if result.stdout.contains("Cannot decode") || result.stderr.contains("Cannot decode") { return nil }
        XCTAssertEqual(result.status, 0, result.stderr)
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") where !line.hasPrefix("\t") && !line.hasPrefix(" ") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon]), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if fields[key] == nil { fields[key] = value }
        }
        return fields
    }

    /// "3596 x 2360" → (3596, 2360).
    func size(_ text: String?) throws -> (Int, Int) {
        let parts = try XCTUnwrap(text).split(separator: "x").map { $0.trimmingCharacters(in: .whitespaces) }
        return (try XCTUnwrap(Int(parts[0])), try XCTUnwrap(Int(parts[1])))
    }

    // MARK: - develop

    /// Samples of a 16-bit image file as `vips rawsave` writes them (machine order).
    func samples16(_ path: String) throws -> [UInt16] {
        let raw = work + "/" + UUID().uuidString + ".raw"
        try Peer.must("vips", ["rawsave", path, raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    /// Mean absolute difference (in 16-bit steps) and PSNR (dB, peak 65535) of two pictures, from their definitions.
    func compare(_ a: [UInt16], _ b: [UInt16]) throws -> (meanAbs: Double, psnr: Double) {
        XCTAssertEqual(a.count, b.count)
        guard a.count == b.count, !a.isEmpty else { throw XCTSkip("different sizes") }
        var absolute = 0.0, squared = 0.0
        for index in a.indices {
            let difference = Double(a[index]) - Double(b[index])
            absolute += abs(difference)
            squared += difference * difference
        }
        let mse = squared / Double(a.count)
        return (absolute / Double(a.count), mse == 0 ? .infinity : 10 * log10(65535 * 65535 / mse))
    }

    /// Develops `path` with Medley and with `dcraw_emu -w -T -6 -g 2.4 12.92` and compares the two.
    func assertDevelopsAsDcrawEmu(_ path: String, expectedSize: (Int, Int), file: StaticString = #filePath, line: UInt = #line) throws {
        let developed = try RawFile.develop(path)
        XCTAssertEqual(developed.width, expectedSize.0, file: file, line: line)
        XCTAssertEqual(developed.height, expectedSize.1, file: file, line: line)
        XCTAssertEqual(developed.bands, 3, file: file, line: line)
        XCTAssertEqual(developed.bitDepth, 16, file: file, line: line)
        let ours = work + "/medley.tif", theirs = work + "/dcraw_emu.tif"
        try developed.save(to: ours, format: .tiff, quality: nil, strip: true)
        try Peer.must("dcraw_emu", ["-w", "-T", "-6", "-g", "2.4", "12.92", "-o", "1", "-Z", theirs, path])
        XCTAssertEqual(try Peer.must("vipsheader", ["-f", "width", theirs]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "\(expectedSize.0)", file: file, line: line)
        XCTAssertEqual(try Peer.must("vipsheader", ["-f", "height", theirs]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                       "\(expectedSize.1)", file: file, line: line)
        let (meanAbs, psnr) = try compare(try samples16(ours), try samples16(theirs))
        // The same library with the same settings: measured identical (PSNR ∞) on this machine; the tolerance
        // leaves room for another build of LibRaw rounding its demosaic differently.
        // Tolerance: under 1 sixteen-bit step on average, and PSNR over 80 dB.
        print("develop vs dcraw_emu, \((path as NSString).lastPathComponent): mean absolute difference \(meanAbs) (16-bit steps), PSNR \(psnr) dB")
        XCTAssertLessThan(meanAbs, 1.0, "mean absolute difference \(meanAbs)", file: file, line: line)
        XCTAssertGreaterThan(psnr, 80, "PSNR \(psnr) dB", file: file, line: line)
    }

}

/// Header, preview and damage: seconds (the fast tier).
final class RawFileTests: RawCorpusCase {
    // MARK: - identify

    func testHeaderAgreesWithRawIdentifyOnEveryFileOfTheCorpus() throws {
        var identified = 0, refused = 0
        for path in try corpusFiles() {
            let name = (path as NSString).lastPathComponent
            guard let fields = try rawIdentify(path) else {
                // LibRaw's own tool cannot read it either (the CR2 stub, X3F): refused in words naming RAW.
                XCTAssertThrowsError(try RawFile.identify(path), name) { error in
                    let error = error as? MediaError
                    XCTAssertEqual(error?.library, .libraw, name)
                    XCTAssertTrue(error?.message.hasPrefix("RAW file: LibRaw: ") == true, "\(name): \(String(describing: error))")
                }
                refused += 1
                continue
            }
            let identity = try RawFile.identify(path)
            let sensor = try size(fields["Full size"]), output = try size(fields["Output size"])
            XCTAssertEqual(identity.sensorWidth, sensor.0, name)
            XCTAssertEqual(identity.sensorHeight, sensor.1, name)
            // raw-identify prints the output size upright (after the flip).
            XCTAssertEqual(identity.uprightWidth, output.0, name)
            XCTAssertEqual(identity.uprightHeight, output.1, name)
            let exifOrientation = ["0": 1, "3": 3, "5": 8, "6": 6][fields["Image flip"] ?? ""]
            XCTAssertEqual(identity.orientation, exifOrientation, name)
            // "Camera: Canon EOS 30D ID: 0x80000234": make, then model.
            let camera = try XCTUnwrap(fields["Camera"], name)
            XCTAssertTrue(camera.hasPrefix(identity.make + " " + identity.model), "\(name): \(camera) vs \(identity.make) \(identity.model)")
            if let iso = fields["ISO speed"].flatMap(Double.init) { XCTAssertEqual(identity.iso, iso, accuracy: 0.5, name) }
            if let aperture = fields["Aperture"]?.dropFirst(2), let value = Double(aperture) {
                XCTAssertEqual(identity.aperture, value, accuracy: 0.05, name)
            }
            identified += 1
        }
        // Nine cameras' headers read, and the two LibRaw 0.20 refuses (a CR2 stub without its raw IFD, X3F) at least.
        XCTAssertGreaterThanOrEqual(identified, 9)
        XCTAssertGreaterThanOrEqual(refused, 2)
    }

    func testExposureAndTimeOfTheFullSizeCR2AsExiftoolReadsThem() throws {
        let identity = try RawFile.identify(Self.fullSize)
        let json = try Peer.must("exiftool", ["-n", "-j", "-Make", "-Model", "-ISO", "-ExposureTime", "-FNumber", "-FocalLength",
                                              "-LensModel", "-DateTimeOriginal", Self.fullSize])
        let tags = try XCTUnwrap((try JSONSerialization.jsonObject(with: json.data) as? [[String: Any]])?.first)
        XCTAssertEqual(identity.make, tags["Make"] as? String)
        XCTAssertEqual(identity.camera, tags["Model"] as? String)
        XCTAssertEqual(identity.iso, try XCTUnwrap(tags["ISO"] as? Double), accuracy: 0.5)
        XCTAssertEqual(identity.shutter, try XCTUnwrap(tags["ExposureTime"] as? Double), accuracy: 1e-6)
        XCTAssertEqual(identity.aperture, try XCTUnwrap(tags["FNumber"] as? Double), accuracy: 0.01)
        XCTAssertEqual(identity.focalLength, try XCTUnwrap(tags["FocalLength"] as? Double), accuracy: 0.01)
        // LibRaw writes Canon's "EF-S18-55mm" with a space after the mount ("EF-S 18-55mm"): the same name otherwise.
        XCTAssertEqual(identity.lens.replacingOccurrences(of: " ", with: ""),
                       (tags["LensModel"] as? String)?.replacingOccurrences(of: " ", with: ""))
        // exiftool's "2009:07:21 13:03:20" read in the local time zone, as LibRaw reads the camera's clock.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        XCTAssertEqual(identity.taken, formatter.date(from: try XCTUnwrap(tags["DateTimeOriginal"] as? String)))
    }

    // MARK: - preview

    func testPreviewIsExiftoolsLargestEmbeddedJPEGByteForByte() throws {
        var compared = 0, refused: [String] = []
        for path in try corpusFiles() {
            let name = (path as NSString).lastPathComponent
            let candidates = try ["-PreviewImage", "-JpgFromRaw"].map { try Peer.run("exiftool", ["-b", $0, path]).data }
                .filter { $0.starts(with: [0xFF, 0xD8, 0xFF]) }
            guard let largest = candidates.max(by: { $0.count < $1.count }) else { continue }
            guard (try? RawFile.identify(path)) != nil else {
                // LibRaw 0.20 reads no X3F at all, so not its preview either (exiftool finds a JpgFromRaw in the DP2 stub).
                refused.append(name)
                continue
            }
            XCTAssertEqual(Data(try RawFile.preview(path)), largest, name)
            compared += 1
        }
        // The CR2's PreviewImage, the RAF's PreviewImage and the RW2's JpgFromRaw.
        XCTAssertEqual(compared, 3)
        XCTAssertEqual(refused, ["SigmaDP2.x3f"])
    }

    func testAFileWithoutAPreviewSaysSoNamingTheCamera() throws {
        XCTAssertThrowsError(try RawFile.preview(Self.corpus + "/tiny/Nikon.nef")) { error in
            let message = (error as? MediaError)?.message ?? "\(error)"
            XCTAssertTrue(message.hasPrefix("RAW file (Nikon D70): LibRaw: "), message)
        }
    }

    // MARK: - damage

    func testATruncatedRAWFailsWithWordsNamingRAWAndTheCamera() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fullSize))
        let cut = work + "/cut.CR2"
        try bytes.prefix(bytes.count * 2 / 5).write(to: URL(fileURLWithPath: cut))
        // Its header is whole: identified. Its pixels are not: developing fails, as dcraw_emu's does.
        XCTAssertEqual(try RawFile.identify(cut).camera, "Canon EOS 30D")
        XCTAssertThrowsError(try RawFile.develop(cut)) { error in
            let error = error as? MediaError
            XCTAssertEqual(error?.library, .libraw)
            XCTAssertTrue(error?.message.hasPrefix("RAW file (Canon EOS 30D): LibRaw: ") == true, String(describing: error))
        }
        let peer = try Peer.run("dcraw_emu", ["-w", "-T", "-Z", work + "/peer.tif", cut])
        XCTAssertTrue((peer.stdout + peer.stderr).contains("Cannot unpack"), peer.stdout + peer.stderr)
    }

    func testACorruptRawDataHeaderFailsAsDcrawEmuRefusesIt() throws {
        // The CR2's raw data is a lossless JPEG at IFD3's StripOffsets (exiftool reads where): its SOF/Huffman
        // header zeroed.
        let offsets = try Peer.must("exiftool", ["-n", "-s3", "-IFD3:StripOffsets", Self.fullSize]).stdout
        let offset = try XCTUnwrap(Int(offsets.trimmingCharacters(in: .whitespacesAndNewlines)))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fullSize))
        bytes.replaceSubrange(offset..<(offset + 64), with: Data(count: 64))
        let corrupt = work + "/corrupt.CR2"
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        let peer = try Peer.run("dcraw_emu", ["-w", "-T", "-Z", work + "/peer.tif", corrupt])
        XCTAssertTrue((peer.stdout + peer.stderr).contains("Cannot"), peer.stdout + peer.stderr)
        XCTAssertThrowsError(try RawFile.develop(corrupt)) { error in
            let error = error as? MediaError
            XCTAssertEqual(error?.library, .libraw)
            XCTAssertTrue(error?.message.hasPrefix("RAW file") == true && error?.message.contains("LibRaw: ") == true,
                          String(describing: error))
            XCTAssertEqual(error?.cause, .corruptData)
        }
    }

}

/// Developed pictures against `dcraw_emu`'s: a full-size CR2 developed twice per test (the slow tier).
final class RawDevelopTests: RawCorpusCase {
    func testDevelopMatchesDcrawEmuOnTheFullSizeCR2() throws {
        let fields = try XCTUnwrap(try rawIdentify(Self.fullSize))
        try assertDevelopsAsDcrawEmu(Self.fullSize, expectedSize: try size(fields["Output size"]))
    }

    func testDevelopTurnsAPortraitCR2UprightAsDcrawEmuDoes() throws {
        // The same photograph with its orientation set to "rotate 90 CW" by exiftool: LibRaw's flip 6.
        let portrait = work + "/portrait.CR2"
        try FileManager.default.copyItem(atPath: Self.fullSize, toPath: portrait)
        try Peer.must("exiftool", ["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", portrait])
        let fields = try XCTUnwrap(try rawIdentify(portrait))
        XCTAssertEqual(fields["Image flip"], "6")
        let identity = try RawFile.identify(portrait)
        XCTAssertEqual(identity.orientation, 6)
        let upright = try size(fields["Output size"]), landscape = try size(try rawIdentify(Self.fullSize)?["Output size"])
        XCTAssertEqual(upright.0, landscape.1)
        XCTAssertEqual(upright.1, landscape.0)
        XCTAssertEqual(identity.uprightWidth, upright.0)
        XCTAssertEqual(identity.uprightHeight, upright.1)
        XCTAssertEqual(identity.width, landscape.0, "stored as the sensor lies")
        try assertDevelopsAsDcrawEmu(portrait, expectedSize: upright)
    }

    func testCheckRunsBeforeAnyPixelIsUnpacked() throws {
        struct TooBig: Error {}
        var seen: RawFile.Identity?
        XCTAssertThrowsError(try RawFile.develop(Self.fullSize) { identity in
            seen = identity
            throw TooBig()
        }) { XCTAssertTrue($0 is TooBig, "\($0)") }
        XCTAssertEqual(seen?.sensorWidth, 3596)
    }

    func testHeaderOnlyRAWsFailToDevelopAlone() throws {
        // exiftool's stubs keep their headers and lose their pixels: LibRaw notices the missing data for these.
        for (name, camera) in [("CanonRaw.cr3", "Canon EOS M50"), ("CanonRaw.crw", "Canon EOS 300D"), ("Nikon.nef", "Nikon D70"),
                               ("FujiFilm.raf", "Fujifilm S5Pro"), ("Panasonic.rw2", "Panasonic DMC-LX3")] {
            XCTAssertThrowsError(try RawFile.develop(Self.corpus + "/tiny/" + name), name) { error in
                let message = (error as? MediaError)?.message ?? "\(error)"
                XCTAssertTrue(message.hasPrefix("RAW file (\(camera)): LibRaw: "), "\(name): \(message)")
            }
        }
    }
}
