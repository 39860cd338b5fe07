import Foundation
import XCTest

/// Image metadata written by a run, read back by the peers: `export.strip: [gps]` against
/// `exiftool -gps:all`, `strip: true` with `keep`, `tag.set` read back by `exiftool -n` and
/// `exiv2 -pa`, `shiftDates` against `exiftool -AllDates+=` on a copy, `sidecar: true` read by
/// exiftool; the sources untouched; bad keys refused with FILE:LINE:COL and a suggestion.
final class MetadataWriteRunTests: EndToEndCase {
    /// A camera-like JPEG exiftool tagged with every family (EXIF with GPS and a serial number,
    /// IPTC, XMP with a history), copied into `in/`.
    func source(_ name: String = "photo.jpg") throws -> String {
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let path = input + "/" + name
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: path)
        let tagged = try Tool.run("exiftool", ["-q", "-overwrite_original", "-Make=Medley Test", "-Model=Cam 1",
            "-SerialNumber=SN12345", "-Artist=Anne", "-Copyright=(C) 2024 Anne", "-DateTimeOriginal=2024:05:01 23:30:00",
            "-CreateDate=2024:05:01 23:30:00", "-ModifyDate=2024:12:31 23:59:59", "-FNumber=2.8", "-ISO=200",
            "-GPSLatitude=33.8688", "-GPSLatitudeRef=S", "-GPSLongitude=70.6693", "-GPSLongitudeRef=W",
            "-XMP-dc:Subject=travel", "-XMP-xmp:Rating=3", "-XMP-dc:Rights=(C) 2024 Anne", "-XMP-dc:Creator=Anne",
            "-XMP-exif:GPSLatitude=33.8688 S", "-XMP-xmpMM:HistoryAction=saved", "-XMP-xmpMM:HistoryWhen=2024:05:02 10:00:00",
            "-IPTC:Keywords=travel", "-IPTC:By-line=Anne", "-IPTC:City=Valparaiso", path])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        return path
    }

    /// exiftool's EXIF, IPTC and XMP fields (`-n -G1`), without the file's own facts.
    func fields(_ path: String) throws -> [String: String] {
        let result = try Tool.run("exiftool", ["-n", "-j", "-G1", "-a", "-q", "-q", path])
        let object = try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
        var out: [String: String] = [:]
        for (key, value) in object {
            let group = key.split(separator: ":").first.map(String.init) ?? ""
            guard ["IFD0", "ExifIFD", "GPS", "IPTC", "InteropIFD"].contains(group) || group.hasPrefix("XMP-") else { continue }
            out[key] = (value as? [Any]).map { $0.map { "\($0)" }.joined(separator: ", ") } ?? "\(value)"
        }
        return out
    }

    func run(_ job: String) throws -> Tool.Result {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: out
                ingest: { from: [in] }
            \(job)
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result
    }

    func testStripGPSLeavesNoGPSAndEveryOtherFieldAsTheSourceHasIt() throws {
        let input = try source()
        let before = try fields(input)
        let sourceBytes = try Data(contentsOf: URL(fileURLWithPath: input))
        try run("    export: { to: out, format: jpeg, name: \"{stem}.jpg\", strip: [gps] }")
        let output = work + "/out/photo.jpg"
        XCTAssertEqual(try Tool.run("exiftool", ["-gps:all", "-xmp-exif:gps*", "-s", output]).stdout, "", "no GPS tag left")
        let after = try fields(output)
        // What libvips' JPEG saver writes of its own (the encoder, the pixel size it wrote), and
        // exiv2's toolkit name in the XMP packet it rewrites.
        let rewritten: Set<String> = ["ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight", "XMP-x:XMPToolkit", "IFD0:Software"]
        for (key, value) in before where !key.hasPrefix("GPS:") && !key.hasPrefix("XMP-exif:GPS") && !rewritten.contains(key) {
            XCTAssertEqual(after[key], value, key)
        }
        XCTAssertTrue(before.keys.contains { $0.hasPrefix("GPS:") }, "the source had GPS")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: input)), sourceBytes, "the source is never modified")
    }

    /// A re-encode carries every EXIF, IPTC and XMP field into each format that holds it: libvips'
    /// savers leave EXIF and IPTC out of TIFF and IPTC out of PNG, exiv2 writes them afterwards. WebP
    /// and HEIF have no place for IPTC: a warning says so, and its XMP twins (dc:subject, the creator)
    /// are there. Field by field as exiftool reads the source.
    func testAReencodeCarriesEveryFieldTheFormatHolds() throws {
        let input = try source()
        let before = try fields(input)
        try run("""
                filters: [ { resize: { width: 64 } } ]
                export: { to: out, format: tiff, name: "{stem}.tif" }
              - name: png
                ingest: { from: [in] }
                filters: [ { resize: { width: 64 } } ]
                export: { to: out, format: png, name: "{stem}.png" }
              - name: webp
                ingest: { from: [in] }
                filters: [ { resize: { width: 64 } } ]
                export: { to: out, format: webp, name: "{stem}.webp" }
            """)
        // What the encoders write of their own (the pixel size, TIFF's resolution and layout, the
        // software), and exiv2's toolkit name in the XMP packet it rewrites.
        let own: Set<String> = ["ExifIFD:ExifImageWidth", "ExifIFD:ExifImageHeight", "XMP-x:XMPToolkit", "IFD0:Software",
                                "IFD0:XResolution", "IFD0:YResolution", "IFD0:ResolutionUnit", "IFD0:YCbCrPositioning"]
        for ext in ["tif", "png", "webp"] {
            let output = work + "/out/photo." + ext
            let after = try fields(output)
            var compared = 0
            for (key, value) in before where !own.contains(key) && !(ext == "webp" && key.hasPrefix("IPTC:")) {
                XCTAssertEqual(after[key], value, "\(ext) \(key)")
                compared += 1
            }
            XCTAssertGreaterThan(compared, 25, ext)
            // The EXIF pixel size, where there is one, is the output's.
            XCTAssertTrue([nil, "64"].contains(after["ExifIFD:ExifImageWidth"]), "\(ext): \(after["ExifIFD:ExifImageWidth"] ?? "")")
        }
        XCTAssertTrue(before.keys.contains { $0.hasPrefix("IPTC:") } && before.keys.contains { $0.hasPrefix("ExifIFD:") })
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-webp.jsonl", encoding: .utf8)
        XCTAssertTrue(manifest.contains(".webp output cannot hold the input's IPTC"), manifest)
        let tiff = try String(contentsOfFile: work + "/out/.medley/manifest-out.jsonl", encoding: .utf8)
        XCTAssertFalse(tiff.contains("cannot hold"), tiff)
    }

    func testStripListRemovesSerialAndHistoryAndKeepsTheRest() throws {
        let input = try source()
        let before = try fields(input)
        XCTAssertNotNil(before["ExifIFD:SerialNumber"])
        try run("    export: { to: out, format: jpeg, name: \"{stem}.jpg\", strip: [serial, xmp.history, iptc] }")
        let after = try fields(work + "/out/photo.jpg")
        XCTAssertNil(after["ExifIFD:SerialNumber"])
        // The history's events are gone; exiv2 keeps the emptied array (exiftool: "History: ").
        XCTAssertTrue(before.keys.contains { $0.hasPrefix("XMP-xmpMM:History") })
        XCTAssertEqual(after.filter { $0.key.hasPrefix("XMP-xmpMM:History") && !$0.value.isEmpty }, [:], "\(after)")
        XCTAssertFalse(after.keys.contains { $0.hasPrefix("IPTC:") })
        XCTAssertEqual(after["IFD0:Copyright"], before["IFD0:Copyright"])
        XCTAssertEqual(after["GPS:GPSLatitude"], before["GPS:GPSLatitude"])
        XCTAssertEqual(after["XMP-dc:Subject"], before["XMP-dc:Subject"])
    }

    func testStripTrueWithKeepKeepsOnlyThose() throws {
        let input = try source()
        let before = try fields(input)
        try run("    export: { to: out, format: jpeg, name: \"{stem}.jpg\", strip: true, keep: [copyright, creator] }")
        let after = try fields(work + "/out/photo.jpg")
        for key in ["IFD0:Copyright", "IFD0:Artist", "XMP-dc:Rights", "XMP-dc:Creator", "IPTC:By-line"] {
            XCTAssertEqual(after[key], before[key], key)
        }
        let others = after.keys.filter { !["IFD0:Copyright", "IFD0:Artist", "XMP-dc:Rights", "XMP-dc:Creator", "IPTC:By-line"].contains($0) }
        // exiv2 writes the IFD0 and IPTC envelope every EXIF/IPTC block has, and its toolkit name.
        let structural: Set<String> = ["IFD0:XResolution", "IFD0:YResolution", "IFD0:ResolutionUnit", "IFD0:YCbCrPositioning",
                                       "XMP-x:XMPToolkit", "IPTC:ApplicationRecordVersion", "IFD0:Orientation"]
        XCTAssertEqual(Set(others).subtracting(structural), [], "only the kept fields: \(others.sorted())")
        XCTAssertNil(after["GPS:GPSLatitude"])
        XCTAssertNil(after["IFD0:Make"])
    }

    func testTagSetIsReadBackByExiftoolAndExiv2() throws {
        _ = try source()
        try run("""
                tag:
                  set: { creator: "Bo Tester", copyright: "© {dateTaken:yyyy} Bo", keywords: [sea, "{exif.Model}"], rating: 5, title: Pier }
                export: { to: out, format: jpeg, name: "{stem}.jpg" }
            """)
        let output = work + "/out/photo.jpg"
        let after = try fields(output)
        XCTAssertEqual(after["IFD0:Artist"], "Bo Tester")
        XCTAssertEqual(after["XMP-dc:Creator"], "Bo Tester")
        XCTAssertEqual(after["IFD0:Copyright"], "© 2024 Bo")
        XCTAssertEqual(after["XMP-dc:Rights"], "© 2024 Bo")
        XCTAssertEqual(after["XMP-dc:Subject"], "sea, Cam 1")
        XCTAssertEqual(after["IPTC:Keywords"], "sea, Cam 1")
        XCTAssertEqual(after["XMP-xmp:Rating"], "5")
        XCTAssertEqual(after["XMP-dc:Title"], "Pier")
        let exiv2 = try Tool.run("exiv2", ["-pa", output]).stdout
        for line in ["Exif.Image.Artist", "Xmp.dc.creator", "Iptc.Application2.Keywords", "Xmp.xmp.Rating"] {
            XCTAssertTrue(exiv2.contains(line), "\(line) in exiv2 -pa:\n\(exiv2)")
        }
        XCTAssertTrue(exiv2.contains("Bo Tester"))
    }

    func testShiftDatesIsExiftoolsAllDates() throws {
        let input = try source()
        let copy = work + "/exiftool-copy.jpg"
        try FileManager.default.copyItem(atPath: input, toPath: copy)
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-AllDates+=1:00:00", copy]).status, 0)
        try run("""
                tag: { shiftDates: "+1:00:00" }
                export: { to: out, format: jpeg, name: "{dateTaken:yyyy-MM-dd}-{stem}.jpg" }
            """)
        // 23:30 on 2024-05-01 plus an hour is the next day: the name uses the shifted date.
        let output = work + "/out/2024-05-02-photo.jpg"
        XCTAssertTrue(FileManager.default.fileExists(atPath: output), "\(Tool.files(under: work + "/out"))")
        let mine = try fields(output), theirs = try fields(copy)
        for key in ["ExifIFD:DateTimeOriginal", "ExifIFD:CreateDate", "IFD0:ModifyDate"] {
            XCTAssertEqual(mine[key], theirs[key], key)
            XCTAssertNotNil(mine[key])
        }
        XCTAssertEqual(mine["IFD0:ModifyDate"], "2025:01:01 00:59:59", "across the year")
    }

    /// A job that only edits metadata copies the input's bytes (no second JPEG encode), as
    /// exiftool edits a file; a job that turns the picture upright or filters it re-encodes.
    func testAMetadataOnlyJobKeepsThePixelsAsTheyAre() throws {
        let input = try source()
        try run("""
                tag: { set: { rating: 5 } }
                export: { to: out, format: same, name: "{stem}.{ext}", strip: [gps] }
            """)
        let output = work + "/out/photo.jpg"
        let a = try Tool.pixels(input), b = try Tool.pixels(output)
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        XCTAssertEqual(a.samples, b.samples, "the JPEG's pixels as they were: not encoded again")
        XCTAssertEqual(try Tool.exif(output, "Rating"), "5")
        XCTAssertNil(try Tool.exif(output, "GPSLatitude"))
        XCTAssertEqual(try Tool.exif(output, "SerialNumber"), try Tool.exif(input, "SerialNumber"))

        // Portrait, orientation 6: turned upright (re-encoded), its orientation then 1.
        let turned = work + "/in/turned.jpg"
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/portrait-exif6.jpg", toPath: turned)
        try FileManager.default.removeItem(atPath: input)
        try run("""
                tag: { set: { rating: 2 } }
                export: { to: out2, format: same, name: "{stem}.{ext}" }
            """)
        let upright = work + "/out2/turned.jpg"
        XCTAssertEqual(try Tool.exif(upright, "Orientation"), "1")
        XCTAssertEqual(try Tool.exif(upright, "Rating"), "2")
        XCTAssertEqual(try Tool.exif(upright, "ImageWidth"), try Tool.exif(turned, "ImageHeight"), "turned by 90°")
    }

    /// A metadata-only job on PNG, WebP and TIFF inputs: the input's bytes edited in memory through
    /// exiv2 and written once (no file copy edited in place), the pixels as ImageMagick decodes
    /// them unchanged, the new fields read back by exiftool, GPS gone, the rest kept.
    func testAMetadataOnlyJobEditsPNGWebPAndTIFFInMemory() throws {
        let jpeg = try source()
        for ext in ["png", "webp", "tif"] {
            try Tool.vips(["copy", jpeg, work + "/in/photo-\(ext).\(ext)" + (ext == "webp" ? "[lossless]" : "")])
            let tagged = try Tool.run("exiftool", ["-q", "-overwrite_original", "-XMP-dc:Creator=Anne", "-XMP-dc:Subject=travel",
                "-XMP-exif:GPSLatitude=33.8688 S", work + "/in/photo-\(ext).\(ext)"])
            XCTAssertEqual(tagged.status, 0, tagged.stderr)
        }
        try FileManager.default.removeItem(atPath: jpeg)
        try run("""
                tag: { set: { creator: "Zoe", rating: 4 } }
                export: { to: out, format: same, name: "{stem}.{ext}", strip: [gps] }
            """)
        for ext in ["png", "webp", "tif"] {
            let input = work + "/in/photo-\(ext).\(ext)", output = work + "/out/photo-\(ext).\(ext)"
            let a = try Tool.pixels(input), b = try Tool.pixels(output)
            XCTAssertEqual([a.width, a.height], [b.width, b.height], ext)
            XCTAssertEqual(a.samples, b.samples, "\(ext): the pixels as they were")
            XCTAssertEqual(try Tool.exif(output, "XMP-dc:Creator"), "Zoe", ext)
            XCTAssertEqual(try Tool.exif(output, "XMP-xmp:Rating"), "4", ext)
            XCTAssertEqual(try Tool.exif(output, "XMP-dc:Subject"), "travel", "\(ext): the rest kept")
            XCTAssertNil(try Tool.exif(output, "XMP-exif:GPSLatitude"), "\(ext): GPS removed")
            XCTAssertEqual(try Tool.exif(input, "XMP-dc:Creator"), "Anne", "\(ext): the source untouched")
        }
    }

    /// `strip: [icc, gps]`: libvips drops everything, the rest comes back from the input (exiv2
    /// cannot remove a profile). A HEIC output's edit is a warning: exiv2 0.27 writes no HEIF.
    func testStripICCCopiesTheRestBackAndHEICWarns() throws {
        let input = try source()
        let profiled = work + "/profiled.jpg"
        try Tool.vips(["icc_export", input, profiled + "[Q=90]", "--output-profile", "srgb"])
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-tagsFromFile", input, "-all:all", profiled]).status, 0)
        try FileManager.default.removeItem(atPath: input)
        try FileManager.default.moveItem(atPath: profiled, toPath: input)
        XCTAssertNotNil(try Tool.exif(input, "ICC_Profile:ProfileDescription"), "the source has a profile")
        try run("    export: { to: out, format: jpeg, name: \"{stem}.jpg\", strip: [icc, gps] }")
        let output = work + "/out/photo.jpg"
        XCTAssertEqual(try Tool.run("exiftool", ["-s", "-ICC_Profile:all", "-gps:all", output]).stdout, "")
        for tag in ["Make", "Artist", "XMP-dc:Subject", "IPTC:City", "SerialNumber"] {
            XCTAssertEqual(try Tool.exif(output, tag), try Tool.exif(input, tag), tag)
        }

        let heic = try Tool.medley(["run", try pipeline("""
            version: 1
            jobs:
              - name: heic
                ingest: { from: [in] }
                tag: { set: { rating: 5 } }
                export: { to: out3, format: heic, name: "{stem}.heic" }
            """), "--quiet"])
        XCTAssertEqual(heic.status, 0, heic.stderr)
        let manifest = try String(contentsOfFile: work + "/out3/.medley/manifest-heic.jsonl", encoding: .utf8)
        XCTAssertTrue(manifest.contains("exiv2 cannot write the metadata of a .heic output"), manifest)
    }

    func testSidecarBesideTheOutputIsReadByExiftool() throws {
        let input = try source()
        try run("""
                tag: { set: { rating: 4, label: Red }, sidecar: true }
                export: { to: out, format: png, name: "{stem}.png" }
            """)
        let sidecar = work + "/out/photo.png.xmp"
        XCTAssertTrue(FileManager.default.fileExists(atPath: sidecar), "\(Tool.files(under: work + "/out"))")
        XCTAssertEqual(try Tool.exif(sidecar, "Rating"), "4")
        XCTAssertEqual(try Tool.exif(sidecar, "Label"), "Red")
        XCTAssertEqual(try Tool.exif(sidecar, "Subject"), try Tool.exif(input, "XMP-dc:Subject"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/in/photo.jpg.xmp"), "nothing written beside the source")
    }

    func testBadMetadataKeysAreRefusedWithPlaceAndSuggestion() throws {
        let cases: [(String, String, String)] = [
            ("    export: { to: out, strip: [gsp] }", "unknown metadata name 'gsp'", "did you mean 'gps'?"),
            ("    export: { to: out, keep: [copyright] }", "export.keep says what 'strip: true' keeps", "strip: true"),
            ("    tag: { shiftDates: \"one hour\" }\n    export: { to: out }", "tag.shiftDates: 'one hour' is not a shift", "+1:00:00"),
            ("    tag: { set: { ratting: 5 } }\n    export: { to: out }", "unknown property 'ratting'", "rating"),
        ]
        for (job, message, suggestion) in cases {
            let path = try pipeline("version: 1\njobs:\n  - name: j\n    ingest: { from: [in] }\n" + job + "\n")
            let result = try Tool.medley(["validate", path])
            XCTAssertEqual(result.status, 2, job)
            XCTAssertTrue(result.stderr.contains(message), "\(job): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(suggestion), "\(job): \(result.stderr)")
            XCTAssertNotNil(result.stderr.range(of: #"pipeline\.yaml:\d+:\d+"#, options: .regularExpression), result.stderr)
        }
    }
}
