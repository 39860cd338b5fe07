import Foundation
import XCTest

/// Camera RAW files through `medley run` and `medley probe` (issue 29, part 1), on the corpus
/// `fixtures/realworld/make-raw.sh` builds: Canon EOS 30D's full-size CR2 and exiftool's
/// header-only RAWs. Expected sizes come from `raw-identify -v` and exiftool, outputs are read
/// back by vipsheader; damaged files are made here from the CR2.
final class RawRunTests: EndToEndCase {
    static let corpus = Tool.testData + "/realworld-raw/raw"
    static let cr2 = corpus + "/full/IMG_5952.CR2"

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.corpus + "/full/.done"),
                      "the RAW corpus is missing under \(Self.corpus): run scripts/test-data.sh")
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
    }

    /// Runs `pipeline` and returns the result and the manifest lines of job `job`, by input file name.
    func run(_ text: String, job: String, root: String = "out", extra: [String] = []) throws -> (result: Tool.Result, records: [String: [String: Any]]) {
        let result = try Tool.medley(["run", try pipeline(text)] + extra)
        let manifest = (try? String(contentsOfFile: work + "/\(root)/.medley/manifest-\(job).jsonl", encoding: .utf8)) ?? ""
        var records: [String: [String: Any]] = [:]
        for line in manifest.split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[((record["input"] as? String ?? "") as NSString).lastPathComponent] = record
        }
        return (result, records)
    }

    /// raw-identify -v's "W x H" after `key`.
    func rawIdentifySize(_ path: String, _ key: String) throws -> (Int, Int) {
        let out = try Tool.run("raw-identify", ["-v", path]).stdout
        let line = try XCTUnwrap(out.split(separator: "\n").first { $0.hasPrefix(key + ":") })
        let numbers = line.dropFirst(key.count + 1).split(separator: "x").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        XCTAssertEqual(numbers.count, 2, String(line))
        return (numbers[0], numbers[1])
    }

    func size(_ path: String) throws -> (Int, Int) {
        (try XCTUnwrap(Int(try Tool.vipsHeader(path, "width"))), try XCTUnwrap(Int(try Tool.vipsHeader(path, "height"))))
    }

    func testDevelopAndPreviewBecomeJPEGsOfTheSizesLibRawAndExiftoolGive() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: developed
                ingest: { from: [in] }
                export: { to: out/developed, format: jpeg, quality: 90 }
              - name: previews
                ingest: { from: [in], raw: preview }
                export: { to: out/previews, format: jpeg, quality: 90 }
            """, job: "developed", root: "out/developed")
        XCTAssertEqual(result.status, 0, result.stderr)
        let developed = try size(work + "/out/developed/IMG_5952.jpg")
        let output = try rawIdentifySize(Self.cr2, "Output size")
        XCTAssertEqual(developed.0, output.0)
        XCTAssertEqual(developed.1, output.1)
        // Its pixels are dcraw_emu's (same settings) made 8-bit by libvips: the same mean, to a rounding.
        let peer = work + "/dcraw_emu.tiff"
        XCTAssertEqual(try Tool.run("dcraw_emu", ["-w", "-T", "-6", "-g", "2.4", "12.92", "-Z", peer, Self.cr2]).status, 0)
        try Tool.vips(["copy", peer, work + "/dcraw_emu.jpg[Q=90]"])
        let mean = { (path: String) in Double(try Tool.run("vips", ["avg", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(try XCTUnwrap(try mean(work + "/out/developed/IMG_5952.jpg")), try XCTUnwrap(try mean(work + "/dcraw_emu.jpg")),
                       accuracy: 0.5)
        // The preview: the size of the JPEG exiftool extracts.
        let extracted = work + "/exiftool-preview.jpg"
        try Tool.run("exiftool", ["-b", "-PreviewImage", Self.cr2]).data.write(to: URL(fileURLWithPath: extracted))
        let preview = try size(work + "/out/previews/IMG_5952.jpg")
        let expected = try size(extracted)
        XCTAssertEqual(preview.0, expected.0)
        XCTAssertEqual(preview.1, expected.1)
        // The manifest files it as an image with the sensor's size.
        let record = try XCTUnwrap(records["IMG_5952.CR2"])
        XCTAssertEqual(record["mediaType"] as? String, "image")
        let properties = try XCTUnwrap(record["properties"] as? [String: Any])
        let sensor = try rawIdentifySize(Self.cr2, "Full size")
        XCTAssertEqual(properties["sensorWidth"] as? Int, sensor.0)
        XCTAssertEqual(properties["sensorHeight"] as? Int, sensor.1)
        XCTAssertEqual(properties["format"] as? String, "raw")
        XCTAssertEqual(properties["exif.Model"] as? String,
                       try Tool.run("exiftool", ["-s3", "-Model", Self.cr2]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testAPreviewSmallerThanTheSizeAskedIsAWarning() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: big
                ingest: { from: [in], raw: preview }
                filters:
                  - resize: { width: 3000, height: 3000, mode: aspectFit, enlarge: false }
                export: { to: out, format: jpeg }
            """, job: "big")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = try XCTUnwrap(records["IMG_5952.CR2"]?["warnings"] as? [String])
        // exiftool's PreviewImage is 1728 × 1152, smaller than the 3000 × 3000 box.
        XCTAssertTrue(warnings.contains { $0.contains("embedded preview is 1728 × 1152") && $0.contains("3000 × 3000") }, "\(warnings)")
        XCTAssertEqual(try size(work + "/out/IMG_5952.jpg").0, 1728)
    }

    /// exiftool's reading of a file (`-G1 -n`), field → value.
    func exiftool(_ path: String) throws -> [String: Any] {
        let data = try Tool.run("exiftool", ["-G1", "-n", "-j", path]).data
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
    }

    /// The RAW's EXIF — maker notes too — goes into its JPEG and TIFF outputs field by field as exiftool
    /// reads them in the CR2; with `strip: true` none of it, and no warning either way.
    func testCameraMetadataIsCarriedFieldByFieldUnlessStripped() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: keep
                ingest: { from: [in], raw: preview }
                export: { to: out/jpeg, format: jpeg }
              - name: tiff
                ingest: { from: [in], raw: preview }
                filters: [ { resize: { width: 300 } } ]
                export: { to: out/tiff, format: tiff }
              - name: stripped
                ingest: { from: [in], raw: preview }
                export: { to: out/stripped, format: jpeg, strip: true }
            """, job: "keep", root: "out/jpeg")
        XCTAssertEqual(result.status, 0, result.stderr)
        let source = try exiftool(Self.cr2)
        // The CR2's own layout (its IFD0 describes the full-size JPEG inside it, and the preview's place):
        // a description of that file, not of the picture.
        let layout: Set<String> = ["IFD0:ImageWidth", "IFD0:ImageHeight", "IFD0:BitsPerSample", "IFD0:Compression",
                                   "IFD0:PreviewImageStart", "IFD0:PreviewImageLength", "IFD0:PreviewImage",
                                   "IFD0:StripOffsets", "IFD0:StripByteCounts"]
        // exiv2 0.27 writes Canon's camera settings again one entry short (LensType) and its image size as 0
        // where the camera wrote -1: exiv2's re-encoding of the maker note, not Medley's choice.
        let exiv2Rewrites: Set<String> = ["Canon:LensType", "Canon:CanonImageSize"]
        let groups = ["IFD0:", "ExifIFD:", "GPS:", "InteropIFD:", "Canon:"]
        for (job, file) in [("keep", "out/jpeg/IMG_5952.jpg"), ("tiff", "out/tiff/IMG_5952.tif")] {
            let output = try exiftool(work + "/" + file)
            let (width, height) = try size(work + "/" + file)
            var checked = 0
            for (field, value) in source where groups.contains(where: field.hasPrefix) && !layout.contains(field) && !exiv2Rewrites.contains(field) {
                switch field {
                case "ExifIFD:ExifImageWidth": XCTAssertEqual(output[field] as? Int, width, "\(job) \(field)")
                case "ExifIFD:ExifImageHeight": XCTAssertEqual(output[field] as? Int, height, "\(job) \(field)")
                case "IFD0:Orientation": XCTAssertEqual(output[field] as? Int, 1, "\(job): the picture stands upright")
                case "IFD0:XResolution", "IFD0:YResolution", "IFD0:ResolutionUnit" where job == "tiff":
                    continue  // a TIFF's own resolution tags are its encoder's
                default:
                    XCTAssertEqual("\(output[field] ?? "missing")", "\(value)", "\(job) \(field)")
                }
                checked += 1
            }
            XCTAssertGreaterThan(checked, 150, "\(job): the CR2's fields were compared")
            let warnings = records["IMG_5952.CR2"]?["warnings"] as? [String] ?? []
            XCTAssertFalse(warnings.contains { $0.contains("camera metadata") }, "\(warnings)")
        }
        let stripped = try exiftool(work + "/out/stripped/IMG_5952.jpg")
        XCTAssertNil(stripped["IFD0:Make"])
        XCTAssertFalse(stripped.keys.contains { $0.hasPrefix("Canon:") })
    }

    /// An output exiv2 cannot write (HEIF) says the camera metadata is not carried.
    func testCameraMetadataAnOutputCannotHoldIsAWarning() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: heic
                ingest: { from: [in], raw: preview }
                filters: [ { resize: { width: 200 } } ]
                export: { to: out, format: heic }
            """, job: "heic")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertNil(try exiftool(work + "/out/IMG_5952.heic")["IFD0:Make"], "what the warning says is missing is missing")
        let warnings = records["IMG_5952.CR2"]?["warnings"] as? [String] ?? []
        XCTAssertTrue(warnings.contains { $0.contains("camera metadata") && $0.contains(".heic") }, "\(warnings)")
    }

    func testAPortraitRAWsPreviewIsTurnedUpright() throws {
        let portrait = work + "/in/portrait.CR2"
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: portrait)
        // exiftool sets the RAW's orientation to "rotate 90 CW"; its preview JPEG stays as the sensor lies.
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", portrait]).status, 0)
        let extracted = work + "/preview.jpg"
        try Tool.run("exiftool", ["-b", "-PreviewImage", portrait]).data.write(to: URL(fileURLWithPath: extracted))
        let stored = try size(extracted)
        XCTAssertGreaterThan(stored.0, stored.1, "the embedded preview is landscape")
        let (result, _) = try run("""
            version: 1
            jobs:
              - name: portrait
                ingest: { from: [in], raw: preview }
                export: { to: out, format: jpeg }
            """, job: "portrait")
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try size(work + "/out/portrait.jpg")
        XCTAssertEqual(written.0, stored.1)
        XCTAssertEqual(written.1, stored.0)
        let orientation = try Tool.run("exiftool", ["-n", "-s3", "-Orientation", work + "/out/portrait.jpg"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(orientation == "" || orientation == "1", "no viewer turns it again: \(orientation)")
    }

    func testDamagedRAWsFailAloneNamingRAWAndTheCamera() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.cr2))
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/good.CR2")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: work + "/in/truncated.CR2"))
        // The raw data's lossless JPEG header (where exiftool says IFD3's strip starts) zeroed.
        let offset = try XCTUnwrap(Int(try Tool.run("exiftool", ["-n", "-s3", "-IFD3:StripOffsets", Self.cr2]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        var corrupt = bytes
        corrupt.replaceSubrange(offset..<(offset + 64), with: Data(count: 64))
        try corrupt.write(to: URL(fileURLWithPath: work + "/in/corrupt.CR2"))
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: raws
                ingest: { from: [in] }
                filters:
                  - resize: { width: 800, height: 800, mode: aspectFit }
                export: { to: out, format: jpeg }
            """, job: "raws")
        XCTAssertEqual(result.status, 1, "a failed item fails the run")
        XCTAssertEqual(records["good.CR2"]?["status"] as? String, "succeeded")
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/good.jpg"))
        for name in ["truncated.CR2", "corrupt.CR2"] {
            XCTAssertEqual(records[name]?["status"] as? String, "failed", name)
            let error = records[name]?["error"] as? String ?? ""
            XCTAssertTrue(error.contains("RAW file") && error.contains("LibRaw: "), "\(name): \(error)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/" + (name as NSString).deletingPathExtension + ".jpg"))
        }
        // The truncated file's header is whole: its camera is named.
        XCTAssertTrue((records["truncated.CR2"]?["error"] as? String ?? "").contains("RAW file (Canon EOS 30D)"))
    }

    func testACR3IsAnImageNeverAMovie() throws {
        let cr3 = Self.corpus + "/tiny/CanonRaw.cr3"
        // ISO media with the brand "crx " (exiftool prints it without its trailing space).
        XCTAssertEqual(try Tool.run("exiftool", ["-s3", "-MajorBrand", "-n", cr3]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "crx")
        let probe = try Tool.medley(["probe", cr3])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        XCTAssertTrue(probe.stdout.contains("mediaType: image"), probe.stdout)
        XCTAssertTrue(probe.stdout.contains("format: raw"), probe.stdout)
        // A job that takes movies ignores it.
        try FileManager.default.copyItem(atPath: cr3, toPath: work + "/in/CanonRaw.cr3")
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: movies
                ingest: { from: [in], media: [movie] }
                poster: { at: 0 }
                export: { to: out, format: jpeg }
            """, job: "movies")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records["CanonRaw.cr3"]?["status"] as? String, "ignored")
    }

    func testTheSensorCountsAgainstMaxPixels() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let sensor = try rawIdentifySize(Self.cr2, "Full size")
        // A limit one pixel under the sensor's frame: develop is refused before unpacking, the preview is not.
        let limit = sensor.0 * sensor.1 - 1
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: limited
                ingest: { from: [in] }
                limits: { maxPixels: \(limit) }
                export: { to: out, format: jpeg }
            """, job: "limited")
        XCTAssertEqual(result.status, 1)
        let error = records["IMG_5952.CR2"]?["error"] as? String ?? ""
        XCTAssertTrue(error.contains("sensor") && error.contains("\(sensor.0) × \(sensor.1)") && error.contains("limits.maxPixels"), error)
        try? FileManager.default.removeItem(atPath: work + "/out")
        let preview = try run("""
            version: 1
            jobs:
              - name: limited
                ingest: { from: [in], raw: preview }
                limits: { maxPixels: \(limit) }
                export: { to: out, format: jpeg }
            """, job: "limited")
        XCTAssertEqual(preview.result.status, 0, preview.result.stderr)
    }

    func testIngestRawIsValidatedWhereItIsWritten() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: typo
                ingest:
                  from: [in]
                  raw: previw
                export: { to: out, format: jpeg }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:12: error: ingest.raw must be 'develop' (the default) or 'preview', not 'previw'"),
                      result.stderr)
        XCTAssertTrue(result.stderr.contains("preview"), result.stderr)
    }

    func testWhereReadsARAWsExposureAsAJPEGs() throws {
        try FileManager.default.copyItem(atPath: Self.cr2, toPath: work + "/in/IMG_5952.CR2")
        let iso = try XCTUnwrap(Int(try Tool.run("exiftool", ["-n", "-s3", "-ISO", Self.cr2]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let (result, records) = try run("""
            version: 1
            jobs:
              - name: iso
                ingest: { from: [in], raw: preview }
                where: { exif.ISOSpeedRatings: { gt: \(iso) } }
                export: { to: out, format: jpeg, name: "{exif.Model}/{stem}.{ext}" }
            """, job: "iso")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records["IMG_5952.CR2"]?["status"] as? String, "excluded")
        try? FileManager.default.removeItem(atPath: work + "/out")
        let kept = try run("""
            version: 1
            jobs:
              - name: iso
                ingest: { from: [in], raw: preview }
                where: { exif.ISOSpeedRatings: { gte: \(iso) } }
                export: { to: out, format: jpeg, name: "{exif.Model}/{stem}.{ext}" }
            """, job: "iso")
        XCTAssertEqual(kept.result.status, 0, kept.result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/Canon EOS 30D/IMG_5952.jpg"))
    }
}
