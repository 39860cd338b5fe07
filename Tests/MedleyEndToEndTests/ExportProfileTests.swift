import Foundation
import XCTest

/// Shared steps of the export tests: one-job pipelines over prepared inputs, and comparisons with
/// what the vips command line makes of the same input.
class ExportCase: EndToEndCase {
    static let adobeRGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"
    static let grey = "/usr/share/color/icc/Gray.icc"

    /// Runs one job over `inputs` with `filters` (YAML lines) and the export fields `export`.
    @discardableResult
    func run(_ inputs: [String], filters: [String] = [], export: String, status: Int32 = 0, top: String = "") throws -> Tool.Result {
        let filterLines = filters.isEmpty ? "" : "    filters:\n" + filters.map { "      - \($0)\n" }.joined()
        let path = try pipeline("""
            version: 1
            \(top)jobs:
              - name: job
                ingest: { from: [\(inputs.joined(separator: ", "))], media: [image] }
            \(filterLines)    export: { to: out, \(export) }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, status, result.stdout + result.stderr)
        return result
    }

    /// `vips` into the scratch folder; returns the path.
    func made(_ name: String, _ arguments: [String]) throws -> String {
        let path = work + "/" + name
        try Tool.vips(arguments.map { $0.hasPrefix("OUT") ? path + $0.dropFirst(3) : $0 })
        return path
    }

    /// The largest difference of two images' samples as libvips decodes them (same size and bands).
    func largestDifference(_ a: String, _ b: String) throws -> Float {
        let x = try Tool.vipsFloats(a, scratch: work), y = try Tool.vipsFloats(b, scratch: work)
        XCTAssertEqual([x.width, x.height, x.bands], [y.width, y.height, y.bands], "\(a) vs \(b)")
        guard x.samples.count == y.samples.count else { return .infinity }
        return zip(x.samples, y.samples).map { abs($0 - $1) }.max() ?? .infinity
    }

    /// The profile description exiftool reads in the file, or nil.
    func profileName(_ path: String) throws -> String? { try Tool.exif(path, "ICC_Profile:ProfileDescription") }

    /// A copy of `source` with the ICC profile at `profile` embedded by exiftool (pixels untouched).
    func tagged(_ source: String, with profile: String, as name: String) throws -> String {
        let path = work + "/" + name
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let result = try Tool.run("exiftool", ["-q", "-overwrite_original", "-ICC_Profile<=\(profile)", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return path
    }
}

/// `export.profile`, `strip` + `keepProfile`, 16-bit outputs in a profile.
final class ExportProfileTests: ExportCase {
    let landscape = Tool.fixtures + "/images/landscape.jpg"

    /// An Adobe RGB input: the sRGB fixture converted into icc-profiles-free's Adobe RGB (1998)-compatible
    /// profile by vips, stored losslessly (PNG) with the profile embedded.
    func adobeInput() throws -> String {
        try made("adobe.png", ["icc_transform", landscape, "OUT", Self.adobeRGB, "--input-profile", "srgb", "--intent", "relative"])
    }

    func testKeepWithoutFiltersLeavesAnAdobeRGBImageAsItIs() throws {
        let input = try adobeInput()
        try run([input], export: "format: png")
        let output = work + "/out/adobe.png"
        XCTAssertEqual(try profileName(output), "Compatible with Adobe RGB (1998)")
        // No filters: the pixels are not converted at all, so they are the input's exactly.
        XCTAssertEqual(try largestDifference(output, input), 0)
    }

    func testKeepThroughAFilterConvertsBackIntoTheInputProfile() throws {
        let input = try adobeInput()
        // Sepia at intensity 0 changes nothing (SepiaRunTests: within one step), so the output is the
        // input through sRGB and back: every colour came from sRGB, so none is clipped on the way.
        try run([input], filters: ["CISepiaTone: { inputIntensity: 0 }"], export: "format: png")
        let output = work + "/out/adobe.png"
        XCTAssertEqual(try profileName(output), "Compatible with Adobe RGB (1998)")
        // Two 8-bit roundings (into sRGB, back into Adobe RGB) and the filter's step: 2 levels.
        XCTAssertLessThanOrEqual(try largestDifference(output, input), 2)
    }

    func testDisplayP3IsApplesProfileAndMatchesVipsTransform() throws {
        try run([landscape], export: "format: png, profile: p3")
        let output = work + "/out/landscape.png"
        XCTAssertEqual(try profileName(output), "Display P3")
        // Apple's Display P3 profile's colorants (D50-adapted, as exiftool prints them from
        // /System/Library/ColorSync/Profiles/Display P3.icc); the profile's fixed point holds 1/65536.
        let apple = ["RedMatrixColumn": [0.51512, 0.24120, -0.00105], "GreenMatrixColumn": [0.29198, 0.69225, 0.04189],
                     "BlueMatrixColumn": [0.15710, 0.06657, 0.78407], "MediaWhitePoint": [0.9642, 1.0, 0.82491]]
        for (tag, expected) in apple {
            let values = (try Tool.exif(output, tag) ?? "").split(separator: " ").compactMap { Double($0) }
            XCTAssertEqual(values.count, 3, tag)
            for (value, want) in zip(values, expected) { XCTAssertEqual(value, want, accuracy: 0.0002, tag) }
        }
        // The pixels: vips converting the same sRGB input into that profile (relative colorimetric).
        let profile = work + "/p3.icc"
        let extracted = try Tool.run("exiftool", ["-b", "-ICC_Profile", output])
        try extracted.data.write(to: URL(fileURLWithPath: profile))
        let reference = try made("reference.png", ["icc_transform", landscape, "OUT", profile, "--input-profile", "srgb", "--intent", "relative"])
        // The same lcms transform on the same 8-bit input: at most one level of rounding apart.
        XCTAssertLessThanOrEqual(try largestDifference(output, reference), 1)
    }

    func testDisplayP3InputStaysDisplayP3ThroughAFilter() throws {
        try run([landscape], export: "format: png, profile: p3")
        let profile = work + "/p3.icc"
        try Tool.run("exiftool", ["-b", "-ICC_Profile", work + "/out/landscape.png"]).data.write(to: URL(fileURLWithPath: profile))
        let input = try made("iphone.png", ["icc_transform", landscape, "OUT", profile, "--input-profile", "srgb"])
        try FileManager.default.removeItem(atPath: work + "/out")
        try run([input], filters: ["CISepiaTone: { inputIntensity: 0 }"], export: "format: png")
        let output = work + "/out/iphone.png"
        XCTAssertEqual(try profileName(output), "Display P3")
        XCTAssertLessThanOrEqual(try largestDifference(output, input), 2, "through sRGB and back: two roundings and the filter's step")
    }

    func testSRGBConvertsAnAdobeRGBImageAsVipsDoes() throws {
        let input = try adobeInput()
        try run([input], export: "format: png, profile: srgb")
        let output = work + "/out/adobe.png"
        XCTAssertEqual(try profileName(output).map { $0.contains("sRGB") }, true)
        let reference = try made("reference.png", ["icc_transform", input, "OUT", "srgb", "--embedded", "--intent", "relative"])
        XCTAssertLessThanOrEqual(try largestDifference(output, reference), 1, "one lcms transform each, 8-bit rounding")
    }

    func testSixteenBitOutputsStaySixteenBitInTheirProfile() throws {
        let input = Tool.fixtures + "/images/deep16.png"
        for format in ["png", "tiff"] {
            try? FileManager.default.removeItem(atPath: work + "/out")
            try run([input], export: "format: \(format), profile: adobe-rgb")
            let output = work + "/out/deep16." + (format == "tiff" ? "tif" : format)
            XCTAssertEqual(try Tool.vipsHeader(output, "format"), "ushort", format)
            XCTAssertEqual(try profileName(output), "Compatible with Adobe RGB (1998)", format)
            let reference = try made("reference-\(format).png", ["icc_transform", input, "OUT", Self.adobeRGB,
                                                                 "--input-profile", "srgb", "--depth", "16", "--intent", "relative"])
            XCTAssertEqual(try Tool.vipsHeader(reference, "format"), "ushort")
            // The same 16-bit lcms transform: a few 16-bit steps (1/65535) of rounding apart at most.
            XCTAssertLessThanOrEqual(try largestDifference(output, reference), 4, format)
        }
    }

    func testStripWithKeepProfileDropsExifAndXMPButNotTheProfile() throws {
        let input = try tagged(landscape, with: Self.adobeRGB, as: "tagged.jpg")
        let exif = try Tool.run("exiftool", ["-q", "-overwrite_original", "-Artist=someone", "-XMP-dc:Title=a title", input])
        XCTAssertEqual(exif.status, 0, exif.stderr)
        try run([input], export: "format: jpeg, quality: 95, strip: true, keepProfile: true")
        let output = work + "/out/tagged.jpg"
        for group in ["EXIF:all", "XMP:all", "IPTC:all"] { XCTAssertNil(try Tool.exif(output, group), group) }
        XCTAssertEqual(try profileName(output), "Compatible with Adobe RGB (1998)")
        // The profile survives whole: vips reads the same bytes as the input's.
        XCTAssertEqual(try Tool.run("vipsheader", ["-f", "icc-profile-data", output]).stdout,
                       try Tool.run("vipsheader", ["-f", "icc-profile-data", input]).stdout)

        // strip alone: no profile, so the pixels are sRGB (vips converting from the embedded profile).
        try FileManager.default.removeItem(atPath: work + "/out")
        let png = try made("tagged.png", ["copy", input, "OUT"])
        try run([png], export: "format: png, strip: true")
        let stripped = work + "/out/tagged.png"
        XCTAssertNil(try profileName(stripped))
        XCTAssertNil(try Tool.exif(stripped, "Artist"))
        let reference = try made("reference.png", ["icc_transform", png, "OUT", "srgb", "--embedded", "--intent", "relative"])
        XCTAssertLessThanOrEqual(try largestDifference(stripped, reference), 1)
    }

    func testGreyInputKeepsItsGreyProfile() throws {
        let input = try tagged(Tool.fixtures + "/images/gray.png", with: Self.grey, as: "grey.png")
        let expected = try profileName(input)
        XCTAssertNotNil(expected)
        try run([input], export: "format: png")
        let output = work + "/out/grey.png"
        XCTAssertEqual(try profileName(output), expected)
        XCTAssertEqual(try Tool.vipsHeader(output, "bands"), "1")
        XCTAssertEqual(try largestDifference(output, input), 0)
    }

    func testCMYKInputWithKeepIsWrittenAsSRGBWithAWarning() throws {
        let input = try made("cmyk.jpg", ["icc_transform", landscape, "OUT", "cmyk", "--input-profile", "srgb"])
        XCTAssertEqual(try Tool.vipsHeader(input, "bands"), "4")
        let result = try run([input], export: "format: jpeg")
        XCTAssertTrue((result.stdout + result.stderr).contains("CMYK ICC profile"), result.stdout + result.stderr)
        let output = work + "/out/cmyk.jpg"
        XCTAssertEqual(try Tool.vipsHeader(output, "bands"), "3")
        XCTAssertEqual(try profileName(output).map { $0.contains("sRGB") }, true)
    }

    func testProfileFileFromTheAssetsFolder() throws {
        let assets = work + "/profiles"
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/color/icc/colord/ProPhotoRGB.icc", toPath: assets + "/wide.icc")
        try run([landscape], export: "format: png, profile: profiles/wide.icc", top: "assets: [profiles]\n")
        let output = work + "/out/landscape.png"
        let expected = try profileName("/usr/share/color/icc/colord/ProPhotoRGB.icc")
        XCTAssertNotNil(expected)
        XCTAssertEqual(try profileName(output), expected)
        let reference = try made("reference.png", ["icc_transform", landscape, "OUT", assets + "/wide.icc",
                                                   "--input-profile", "srgb", "--intent", "relative"])
        XCTAssertLessThanOrEqual(try largestDifference(output, reference), 1)
    }

    func testAProfileThatIsNoICCFileFailsValidation() throws {
        let assets = work + "/profiles"
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        try "not a profile at all, just text that is long enough to pass for a header of some kind, padded out "
            .padding(toLength: 400, withPad: "x", startingAt: 0).write(toFile: assets + "/bad.icc", atomically: true, encoding: .utf8)
        let result = try run([landscape], export: "format: png, profile: profiles/bad.icc", status: 2, top: "assets: [profiles]\n")
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not an ICC profile"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))

        // A profile outside the assets folders and ingest roots: the AssetFile rule.
        let outside = try run([landscape], export: "format: png, profile: \(Self.adobeRGB)", status: 2, top: "assets: [profiles]\n")
        XCTAssertTrue(outside.stderr.contains("export.profile"), outside.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))

        // A named profile with strip and no keepProfile would write P3 pixels untagged.
        let untagged = try run([landscape], export: "format: png, profile: p3, strip: true", status: 2)
        XCTAssertTrue(untagged.stderr.contains("keepProfile"), untagged.stderr)
        let unknown = try run([landscape], export: "format: png, profile: p4", status: 2)
        XCTAssertTrue(unknown.stderr.contains("p3"), unknown.stderr)
    }
}
