import Foundation
import XCTest

/// Geometry, neighbourhood and compositing filters through `medley run`, checked against
/// ImageMagick's and the vips command line's reading of the inputs and outputs, and against
/// formulas written here.
final class FilterCatalogRunTests: EndToEndCase {
    private var runs = 0

    /// Runs one job of `filters` (lines indented for the job) over one image and returns the
    /// output's path. `input` is under fixtures/ unless absolute; `colorSpace: none` filters the
    /// stored values instead of linear light.
    func run(_ filters: String, input: String = "images/landscape.jpg", format: String = "png",
             colorSpace: String? = nil) throws -> String {
        try runJob("    filters:\n" + filters, input: input, format: format, colorSpace: colorSpace)
    }

    /// Runs one job whose `graph:` has these nodes (lines indented for the graph).
    func run(graph nodes: String, input: String, colorSpace: String? = nil) throws -> String {
        try runJob("    graph:\n" + nodes, input: input, format: "png", colorSpace: colorSpace)
    }

    private func runJob(_ stage: String, input: String, format: String, colorSpace: String?) throws -> String {
        runs += 1
        let source = input.hasPrefix("/") ? input : Tool.fixtures + "/" + input
        let folder = work + "/out-\(runs)"  // one folder per run: no run can reuse another's output
        let space = colorSpace.map { "    colorSpace: \($0)" } ?? ""
        let path = try pipeline("""
            version: 1
            jobs:
              - name: f
                ingest: { from: [\(source)] }
            \(space)
            \(stage)
                export: { to: \(folder), format: \(format), name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return folder + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension + "." + format
    }

    /// The landscape fixture as a PNG written by vips, so that Medley, vips and ImageMagick all
    /// start from the same stored samples (no JPEG decoder differences).
    func landscapePNG() throws -> String {
        let path = work + "/landscape.png"
        if !FileManager.default.fileExists(atPath: path) {
            try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path])
        }
        return path
    }

    /// The landscape in linear light (scRGB floats), as vips converts it.
    func landscapeLinear() throws -> String {
        let path = work + "/landscape-linear.v"
        if !FileManager.default.fileExists(atPath: path) { try Tool.vips(["colourspace", try landscapePNG(), path, "scrgb"]) }
        return path
    }

    /// The largest and the root-mean-square difference between Medley's samples and a reference.
    func difference(_ mine: [Int], _ reference: [Double], file: StaticString = #filePath, line: UInt = #line)
        -> (worst: Double, rms: Double) {
        XCTAssertEqual(mine.count, reference.count, "sample counts", file: file, line: line)
        guard mine.count == reference.count, !mine.isEmpty else { return (.infinity, .infinity) }
        var worst = 0.0, squares = 0.0
        for (a, b) in zip(mine, reference) {
            let d = abs(Double(a) - b)
            worst = max(worst, d)
            squares += d * d
        }
        return (worst, (squares / Double(mine.count)).squareRoot())
    }

    /// A linear-light reference made by vips (scRGB floats), encoded to 8-bit sRGB by the formula in Support.swift.
    func encoded(_ linearPath: String) throws -> [Double] {
        try Tool.vipsFloats(linearPath, scratch: work).samples.map { Reference.toSRGB(Double($0)) * 255 }
    }

    func testQuarterTurnMatchesImageMagicksRotation() throws {
        let out = try run("      - CIAffineTransform: { inputTransform: [0, 1, -1, 0, 0, 0] }")
        let mine = try Tool.pixels(out)
        let reference = try Tool.pixels(Tool.fixtures + "/images/landscape.jpg")
        XCTAssertEqual([mine.width, mine.height], [150, 200])
        // Counter-clockwise: output (x, y) = input (W − 1 − y, x).
        var worst = 0
        for y in stride(from: 0, to: 200, by: 7) {
            for x in stride(from: 0, to: 150, by: 5) {
                for c in 0..<3 {
                    let a = mine.samples[(y * 150 + x) * 3 + c], b = reference.samples[(x * 200 + (199 - y)) * 3 + c]
                    worst = max(worst, abs(a - b))
                }
            }
        }
        XCTAssertLessThanOrEqual(worst, 1, "a quarter turn is exact (float round trip ≤ 1 step)")
    }

    func testCropUsesCoreImageCoordinates() throws {
        // [x y w h] = [10 20 50 40] from the bottom-left of a 200×150 image: rows 150−60…150−20.
        let out = try run("      - CICrop: { inputRectangle: [10, 20, 50, 40] }")
        let mine = try Tool.pixels(out)
        let reference = try Tool.pixels(Tool.fixtures + "/images/landscape.jpg")
        XCTAssertEqual([mine.width, mine.height], [50, 40])
        for (x, y) in [(0, 0), (49, 39), (25, 10)] {
            for c in 0..<3 {
                XCTAssertEqual(mine.samples[(y * 50 + x) * 3 + c], reference.samples[((90 + y) * 200 + 10 + x) * 3 + c],
                               accuracy: 1)
            }
        }
    }

    func testLanczosScaleMatchesVipsResizeInLinearLight() throws {
        // Medley hands CILanczosScaleTransform to vips_resize (Lanczos-3) on linear-light floats:
        // width × scale × aspect ratio, height × scale. The reference runs vips resize from vips'
        // scRGB on the command line.
        let scaled = work + "/scaled.v"
        try Tool.vips(["resize", try landscapeLinear(), scaled, "0.75", "--vscale", "0.5", "--kernel", "lanczos3"])
        let mine = try Tool.pixels(try run("      - CILanczosScaleTransform: { inputScale: 0.5, inputAspectRatio: 1.5 }",
                                           input: try landscapePNG()))
        XCTAssertEqual([mine.width, mine.height], [150, 75])
        // ≤ 1 level: Medley's rounding to 8 bits (0.5) plus float arithmetic; measured 0.53. The
        // same resize of the stored sRGB values instead of linear light is up to 49 levels away.
        XCTAssertLessThanOrEqual(difference(mine.samples, try encoded(scaled)).worst, 1)
    }

    func testResizeAsTheFirstStepMatchesVipsthumbnail() throws {
        // As a job's first step `resize` is libvips' thumbnail: shrink-on-load, the EXIF orientation
        // applied, on the stored sRGB values. vipsthumbnail with the matching box is the reference;
        // the same libvips operation on the same file gives the same samples, so equality is exact.
        let cases: [(filter: String, input: String, size: String, expected: [Int])] = [
            ("resize: { width: 64, height: 64 }", "images/landscape.jpg", "64x64", [64, 48]),  // aspectFit of 200×150
            ("resize: { width: 64, height: 64, mode: aspectFill }", "images/landscape.jpg", "64x64", [64, 64]),
            ("resize: { width: 50, height: 80, mode: fill }", "images/landscape.jpg", "50x80!", [50, 80]),
            // No height: unbounded. The stored 160×120 pixels display as 120×160 (Orientation 6).
            ("resize: { width: 60 }", "images/portrait-exif6.jpg", "60x", [60, 80]),
        ]
        for (index, item) in cases.enumerated() {
            let mine = try Tool.pixels(try run("      - " + item.filter, input: item.input))
            let reference = work + "/thumbnail-\(index).png"
            var options = ["--size=" + item.size, "-o", reference]
            if item.filter.contains("aspectFill") { options.append("--smartcrop=centre") }
            XCTAssertEqual(try Tool.run("vipsthumbnail", options + [Tool.fixtures + "/" + item.input]).status, 0)
            let theirs = try Tool.pixels(reference)
            XCTAssertEqual([mine.width, mine.height], item.expected, item.filter)
            XCTAssertEqual([theirs.width, theirs.height], item.expected, "vipsthumbnail " + item.size)
            XCTAssertEqual(difference(mine.samples, theirs.samples.map(Double.init)).worst, 0, item.filter)
        }
    }

    func testResizeAfterAnotherStepMatchesVipsResizeInLinearLight() throws {
        // Later in a chain `resize` is vips_resize on linear-light floats. Crop to the left 160×150,
        // then aspectFill 64×32: scale max(64/160, 32/150) = 0.4 → 64×60, centre crop from row
        // (60 − 32) / 2 = 14. The reference does those steps with the vips command line.
        let cropped = work + "/cropped.v", scaled = work + "/scaled.v", filled = work + "/filled.v"
        try Tool.vips(["crop", try landscapeLinear(), cropped, "0", "0", "160", "150"])
        try Tool.vips(["resize", cropped, scaled, "0.4", "--kernel", "lanczos3"])
        try Tool.vips(["crop", scaled, filled, "0", "14", "64", "32"])
        let mine = try Tool.pixels(try run("""
                  - CICrop: { inputRectangle: [0, 0, 160, 150] }
                  - resize: { width: 64, height: 32, mode: aspectFill }
            """, input: try landscapePNG()))
        XCTAssertEqual([mine.width, mine.height], [64, 32])
        // ≤ 1 level, as for CILanczosScaleTransform (measured 0.51); a crop one row off errs by 172.
        XCTAssertLessThanOrEqual(difference(mine.samples, try encoded(filled)).worst, 1)
    }

    /// vips' own Gaussian blur in float: `--precision float` (vips' default is an integer mask) and
    /// `--min-ampl 0.001`, which keeps taps out to ±3.7σ, a near-exact Gaussian (the default 0.2
    /// stops at ±1.8σ). vips extends edges by copying, as Medley does, so whole images compare.
    func vipsGaussian(_ image: String, sigma: Double) throws -> [Double] {
        let out = work + "/gaussblur-\(sigma).v"
        try Tool.vips(["gaussblur", image, out, "\(sigma)", "--precision", "float", "--min-ampl", "0.001"])
        return try Tool.vipsFloats(out, scratch: work).samples.map(Double.init)
    }

    func testSmallGaussianBlurMatchesVipsGaussblurInLinearLight() throws {
        // σ = inputRadius = 2: the exact separable path. Medley blurs in linear light by default,
        // so the reference is vips' sRGB → scRGB, gaussblur, and the sRGB encoding of Support.swift.
        let mine = try Tool.pixels(try run("      - CIGaussianBlur: { inputRadius: 2 }", input: try landscapePNG()))
        func error(sigma: Double) throws -> Double {
            let reference = try vipsGaussian(try landscapeLinear(), sigma: sigma).map { Reference.toSRGB($0) * 255 }
            return difference(mine.samples, reference).worst
        }
        // ≤ 1 level: rounding to 8 bits (0.5), float arithmetic, and Medley's taps stopping at 3σ;
        // measured 0.68.
        let right = try error(sigma: 2)
        XCTAssertLessThanOrEqual(right, 1, "σ = inputRadius")
        // The tolerance sees a σ 20 % off: against vips at 2.4 the same output is ~12 levels away.
        let wrong = try error(sigma: 2.4)
        XCTAssertGreaterThan(wrong, 5, "σ × 1.2 fails clearly (σ itself: \(right))")
    }

    func testLargeGaussianBlurMatchesVipsGaussblurOnStoredValues() throws {
        // σ = 8: the three-box running-sum cascade. With colorSpace: none Medley blurs the stored
        // values, as vips gaussblur does on a float copy of them.
        let float = work + "/landscape-float.v"
        try Tool.vips(["cast", try landscapePNG(), float, "float"])
        let mine = try Tool.pixels(try run("      - CIGaussianBlur: { inputRadius: 8 }", input: try landscapePNG(),
                                           colorSpace: "none"))
        // Three boxes are not a Gaussian: their widths are odd integers (σ 7.83 here, not 8) and their
        // step response differs from the Gaussian's by up to ~1 % of the step. At the house's hard
        // edges that is measured 2.57 levels at worst, 0.38 RMS; tolerances 3.5 and 0.6.
        let right = difference(mine.samples, try vipsGaussian(float, sigma: 8))
        XCTAssertLessThanOrEqual(right.worst, 3.5)
        XCTAssertLessThanOrEqual(right.rms, 0.6)
        // A σ 20 % off fails both clearly: against vips at 9.6 the output is 12.6 levels at worst, 2.3 RMS.
        let wrong = difference(mine.samples, try vipsGaussian(float, sigma: 9.6))
        XCTAssertGreaterThan(wrong.worst, 2 * 3.5, "σ × 1.2 (σ itself: \(right))")
        XCTAssertGreaterThan(wrong.rms, 2 * 0.6, "σ × 1.2 (σ itself: \(right))")
    }

    /// The landscape's samples in linear light, by the formula in Support.swift, and a reader that
    /// extends edges by copying (clamps coordinates), as Medley's neighbourhood filters do.
    func linearLandscape() throws -> (width: Int, height: Int, at: (Int, Int, Int) -> Double) {
        let image = try Tool.pixels(try landscapePNG())
        let linear = image.samples.map { Reference.toLinear(Double($0) / 255) }
        let width = image.width, height = image.height
        return (width, height, { x, y, c in
            linear[(min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)) * 3 + c]
        })
    }

    func testBoxBlurIsTheMeanOfItsSquareInLinearLight() throws {
        let mine = try Tool.pixels(try run("      - CIBoxBlur: { inputRadius: 3 }", input: try landscapePNG()))
        let source = try linearLandscape()
        XCTAssertEqual([mine.width, mine.height], [source.width, source.height])
        // By hand: the mean of the 7 × 7 square around each pixel, edges extended, in linear light.
        var reference: [Double] = []
        for y in 0..<source.height {
            for x in 0..<source.width {
                for c in 0..<3 {
                    var sum = 0.0
                    for dy in -3...3 { for dx in -3...3 { sum += source.at(x + dx, y + dy, c) } }
                    reference.append(Reference.toSRGB(sum / 49) * 255)
                }
            }
        }
        // ≤ 1 level: rounding to 8 bits (0.5) and float sums; measured 0.52. A 5 × 5 box is 40 levels
        // off at the house's edges, a 9 × 9 box 32, the mean of the stored sRGB values 25.
        XCTAssertLessThanOrEqual(difference(mine.samples, reference).worst, 1)
    }

    func testPixellateAveragesCellsAnchoredAtTheCentreInLinearLight() throws {
        // Cells of 10 with a corner at inputCenter (13, 37) in Core Image coordinates: x = 13 and
        // y = 150 − 37 = 113 from the top, so cell corners sit at x ≡ 3 and y ≡ 3 (mod 10); the
        // first and last rows and columns of cells cross the border.
        let mine = try Tool.pixels(try run("      - CIPixellate: { inputScale: 10, inputCenter: [13, 37] }",
                                           input: try landscapePNG()))
        let source = try linearLandscape()
        XCTAssertEqual([mine.width, mine.height], [source.width, source.height])
        // By hand: every pixel is its cell's mean in linear light; pixels of a cell beyond the border
        // are copies of the edge, as Medley's other neighbourhood filters extend edges.
        func corner(_ v: Int, _ origin: Int) -> Int { origin + Int((Double(v - origin) / 10).rounded(.down)) * 10 }
        var reference: [Double] = []
        for y in 0..<source.height {
            for x in 0..<source.width {
                let left = corner(x, 13), top = corner(y, 113)
                for c in 0..<3 {
                    var sum = 0.0
                    for cy in top..<top + 10 { for cx in left..<left + 10 { sum += source.at(cx, cy, c) } }
                    reference.append(Reference.toSRGB(sum / 100) * 255)
                }
            }
        }
        // ≤ 1 level: rounding to 8 bits and float sums; measured 0.51. A grid anchored from the top
        // (y ≡ 7) is 94 levels off, cells averaged in stored sRGB values 21.
        XCTAssertLessThanOrEqual(difference(mine.samples, reference).worst, 1)
    }

    /// The three blend modes over the mirrored landscape, the W3C formulas B(Cb, Cs) with Cb the
    /// background (the mirror image) and Cs the source.
    var blends: [(filter: String, magick: String, formula: (Double, Double) -> Double)] {
        [
            ("CIMultiplyBlendMode", "Multiply", { cb, cs in cb * cs }),
            ("CIScreenBlendMode", "Screen", { cb, cs in cb + cs - cb * cs }),
            ("CIOverlayBlendMode", "Overlay", { cb, cs in cb <= 0.5 ? 2 * cs * cb : 1 - 2 * (1 - cs) * (1 - cb) }),
        ]
    }

    func graph(blending filter: String) -> String {
        """
              mirror: { filter: CIAffineTransform, inputImage: input, inputTransform: [-1, 0, 0, 1, 0, 0] }
              output: { filter: \(filter), inputImage: input, inputBackgroundImage: mirror }
        """
    }

    func testBlendModesOnStoredValuesMatchImageMagick() throws {
        // colorSpace: none blends the stored values, as ImageMagick's -compose does. ImageMagick's
        // first image is the destination (the backdrop Cb), the second the source.
        let input = try landscapePNG(), mirror = work + "/mirror.png"
        XCTAssertEqual(try Tool.run("convert", [input, "-flop", mirror]).status, 0)
        for blend in blends {
            let mine = try Tool.pixels(try run(graph: graph(blending: blend.filter), input: input, colorSpace: "none"))
            let reference = work + "/\(blend.magick).png"
            XCTAssertEqual(try Tool.run("convert", [mirror, input, "-compose", blend.magick, "-composite", reference]).status, 0)
            // ≤ 1 level: each side rounds its result to 8 bits once (≤ 0.5 each). Overlay with the
            // layers swapped is 114 levels off.
            let theirs = try Tool.pixels(reference).samples.map(Double.init)
            XCTAssertLessThanOrEqual(difference(mine.samples, theirs).worst, 1, blend.filter)
        }
    }

    func testBlendModesInLinearLightFollowTheW3CFormulas() throws {
        // By default Core Image — and Medley — blend in linear light: decode both layers with the
        // sRGB formula, blend, encode. Both layers are opaque, so the result is B(Cb, Cs) itself.
        let input = try landscapePNG()
        let source = try Tool.pixels(input)
        let width = source.width
        let linear = source.samples.map { Reference.toLinear(Double($0) / 255) }
        for blend in blends {
            let mine = try Tool.pixels(try run(graph: graph(blending: blend.filter), input: input))
            var reference: [Double] = []
            for y in 0..<source.height {
                for x in 0..<width {
                    for c in 0..<3 {
                        let cs = linear[(y * width + x) * 3 + c], cb = linear[(y * width + width - 1 - x) * 3 + c]
                        reference.append(Reference.toSRGB(blend.formula(cb, cs)) * 255)
                    }
                }
            }
            // ≤ 1 level: rounding to 8 bits (0.5) and float arithmetic; measured ≤ 0.55. Blending the
            // stored values instead is 8 (multiply), 27 (screen) and 98 (overlay) levels away.
            XCTAssertLessThanOrEqual(difference(mine.samples, reference).worst, 1, blend.filter)
        }
    }

    func testSourceOverAConstantBackgroundFlattensAlpha() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: flatten
                ingest: { from: [\(Tool.fixtures)/images/alpha.png] }
                graph:
                  white:  { filter: CIConstantColorGenerator, inputColor: [1, 1, 1, 1] }
                  output: { filter: CISourceOverCompositing, inputImage: input, inputBackgroundImage: white }
                export: { to: out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let before = try Tool.pixels(Tool.fixtures + "/images/alpha.png", channels: "rgba")
        let after = try Tool.pixels(work + "/out/alpha.png", channels: "rgba")
        // By hand, in linear light: out = α·C + (1 − α)·1, alpha 1.
        for p in stride(from: 0, to: before.samples.count, by: 4 * 13) {
            let alpha = Double(before.samples[p + 3]) / 255
            for c in 0..<3 {
                let linear = Reference.toLinear(Double(before.samples[p + c]) / 255)
                XCTAssertEqual(Double(after.samples[p + c]), Reference.toSRGB(alpha * linear + (1 - alpha)) * 255, accuracy: 1)
            }
            XCTAssertEqual(after.samples[p + 3], 255)
        }
    }

    func testPixelLimitIsConfigurable() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: small
                ingest: { from: [\(Tool.fixtures)/images/landscape.jpg] }
                limits: { maxPixels: 10000 }
                export: { to: out, format: png }
            """)
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("200 × 150 pixels"), result.stderr)
        XCTAssertTrue(result.stderr.contains("limits.maxPixels"), result.stderr)
    }
}

/// Colour management and the example pipelines.
final class ColourAndExampleTests: EndToEndCase {
    func testEmbeddedProfilesAreConvertedToSRGBAsVipsDoes() throws {
        // A Display P3 JPEG made by vips; the reference is vips' own conversion back to sRGB.
        let p3 = work + "/p3.jpg"
        XCTAssertEqual(try Tool.run("vips", ["icc_transform", Tool.fixtures + "/images/landscape.jpg", p3, "p3"]).status, 0)
        XCTAssertEqual(try Tool.exif(p3, "ProfileDescription"), "sP3C")
        let reference = work + "/reference.png"
        XCTAssertEqual(try Tool.run("vips", ["icc_transform", p3, reference, "srgb", "--embedded"]).status, 0)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: icc
                ingest: { from: [\(p3)] }
                export: { to: out, format: png, profile: srgb }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let mine = try Tool.pixels(work + "/out/p3.png"), theirs = try Tool.pixels(reference)
        let worst = zip(mine.samples, theirs.samples).map { abs($0 - $1) }.max() ?? 99
        XCTAssertLessThanOrEqual(worst, 1)
        XCTAssertEqual(try Tool.exif(work + "/out/p3.png", "ProfileDescription"), "sRGB")
    }

    func testEveryExamplePipelineValidatesAndPlans() throws {
        let folder = Tool.packageRoot + "/pipelines"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }
        XCTAssertGreaterThanOrEqual(files.count, 4)
        for file in files {
            let validate = try Tool.medley(["validate", folder + "/" + file])
            XCTAssertEqual(validate.status, 0, "\(file): \(validate.stderr)")
            let dry = try Tool.medley(["run", folder + "/" + file, "--dry-run", "--quiet"])
            XCTAssertEqual(dry.status, 0, "\(file): \(dry.stderr)")
        }
    }
}

/// The float path with 16-bit and grey inputs.
final class DeepAndGreyRunTests: EndToEndCase {
    func testBlurKeepsSixteenBitsAndGreyBecomesRGB() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: soft
                ingest: { from: [\(Tool.fixtures)/images/deep16.png, \(Tool.fixtures)/images/gray.png] }
                filters:
                  - CIGaussianBlur: { inputRadius: 1.5 }
                export: { to: out, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The reference: vips' sRGB → scRGB (a 16-bit input keeps its 16 bits; grey becomes three
        // equal bands), vips gaussblur in float with taps to ±3.7σ, then the sRGB encoding of Support.swift.
        func reference(_ input: String, max: Double) throws -> [Double] {
            let linear = work + "/linear.v", blurred = work + "/blurred.v"
            try Tool.vips(["colourspace", input, linear, "scrgb"])
            try Tool.vips(["gaussblur", linear, blurred, "1.5", "--precision", "float", "--min-ampl", "0.001"])
            return try Tool.vipsFloats(blurred, scratch: work).samples.map { Reference.toSRGB(Double($0)) * max }
        }
        func worst(_ mine: [Int], _ theirs: [Double]) -> Double {
            XCTAssertEqual(mine.count, theirs.count)
            return zip(mine, theirs).map { abs(Double($0) - $1) }.max() ?? .infinity
        }

        let deepOut = work + "/out/deep16.png"
        XCTAssertEqual(try Tool.vipsHeader(deepOut, "bands"), "3")
        XCTAssertEqual(try Tool.vipsHeader(deepOut, "format"), "ushort", "16 bits per sample are kept")
        XCTAssertEqual(try Tool.run("identify", ["-format", "%z", deepOut]).stdout, "16")
        let deep = try Tool.pixels(deepOut, depth: 16)
        XCTAssertEqual([deep.width, deep.height], [96, 64])
        // ≤ 8 of 65535: float arithmetic and rounding to 16 bits (measured 0.51). A path through 8
        // bits would be up to 128 off (half of a 257 step; 94 % of these samples by more than 8).
        XCTAssertLessThanOrEqual(worst(deep.samples, try reference(Tool.fixtures + "/images/deep16.png", max: 65535)), 8)
        XCTAssertGreaterThan(deep.samples.filter { $0 % 257 != 0 }.count, deep.samples.count / 2)

        let greyOut = work + "/out/gray.png"
        XCTAssertEqual(try Tool.vipsHeader(greyOut, "bands"), "3", "grey is widened to RGB")
        XCTAssertEqual(try Tool.vipsHeader(greyOut, "format"), "uchar")
        XCTAssertEqual(try Tool.vipsHeader(greyOut, "interpretation"), "srgb")
        let grey = try Tool.pixels(greyOut)
        XCTAssertEqual([grey.width, grey.height], [96, 64])
        // ≤ 1 level: rounding to 8 bits (0.5) and float arithmetic (measured 0.50); the three
        // bands each match the one grey reference band, so they are equal too.
        XCTAssertLessThanOrEqual(worst(grey.samples, try reference(Tool.fixtures + "/images/gray.png", max: 255)), 1)
    }
}
