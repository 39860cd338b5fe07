import Foundation
import MedleyTestSupport
import XCTest

/// Image metadata read through exiv2 over the metadata corpus (`fixtures/realworld/make-metadata.sh`,
/// which scripts/test-data.sh builds into the test-data cache): `medley probe` against `exiftool -n`
/// field by field (`check-metadata.py`, every difference listed with its reason), sidecars, `where`
/// and templates on the short names, and bad input (a sidecar that is not XML, 100,000 keywords, an
/// external entity that must never be read, EXIF that goexif keeps as corrupt).
final class MetadataCorpusTests: EndToEndCase {
    /// The corpus folder (OUTDIR/metadata), built into the cache on first use when missing.
    func corpus() throws -> String {
        let folder = Tool.testData + "/metadata"
        if !FileManager.default.fileExists(atPath: folder + "/metadata/camera/nikon-d2h.jpg") {
            let made = try Tool.run(Tool.fixtures + "/realworld/make-metadata.sh", [folder], timeLimit: 600)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        return folder + "/metadata"
    }

    func probe(_ path: String) throws -> [String: Any] {
        let result = try Tool.medley(["probe", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
    }

    /// `medley run --quiet` of a job that copies the work folder's `in` to `out` as JPEG.
    func runCopyJob() throws -> Tool.Result {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: copy
                ingest: { from: [in] }
                export: { to: out, format: jpeg, name: "{stem}.jpg" }
            """)
        return try Tool.medley(["run", path, "--quiet"])
    }

    /// exiftool's JSON (`-n -G1`) for one file.
    func exiftool(_ path: String) throws -> [String: Any] {
        let result = try Tool.run("exiftool", ["-n", "-j", "-G1", "-q", "-q", path])
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
    }

    func testProbeAgreesWithExiftoolFieldByField() throws {
        let (result, total, counts) = try checkMetadata(try corpus())
        guard counts.count == 5 else { return }
        XCTAssertGreaterThanOrEqual(counts[0], 400, "EXIF, IPTC and XMP fields of every file: \(total)")
        XCTAssertEqual(counts[1] + counts[2], counts[0], "every field equal or explained: \(total)")
        XCTAssertEqual(counts[3], 0, result.stdout)
        XCTAssertEqual(counts[4], 0, result.stdout)
        XCTAssertLessThanOrEqual(counts[2], 15, "differences are few, each with its reason: \(result.stdout)")
    }

    /// Camera values and GPS signed by its Ref, against exiftool's Composite tags.
    func testCameraGPSIsSignedAndNumbersAreExiftoolDashN() throws {
        let file = try corpus() + "/camera/nikon-d2h.jpg"
        let mine = try probe(file), theirs = try exiftool(file)
        for (name, tag) in [("gps.latitude", "Composite:GPSLatitude"), ("gps.longitude", "Composite:GPSLongitude"),
                            ("exif.FNumber", "ExifIFD:FNumber"), ("exif.ExposureTime", "ExifIFD:ExposureTime"),
                            ("exif.MaxApertureValue", "ExifIFD:MaxApertureValue"), ("exif.FileSource", "ExifIFD:FileSource")] {
            let expected = try XCTUnwrap(theirs[tag] as? NSNumber, tag).doubleValue
            XCTAssertEqual(try XCTUnwrap(mine[name] as? NSNumber, name).doubleValue, expected, accuracy: 1e-9, name)
        }
        XCTAssertEqual(mine["exif.ExifVersion"] as? String, theirs["ExifIFD:ExifVersion"] as? String)
        // DateTimeOriginal "2003:11:23 18:07:37" as ISO 8601.
        let original = try XCTUnwrap(theirs["ExifIFD:DateTimeOriginal"] as? String)
        XCTAssertEqual(mine["dateTaken"] as? String, original.prefix(10).replacingOccurrences(of: ":", with: "-") + "T" + original.dropFirst(11))

        let written = try corpus() + "/written/all.jpg"
        let w = try probe(written), peer = try exiftool(written)
        XCTAssertEqual(try XCTUnwrap(peer["Composite:GPSLatitude"] as? NSNumber).doubleValue, -33.8688, accuracy: 1e-9, "south")
        XCTAssertEqual(try XCTUnwrap(w["gps.latitude"] as? NSNumber).doubleValue, -33.8688, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(w["gps.longitude"] as? NSNumber).doubleValue, -70.6693, accuracy: 1e-9, "west")
        XCTAssertEqual(try XCTUnwrap(w["gps.altitude"] as? NSNumber).doubleValue, -12.5, accuracy: 1e-9, "below sea level")
        XCTAssertEqual(w["rating"] as? Int, (peer["XMP-xmp:Rating"] as? NSNumber)?.intValue)
        XCTAssertEqual(w["keywords"] as? String, (peer["XMP-dc:Subject"] as? [String])?.joined(separator: "; "))
        XCTAssertEqual(w["iptc.Keywords"] as? String, (peer["IPTC:Keywords"] as? [String])?.joined(separator: "; "))
        XCTAssertEqual(w["dateTaken"] as? String, "2024-05-01T10:04:09+02:00", "with OffsetTimeOriginal")
        XCTAssertEqual(w["lens"] as? String, peer["ExifIFD:LensModel"] as? String)
    }

    /// A sidecar's XMP replaces the file's (Lightroom), read as exiftool reads the sidecar.
    func testSidecarWinsOverTheFilesXMP() throws {
        let root = try corpus() + "/sidecar"
        let mine = try probe(root + "/lightroom.jpg")
        let file = try exiftool(root + "/lightroom.jpg"), side = try exiftool(root + "/lightroom.xmp")
        XCTAssertNotEqual((file["XMP-xmp:Rating"] as? NSNumber)?.intValue, (side["XMP-xmp:Rating"] as? NSNumber)?.intValue)
        XCTAssertEqual(mine["rating"] as? Int, (side["XMP-xmp:Rating"] as? NSNumber)?.intValue)
        XCTAssertEqual(mine["keywords"] as? String, (side["XMP-dc:Subject"] as? [String])?.joined(separator: "; "))
        XCTAssertEqual(mine["title"] as? String, side["XMP-dc:Title"] as? String)
        // The sidecar's capture time wins over the file's EXIF one.
        let sideDate = try XCTUnwrap(side["XMP-exif:DateTimeOriginal"] as? String)  // "2023:12:24 18:30:00+01:00"
        XCTAssertEqual(mine["dateTaken"] as? String, sideDate.prefix(10).replacingOccurrences(of: ":", with: "-") + "T" + sideDate.dropFirst(11))
        XCTAssertNil(mine["xmp.photoshop.City"], "the file's own XMP is replaced, not merged")
        let darktable = try probe(root + "/darktable.jpg"), dt = try exiftool(root + "/darktable.jpg.xmp")
        XCTAssertEqual(darktable["label"] as? String, dt["XMP-xmp:Label"] as? String)
        XCTAssertEqual(darktable["rating"] as? Int, (dt["XMP-xmp:Rating"] as? NSNumber)?.intValue)
    }

    /// Bad sidecars and damaged EXIF: the item warns or fails alone, the secret an external entity
    /// names is never read, 100,000 keywords are all read.
    func testBadMetadataWarnsForThatItemOnly() throws {
        let bad = try corpus() + "/bad"
        let secret = try String(contentsOfFile: bad + "/secret.txt", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let notXML = try probe(bad + "/not-xml.jpg")
        XCTAssertTrue((notXML["warnings"] as? String ?? "").contains("sidecar not-xml.xmp not read"), "\(notXML)")
        for name in ["xxe.jpg", "xxe-inside.jpg"] {
            let result = try Tool.medley(["probe", bad + "/" + name, "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stdout.contains(secret), "\(name): the external entity was read")
            XCTAssertFalse(result.stderr.contains(secret))
            let item = try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
            XCTAssertNil(item["label"], name)
            XCTAssertNotNil(item["warnings"], "\(name): the refused XMP is said")
        }
        let many = try probe(bad + "/many-keywords.jpg")
        let keywords = (many["keywords"] as? String ?? "").components(separatedBy: "; ")
        XCTAssertEqual(keywords.count, 100_000)
        XCTAssertEqual(keywords.last, "k99999")
        XCTAssertEqual(many["rating"] as? Int, 3)

        // A run over the corrupt EXIF JPEGs and a good one: the good one is written; each bad one
        // is written or failed with its own reason; the run ends.
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["huge_tag_exif.jpg", "infinite_loop_exif.jpg", "max_uint32_exif.jpg"] {
            try FileManager.default.copyItem(atPath: bad + "/" + name, toPath: input + "/" + name)
        }
        try FileManager.default.copyItem(atPath: try corpus() + "/written/all.jpg", toPath: input + "/good.jpg")
        let run = try runCopyJob()
        XCTAssertTrue([0, 1].contains(run.status), run.stderr)
        XCTAssertTrue(Tool.files(under: work + "/out").contains("good.jpg"), run.stderr)
    }

    /// A sidecar exiv2 reads but whose previews it cannot parse (a mutated 14 KB Canon TIFF the
    /// `metadata` fuzz target found, Tests/regressions/fuzz/metadata/crash-d733…): gexiv2 0.14.0
    /// freed twice what that failed open left behind, and the whole run aborted (exit 134) at the
    /// first such item. Now the image is written, as vipsheader reads it, and `medley probe` says its
    /// sidecar was not read and exits 0.
    func testASidecarExiv2GivesUpOnPartwayOnlyWarns() throws {
        let crash = try XCTUnwrap(FuzzRegressions.files("metadata").first { $0.lastPathComponent.hasPrefix("crash-d73342d9") })
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try corpus() + "/written/all.jpg", toPath: input + "/photo.jpg")
        try FileManager.default.copyItem(atPath: crash.path, toPath: input + "/photo.xmp")
        let item = try probe(input + "/photo.jpg")
        XCTAssertTrue((item["warnings"] as? String ?? "").contains("sidecar photo.xmp not read"), "\(item)")

        // The run goes on to the end: the sidecar is itself ingested (its bytes are a TIFF) and fails
        // alone, as any broken image does.
        let run = try runCopyJob()
        XCTAssertEqual(run.status, 1, run.stderr)
        let failed = run.stderr.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        XCTAssertEqual(failed.count, 1, run.stderr)
        XCTAssertTrue(failed.allSatisfy { $0.contains("/in/photo.xmp: ") }, run.stderr)
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/photo.jpg", "width"), try Tool.vipsHeader(input + "/photo.jpg", "width"))
        XCTAssertEqual(try Tool.vipsHeader(work + "/out/photo.jpg", "height"), try Tool.vipsHeader(input + "/photo.jpg", "height"))
    }

    /// `where` on the short names (rating, keywords as one text) and a template of dateTaken,
    /// against what exiftool reads from each file (its sidecar first).
    func testWhereAndTemplatesUseTheShortNames() throws {
        let root = try corpus()
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        var expected: [String] = []
        for (folder, name) in [("written", "all.jpg"), ("written", "all.png"), ("written", "all.tif"), ("written", "unicode.jpg"),
                               ("sidecar", "lightroom.jpg"), ("sidecar", "darktable.jpg")] {
            let stem = folder + "-" + name.replacingOccurrences(of: ".", with: "-")
            let target = input + "/" + stem + "." + (name as NSString).pathExtension
            try FileManager.default.copyItem(atPath: root + "/\(folder)/\(name)", toPath: target)
            var peer = try exiftool(target)
            for sidecar in [root + "/\(folder)/\(name).xmp", root + "/\(folder)/" + (name as NSString).deletingPathExtension + ".xmp"]
            where FileManager.default.fileExists(atPath: sidecar) {
                let copy = sidecar.hasSuffix(name + ".xmp") ? target + ".xmp" : (target as NSString).deletingPathExtension + ".xmp"
                try FileManager.default.copyItem(atPath: sidecar, toPath: copy)
                peer = peer.filter { !$0.key.hasPrefix("XMP-") }.merging(try exiftool(copy)) { $1 }
            }
            let rating = (peer["XMP-xmp:Rating"] as? NSNumber)?.intValue ?? 0
            let keywords = (peer["XMP-dc:Subject"] as? [String]) ?? (peer["XMP-dc:Subject"] as? String).map { [$0] } ?? []
            let date = (peer["ExifIFD:DateTimeOriginal"] as? String) ?? (peer["XMP-exif:DateTimeOriginal"] as? String)
            if rating >= 4, keywords.contains(where: { $0.lowercased().contains("travel") }), let date {
                expected.append(String(date.prefix(4)) + "/" + stem + ".jpg")
            }
        }
        XCTAssertFalse(expected.isEmpty)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: best
                ingest: { from: [in] }
                where: { rating: { gte: 4 }, keywords: { contains: travel } }
                export: { to: out, format: jpeg, name: "{dateTaken:yyyy}/{stem}.jpg" }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out").filter { $0.hasSuffix(".jpg") }.sorted(), expected.sorted())
    }
}

extension EndToEndCase {
    /// `check-metadata.py` over `root` (`medley probe` against `exiftool -n`, field by field): its
    /// output, its totals row and the row's five counts (fields, equal, explained, differ, missing).
    func checkMetadata(_ root: String) throws -> (result: Tool.Result, total: String, counts: [Int]) {
        let result = try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/check-metadata.py", root, "--medley", Tool.medley])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let total = String(try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("| **total**") }, result.stdout))
        let counts = total.split(separator: "|").dropFirst().compactMap { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "*", with: "")) }
        XCTAssertEqual(counts.count, 5, total)
        return (result, total, counts)
    }
}
