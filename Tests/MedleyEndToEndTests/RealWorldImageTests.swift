import Foundation
import XCTest

/// Files as cameras, scanners and other tools write them (tracker issue 14): colour spaces other
/// than sRGB, damaged data, metadata, animation.
final class RealWorldImageTests: EndToEndCase {
    /// Inputs libvips loads in a space other than 8/16-bit RGB, each with the vips command that
    /// is the reference conversion to sRGB, the channels to compare and the sample depth.
    func colourSpaceInputs() throws -> [(path: String, reference: String, channels: String, depth: Int)] {
        let landscape = Tool.fixtures + "/images/landscape.jpg", gray = Tool.fixtures + "/images/gray.png"
        let cmyk = work + "/cmyk.jpg", cmykProfiled = work + "/cmyk-profiled.jpg", lab = work + "/lab.tif", greyAlpha = work + "/grey-alpha.png"
        let grey16 = work + "/grey16.png"
        // ImageMagick's CMYK JPEG has no profile; vips' icc_export embeds its built-in CMYK one.
        XCTAssertEqual(try Tool.run("convert", [landscape, "-colorspace", "CMYK", cmyk]).status, 0)
        try Tool.vips(["icc_export", landscape, cmykProfiled, "--output-profile", "cmyk"])
        XCTAssertEqual(try Tool.exif(cmyk, "ProfileDescription"), nil)
        XCTAssertEqual(try Tool.exif(cmykProfiled, "ColorSpaceData"), "CMYK")
        try Tool.vips(["colourspace", landscape, work + "/lab.v", "lab"])
        try Tool.vips(["tiffsave", work + "/lab.v", lab])
        XCTAssertEqual(try Tool.run("convert", [gray, "-alpha", "set", "-channel", "A", "-fx", "i/w", "+channel", greyAlpha]).status, 0)
        try Tool.vips(["colourspace", gray, grey16, "grey16"])
        XCTAssertEqual(try Tool.vipsHeader(cmyk, "interpretation"), "cmyk")
        XCTAssertEqual(try Tool.vipsHeader(lab, "interpretation"), "lab")
        XCTAssertEqual([try Tool.vipsHeader(greyAlpha, "bands"), try Tool.vipsHeader(greyAlpha, "interpretation")], ["2", "b_w"])
        XCTAssertEqual(try Tool.vipsHeader(grey16, "format"), "ushort")
        var inputs: [(String, String, String, Int)] = []
        // CMYK: vips' ICC transform to sRGB (relative intent) with the embedded profile, or its
        // default CMYK profile for a file without one.
        for path in [cmyk, cmykProfiled] {
            let reference = path + "-reference.png"
            try Tool.vips(["icc_transform", path, reference, "srgb", "--embedded", "--input-profile", "cmyk",
                           "--intent", "relative"])
            inputs.append((path, reference, "rgb", 8))
        }
        // Float CIELAB becomes 16-bit sRGB (with a warning), as 16-bit files stay 16-bit.
        for (path, space, channels, depth) in [(lab, "rgb16", "rgb", 16), (greyAlpha, "srgb", "rgba", 8),
                                               (grey16, "rgb16", "rgb", 16)] {
            let reference = path + "-reference.png"
            try Tool.vips(["colourspace", path, reference, space])
            inputs.append((path, reference, channels, depth))
        }
        return inputs
    }

    func run(_ stage: String, input: String, folder: String) throws -> String {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: spaces
                ingest: { from: [\(input)] }
            \(stage)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, "\(input): \(result.stderr)")
        return folder + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".png"
    }

    func testOtherColourSpacesAreConvertedToSRGBOnLoadInEveryPath() throws {
        for (index, input) in try colourSpaceInputs().enumerated() {
            let name = (input.path as NSString).lastPathComponent
            let max = input.depth == 8 ? 255.0 : 65535.0
            let bands = input.channels.count
            let reference = try Tool.pixels(input.reference, channels: input.channels, depth: input.depth)
            let (width, height) = (reference.width, reference.height)
            func linear(_ x: Int, _ y: Int, _ c: Int) -> Double {
                let v = Double(reference.samples[(y * width + x) * bands + c]) / max
                return c == 3 ? v : Reference.toLinear(v)
            }

            // The point-only path (stored samples): sepia, by the formula of Support.swift.
            let sepia = try Tool.pixels(try run("    filters: [CISepiaTone]", input: input.path, folder: work + "/sepia-\(index)"),
                                        channels: input.channels, depth: input.depth)
            // The float path: the picture multiplied with its mirror image, by the W3C formula with alpha.
            let graph = """
                    graph:
                      mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
                      output: { filter: CIMultiplyBlendMode, inputImage: input, inputBackgroundImage: mirror }
                """
            let blend = try Tool.pixels(try run(graph, input: input.path, folder: work + "/blend-\(index)"),
                                        channels: input.channels, depth: input.depth)
            XCTAssertEqual([sepia.width, sepia.height, blend.width, blend.height], [width, height, width, height], name)
            var sepiaWorst = 0.0, blendWorst = 0.0
            for y in 0..<height {
                for x in 0..<width {
                    let at = (y * width + x) * bands
                    let toned = Reference.sepiaLinear((0..<3).map { linear(x, y, $0) }, intensity: 1)
                    let sa = bands == 4 ? linear(x, y, 3) : 1, ba = bands == 4 ? linear(width - 1 - x, y, 3) : 1
                    let oa = sa + ba * (1 - sa)
                    for c in 0..<bands {
                        let expected: Double, mixed: Double
                        if c == 3 {
                            expected = Double(reference.samples[at + 3])
                            mixed = oa * max
                        } else {
                            expected = Reference.toSRGB(toned[c]) * max
                            let cs = linear(x, y, c), cb = linear(width - 1 - x, y, c)
                            let co = sa * (1 - ba) * cs + sa * ba * cb * cs + (1 - sa) * ba * cb
                            mixed = Reference.toSRGB(oa > 0 ? co / oa : 0) * max
                        }
                        sepiaWorst = Swift.max(sepiaWorst, abs(Double(sepia.samples[at + c]) - expected))
                        blendWorst = Swift.max(blendWorst, abs(Double(blend.samples[at + c]) - mixed))
                    }
                }
            }
            // Tolerance: 1 level of 255 (257 of 65535): libvips' conversion is the reference and
            // both sides round once to the output depth (measured ≤ 0.55). Before, the CMYK file
            // stopped the whole run (a trap in the blend kernel on 3 bands read as RGBA).
            let tolerance = max / 255
            XCTAssertLessThanOrEqual(sepiaWorst, tolerance, "\(name): sepia")
            XCTAssertLessThanOrEqual(blendWorst, tolerance, "\(name): multiply blend")
        }
    }

    func testResizeFirstDecodesOtherColourSpacesToSRGB() throws {
        // The shrink-on-load path (vips thumbnail) converts by itself; the result is sRGB of the box's size.
        for (index, input) in try colourSpaceInputs().enumerated() {
            let out = try run("    filters: [{ resize: { width: 48, height: 48 } }, CISepiaTone]", input: input.path,
                              folder: work + "/small-\(index)")
            // (vips thumbnail makes 8-bit sRGB of the 16-bit grey file, as the resize-first path always has.)
            XCTAssertEqual(try Tool.vipsHeader(out, "interpretation"), "srgb", input.path)
            XCTAssertEqual(try Tool.vipsHeader(out, "bands"), String(input.channels.count), input.path)
            XCTAssertEqual(max(Int(try Tool.vipsHeader(out, "width")) ?? 0, Int(try Tool.vipsHeader(out, "height")) ?? 0), 48)
        }
    }

    func testBandsBeyondRGBAreDroppedWithAWarning() throws {
        // Six bands: the landscape twice, as a scanner or a GIS tool might write it.
        let landscape = Tool.fixtures + "/images/landscape.jpg", six = work + "/six.tif"
        try Tool.vips(["bandjoin", "\(landscape) \(landscape)", six])
        XCTAssertEqual(try Tool.vipsHeader(six, "bands"), "6")
        let out = try run("    filters: [CISepiaTone]", input: six, folder: work + "/out")
        // libvips reads the fourth band of an sRGB image as alpha: RGBA is kept, two bands go.
        XCTAssertEqual(try Tool.vipsHeader(out, "bands"), "4")
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-spaces.jsonl", encoding: .utf8)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any])
        XCTAssertEqual(record["warnings"] as? [String], ["6 bands (srgb): only the first 4 are kept; the other 2 are dropped"])
    }

    /// Damaged files made here from good ones, with the words of libvips' reason for each.
    func damagedInputs() throws -> [(path: String, reason: String)] {
        let folder = work + "/damaged"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let big = work + "/big.jpg", bigPNG = work + "/big.png"
        try Tool.vips(["resize", Tool.fixtures + "/images/landscape.jpg", big, "4"])
        try Tool.vips(["resize", Tool.fixtures + "/images/landscape.jpg", bigPNG, "4"])
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: big)), png = try Data(contentsOf: URL(fileURLWithPath: bigPNG))
        try jpeg.prefix(jpeg.count / 2).write(to: URL(fileURLWithPath: folder + "/half.jpg"))
        try png.prefix(png.count / 2).write(to: URL(fileURLWithPath: folder + "/half-png.png"))
        // 2 KB of 0xFF in the middle of the entropy-coded data (after the start-of-scan marker FF DA).
        var banded = [UInt8](jpeg)
        let scan = try XCTUnwrap((0..<banded.count - 1).first { banded[$0] == 0xFF && banded[$0 + 1] == 0xDA })
        let middle = scan + (banded.count - scan) / 2
        for i in (middle - 1024)..<(middle + 1024) { banded[i] = 0xFF }
        try Data(banded).write(to: URL(fileURLWithPath: folder + "/ff-band.jpg"))
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/broken/truncated.jpg", toPath: folder + "/truncated.jpg")
        let files = [("half.jpg", "VipsJpeg: Premature end of input file"), ("half-png.png", "vipspng: libpng read error"),
                     ("ff-band.jpg", "VipsJpeg: Corrupt JPEG data"), ("truncated.jpg", "VipsJpeg: Premature end of input file")]
        for (name, _) in files {
            // The peer's verdict: vips decodes each without complaint by default and rejects it with [fail].
            XCTAssertEqual(try Tool.run("vips", ["copy", folder + "/" + name, work + "/lenient.png"]).status, 0, name)
            XCTAssertNotEqual(try Tool.run("vips", ["copy", folder + "/" + name + "[fail]", work + "/strict.png"]).status, 0, name)
        }
        return files.map { (folder + "/" + $0.0, $0.1) }
    }

    func testDamagedFilesFailWithTheirReasonThroughEveryKindOfPlan() throws {
        let inputs = try damagedInputs()
        let plans = ["resize-first": "[{ resize: { width: 100, height: 100 } }, CISepiaTone]",
                     "point-only": "[CISepiaTone]", "neighbourhood": "[CIGaussianBlur]"]
        for (kind, filters) in plans {
            let folder = work + "/out-" + kind
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: damaged
                    ingest: { from: [\(work!)/damaged] }
                    filters: \(filters)
                    export: { to: \(folder), format: png }
                """)
            let result = try Tool.medley(["run", path, "--quiet"])
            XCTAssertEqual(result.status, 1, "\(kind): every item failed\n\(result.stderr)")
            for (input, reason) in inputs {
                let line = result.stderr.split(separator: "\n").first { $0.contains("✗ " + input + ":") }
                XCTAssertTrue(line?.contains(reason) == true, "\(kind): \(input): expected '\(reason)' in: \(line.map(String.init) ?? result.stderr)")
            }
            XCTAssertEqual(Tool.files(under: folder), [], "\(kind): nothing exported")
        }
    }

    func testConcurrentFailuresEachGiveTheirOwnReason() throws {
        // 20 damaged files of four kinds, two at a time: libvips' one error buffer is shared by
        // every thread, so without care one item's reason holds another's words, or none.
        let folder = work + "/twenty"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let landscape = Tool.fixtures + "/images/landscape.jpg"
        for ext in ["jpg", "png", "webp"] { try Tool.vips(["resize", landscape, work + "/big." + ext, "4"]) }
        func bytes(_ ext: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: work + "/big." + ext))) }
        let jpeg = try bytes("jpg"), png = try bytes("png"), webp = try bytes("webp")
        var expected: [String: (reason: String, foreign: [String])] = [:]
        func write(_ name: String, _ content: [UInt8], _ reason: String, _ foreign: [String]) throws {
            try Data(content).write(to: URL(fileURLWithPath: folder + "/" + name))
            expected[folder + "/" + name] = (reason, foreign)
        }
        for i in 0..<6 {
            try write("cut-jpg-\(i).jpg", Array(jpeg.prefix(jpeg.count * (3 + i) / 10)), "VipsJpeg: Premature end of input file", ["libpng", "webp:"])
            try write("cut-png-\(i).png", Array(png.prefix(png.count * (3 + i) / 10)), "vipspng: libpng read error", ["VipsJpeg", "webp:"])
        }
        for i in 0..<4 {
            var banded = jpeg
            let scan = try XCTUnwrap((0..<banded.count - 1).first { banded[$0] == 0xFF && banded[$0 + 1] == 0xDA })
            let start = scan + (banded.count - scan) * (2 + i) / 8
            for j in start..<(start + 2048) { banded[j] = 0xFF }
            try write("band-\(i).jpg", banded, "VipsJpeg: Corrupt JPEG data", ["libpng", "webp:"])
            try write("cut-webp-\(i).webp", Array(webp.prefix(webp.count * (2 + i) / 8)), "webp: unable to parse image", ["VipsJpeg", "libpng"])
        }
        XCTAssertEqual(expected.count, 20)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: twenty
                ingest: { from: [\(folder)] }
                filters: [CIGaussianBlur]
                export: { to: \(work!)/out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet", "--jobs", "2"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let names = expected.keys.map { ($0 as NSString).lastPathComponent }
        for (input, want) in expected {
            let line = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("  ✗ " + input + ":") },
                                     "\(input) in\n\(result.stderr)")
            let reason = String(line.dropFirst(("  ✗ " + input + ":").count))
            XCTAssertTrue(reason.contains(want.reason), "\(input): expected '\(want.reason)' in \(reason)")
            for word in want.foreign { XCTAssertFalse(reason.contains(word), "\(input): another format's words in \(reason)") }
            let mine = (input as NSString).lastPathComponent
            for other in names where other != mine {
                XCTAssertFalse(reason.contains(other), "\(input): another file's name in \(reason)")
            }
        }
    }

    func testStripRemovesAllMetadataInEveryFormatAndKeepingKeepsIt() throws {
        let input = work + "/gps/gps.jpg"
        try FileManager.default.createDirectory(atPath: work + "/gps", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: input)
        let tagged = try Tool.run("exiftool", ["-q", "-overwrite_original", "-GPSLatitude=48.85", "-GPSLatitudeRef=N",
                                               "-GPSLongitude=2.35", "-GPSLongitudeRef=E", "-Make=Test", "-Model=Cam",
                                               "-XMP:Creator=Me", "-IPTC:Keywords=k", input])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        let kept = ["Make", "Model", "GPSLatitude", "GPSLongitude"]
        let original = try kept.map { try Tool.exif(input, $0) }
        XCTAssertEqual(original, ["Test", "Cam", "48.85", "2.35"])
        // The groups exiftool reports for each kind of metadata, and what libvips 8.14's savers can hold.
        // (A TIFF's own structure — size, bits per sample — is exiftool's IFD0 too: there, the EXIF
        // sub-directory and the camera's tags must go.)
        let groups = ["EXIF:Make", "EXIF:Model", "ExifIFD:all", "GPS:all", "XMP:all", "IPTC:all", "ICC_Profile:all"]
        // TIFF's EXIF and PNG's and TIFF's IPTC are written by exiv2 after libvips' saver.
        let carriesEXIF = ["jpeg": true, "png": true, "webp": true, "tiff": true, "gif": false]
        for (format, exif) in carriesEXIF {
            for strip in [true, false] {
                let folder = work + "/out-\(format)-\(strip)"
                let path = try pipeline("""
                    version: 1
                    jobs:
                      - name: meta
                        ingest: { from: [\(work!)/gps] }
                        export: { to: \(folder), format: \(format), strip: \(strip) }
                    """)
                let result = try Tool.medley(["run", path, "--quiet"])
                XCTAssertEqual(result.status, 0, result.stderr)
                let out = try XCTUnwrap(Tool.files(under: folder).first.map { folder + "/" + $0 }, "\(format) written")
                let manifest = try String(contentsOfFile: folder + "/.medley/manifest-meta.jsonl", encoding: .utf8)
                let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(manifest.utf8)) as? [String: Any])
                let warnings = record["warnings"] as? [String] ?? []
                if strip {
                    for group in groups + (format == "tiff" ? [] : ["EXIF:all"]) {
                        XCTAssertEqual(try Tool.exif(out, group), nil, "\(format), strip: \(group) left")
                    }
                    XCTAssertEqual(warnings, [], format)
                } else if exif {
                    XCTAssertEqual(try kept.map { try Tool.exif(out, $0) }, original, "\(format) keeps EXIF and GPS")
                    XCTAssertEqual(try Tool.exif(out, "XMP-dc:Creator"), "Me", format)
                } else {
                    // Not held by the format: said, not lost silently.
                    XCTAssertEqual(try Tool.exif(out, "EXIF:Make"), nil, format)
                    XCTAssertTrue(warnings.contains { $0.contains("cannot hold the input's EXIF") }, "\(format): \(warnings)")
                }
                if !strip && !["jpeg", "png", "tiff"].contains(format) {
                    XCTAssertTrue(warnings.contains { $0.contains("IPTC") }, "\(format): IPTC fits JPEG, PNG and TIFF only: \(warnings)")
                } else if !strip {
                    XCTAssertFalse(warnings.contains { $0.contains("IPTC") }, "\(format): \(warnings)")
                    XCTAssertNotNil(try Tool.exif(out, "IPTC:all"), "\(format) keeps IPTC")
                }
            }
        }
    }

    func testLibraryWarningsAreTheItemsWarningsNotRawStderr() throws {
        // An EXIF resolution unit of 7 (only 1–3 exist): libvips decodes the file and logs
        // "unknown EXIF resolution unit" through GLib, which used to go raw to stderr.
        let folder = work + "/warn"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let odd = folder + "/odd-unit.jpg"
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: odd)
        for i in 0..<5 { try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: folder + "/clean-\(i).jpg") }
        XCTAssertEqual(try Tool.run("exiftool", ["-q", "-overwrite_original", "-n", "-ResolutionUnit=7", odd]).status, 0)
        let peer = try Tool.run("vips", ["copy", odd + "[fail]", work + "/peer.png"])
        XCTAssertEqual(peer.status, 0, "libvips decodes it, even with [fail]")
        XCTAssertTrue(peer.stderr.contains("VIPS-WARNING") && peer.stderr.contains("unknown EXIF resolution unit"), peer.stderr)
        for (kind, filters) in [("point", "[CISepiaTone]"), ("float", "[CIGaussianBlur]"), ("resize", "[{ resize: { width: 50, height: 50 } }]")] {
            let out = work + "/out-" + kind
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: warn
                    ingest: { from: [\(folder)] }
                    filters: \(filters)
                    export: { to: \(out), format: jpeg }
                """)
            let result = try Tool.medley(["run", path, "--quiet", "--jobs", "2"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertFalse(result.stderr.contains("VIPS-WARNING") || result.stderr.contains("**"), "\(kind): raw GLib line in\n\(result.stderr)")
            let records = try String(contentsOfFile: out + "/.medley/manifest-warn.jsonl", encoding: .utf8).split(separator: "\n").map {
                try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            XCTAssertEqual(records.count, 6)
            for record in records {
                let warnings = record["warnings"] as? [String] ?? []
                if (record["input"] as? String) == odd {
                    XCTAssertEqual(warnings.count, 1, "\(kind): once, with a count: \(warnings)")
                    XCTAssertTrue(warnings.first?.hasPrefix("VIPS: unknown EXIF resolution unit") == true, "\(kind): \(warnings)")
                } else {
                    XCTAssertEqual(warnings, [], "\(kind): \(record["input"] ?? "")")
                }
            }
            XCTAssertTrue(result.stderr.contains("warn  \(odd): VIPS: unknown EXIF resolution unit"), result.stderr)
        }
    }

    func testAnimatedGIFAndWebPKeepEveryFrameTheirDelaysAndLoop() throws {
        // Three flat frames, 40 × 30, 0.2 s each, looping for ever; the WebP is lossless so its
        // colours are the GIF's.
        let folder = work + "/animated"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let colours = [[200, 60, 30], [30, 180, 60], [40, 70, 220]]
        var frames: [String] = []
        for (i, c) in colours.enumerated() {
            frames.append(work + "/f\(i).png")
            XCTAssertEqual(try Tool.run("convert", ["-size", "40x30", "xc:rgb(\(c[0]),\(c[1]),\(c[2]))", frames[i]]).status, 0)
        }
        let gif = folder + "/a.gif", webp = folder + "/w.webp"
        XCTAssertEqual(try Tool.run("convert", ["-delay", "20", "-loop", "0"] + frames + [gif]).status, 0)
        try Tool.vips(["copy", gif + "[n=-1]", webp + "[lossless]"])
        XCTAssertEqual(try Tool.run("identify", ["-format", "%T\n", gif]).stdout, "20\n20\n20\n")
        XCTAssertEqual(try Tool.vipsHeader(webp, "n-pages"), "3")

        for format in ["same", "gif", "webp"] {
            let out = work + "/out-" + format
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: anim
                    ingest: { from: [\(folder)] }
                    filters: [CISepiaTone, { resize: { width: 20, height: 20 } }]
                    export: { to: \(out), format: \(format), name: "{stem}-{ext}.{ext}" }
                """)
            let result = try Tool.medley(["run", path, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let outputs = Tool.files(under: out).map { out + "/" + $0 }
            XCTAssertEqual(outputs.count, 2, "\(format): \(outputs)")
            for output in outputs {
                // 40 × 30 fitted into 20 × 20 is 20 × 15, in every frame; 3 frames of 200 ms; loop 0 (for ever).
                XCTAssertEqual(try Tool.vipsHeader(output, "n-pages"), "3", output)
                XCTAssertEqual(try Tool.vipsHeader(output + "[n=-1]", "page-height"), "15", output)
                XCTAssertEqual(try Tool.vipsHeader(output + "[n=-1]", "height"), "45", output)
                XCTAssertEqual(try Tool.vipsHeader(output, "width"), "20", output)
                XCTAssertEqual(try Tool.vipsHeader(output, "delay"), "200 200 200", output)
                XCTAssertEqual(try Tool.vipsHeader(output, "loop"), "0", output)
                if output.hasSuffix(".gif") {
                    XCTAssertEqual(try Tool.run("identify", ["-format", "%w %h %T\n", output]).stdout, "20 15 20\n20 15 20\n20 15 20\n")
                    XCTAssertEqual(try Tool.exif(output, "AnimationIterations"), "0", "0: for ever")
                }
                // Each frame is its flat colour through sepia in linear light (Support.swift's formula).
                // GIF ≤ 2 levels: its palette is built from the frame (measured ≤ 1). WebP ≤ 4: Medley
                // writes it lossy at the default quality, whose flat-colour error measured 2.7.
                // The frames stacked top to bottom (ImageMagick for the GIF, vips for the WebP).
                let stackedPath = output + "-stacked.png"
                if output.hasSuffix(".gif") {
                    XCTAssertEqual(try Tool.run("convert", [output, "-coalesce", "-append", stackedPath]).status, 0)
                } else {
                    try Tool.vips(["copy", output + "[n=-1]", stackedPath])
                }
                let stacked = try Tool.pixels(stackedPath)
                XCTAssertEqual([stacked.width, stacked.height], [20, 45], output)
                for (i, colour) in colours.enumerated() {
                    let expected = Reference.sepia(colour, intensity: 1)
                    let at = ((i * 15 + 7) * 20 + 10) * 3
                    for c in 0..<3 {
                        XCTAssertEqual(Double(stacked.samples[at + c]), expected[c], accuracy: output.hasSuffix(".gif") ? 2 : 4,
                                       "\(output) frame \(i)")
                    }
                }
            }
        }

        // A graph that composites two images (here the frame and its mirror) cannot run on an
        // animation: the item fails, saying so.
        let path = try pipeline("""
            version: 1
            jobs:
              - name: blend
                ingest: { from: [\(gif)] }
                graph:
                  mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
                  output: { filter: CISourceOverCompositing, inputImage: input, inputBackgroundImage: mirror }
                export: { to: \(work!)/blend, format: gif }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("✗ \(gif): an animation (GIF/WebP of several frames) cannot go through a graph that composites"), result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/blend"), [])

        // A composite with a generated colour is point-wise (it joins the fused pass), so it runs on
        // every frame: multiplying by opaque mid grey (0.5 in linear light) halves each frame's light.
        let tinted = try pipeline("""
            version: 1
            jobs:
              - name: tint
                ingest: { from: [\(gif)] }
                graph:
                  grey:   { filter: CIConstantColorGenerator, inputColor: [0.7353569830524495, 0.7353569830524495, 0.7353569830524495, 1] }
                  output: { filter: CIMultiplyBlendMode, inputImage: input, inputBackgroundImage: grey }
                export: { to: \(work!)/tint, format: webp, lossless: true, name: "{stem}.{ext}" }
            """, name: "tint.yaml")
        let tint = try Tool.medley(["run", tinted, "--quiet"])
        XCTAssertEqual(tint.status, 0, tint.stderr)
        let output = work + "/tint/a.webp"
        XCTAssertEqual(try Tool.vipsHeader(output, "n-pages"), "3")
        for (i, colour) in colours.enumerated() {
            let frame = work + "/tint-frame\(i).png"
            try Tool.vips(["copy", output + "[page=\(i)]", frame])
            let pixels = try Tool.pixels(frame)
            let expected = colour.map { 255 * Reference.toSRGB(Reference.toLinear(Double($0) / 255) * 0.5) }
            // ≤ 1 level: Medley rounds once to 8 bits; the colours went through GIF's palette exactly.
            for c in 0..<3 { XCTAssertEqual(Double(pixels.samples[c]), expected[c], accuracy: 1, "frame \(i) channel \(c)") }
        }
    }

    func testAnAnimationWrittenAsAStillImageSaysFramesWereDropped() throws {
        let gif = work + "/in/a.gif"
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("convert", ["-size", "8x8", "xc:red", "xc:blue", "-loop", "0", gif]).status, 0)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: still
                ingest: { from: [\(gif)] }
                export: { to: \(work!)/out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("warn  \(gif): an animation of 2 frames: .png holds one, so only the first is written"), result.stderr)
    }
}
