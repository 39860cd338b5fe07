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
        for (path, space, channels, depth) in [(lab, "srgb", "rgb", 8), (greyAlpha, "srgb", "rgba", 8),
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
}
