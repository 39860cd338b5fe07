import Foundation
import XCTest

/// Geometry, neighbourhood and compositing filters through `medley run`, checked with
/// ImageMagick's reading of the inputs and outputs.
final class FilterCatalogRunTests: EndToEndCase {
    func run(_ filters: String, input: String = "images/landscape.jpg", format: String = "png") throws -> String {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: f
                ingest: { from: [\(Tool.fixtures)/\(input)] }
                filters:
            \(filters)
                export: { to: out, format: \(format), name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return work + "/out/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + "." + format
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

    func testLanczosAndResizeSizes() throws {
        let scaled = try Tool.pixels(try run("      - CILanczosScaleTransform: { inputScale: 0.5, inputAspectRatio: 1.5 }"))
        XCTAssertEqual([scaled.width, scaled.height], [150, 75])
        let fit = try Tool.pixels(try run("      - resize: { width: 64, height: 64 }"))
        XCTAssertEqual([fit.width, fit.height], [64, 48], "aspectFit of 200×150 into 64×64")
        let fill = try Tool.pixels(try run("      - resize: { width: 64, height: 64, mode: aspectFill }"))
        XCTAssertEqual([fill.width, fill.height], [64, 64])
        let stretch = try Tool.pixels(try run("      - resize: { width: 50, height: 80, mode: fill }"))
        XCTAssertEqual([stretch.width, stretch.height], [50, 80])
        let portrait = try Tool.pixels(try run("      - resize: { width: 60 }", input: "images/portrait-exif6.jpg"))
        XCTAssertEqual([portrait.width, portrait.height], [60, 80], "shrink-on-load applies the EXIF orientation")
    }

    func testGaussianBlurKeepsAFlatImageFlatAndSmoothsEdges() throws {
        let out = try run("      - CIGaussianBlur: { inputRadius: 3 }")
        let before = try Tool.pixels(Tool.fixtures + "/images/landscape.jpg")
        let after = try Tool.pixels(out)
        XCTAssertEqual(after.samples.count, before.samples.count)
        // The house's hard left edge (x ≈ 40 at y = 100) becomes a ramp: the jump between neighbours shrinks.
        func jump(_ image: (width: Int, height: Int, samples: [Int])) -> Int {
            (30..<60).map { x in abs(image.samples[(100 * 200 + x + 1) * 3] - image.samples[(100 * 200 + x) * 3]) }.max()!
        }
        XCTAssertLessThan(jump(after), jump(before) / 2)
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
                export: { to: out, format: png }
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
        XCTAssertEqual(try Tool.run("identify", ["-format", "%z", work + "/out/deep16.png"]).stdout, "16")
        let deep = try Tool.pixels(work + "/out/deep16.png", depth: 16)
        let before = try Tool.pixels(Tool.fixtures + "/images/deep16.png", depth: 16)
        // In the smooth sky (top rows, away from the house's hard edges) a small blur changes
        // almost nothing; had the path dropped to 8 bits, the error would be a multiple of 257.
        for x in stride(from: 4, to: 40, by: 5) {  // left of the sun
            for c in 0..<3 {
                let i = (4 * 96 + x) * 3 + c
                XCTAssertLessThan(abs(deep.samples[i] - before.samples[i]), 200, "sky pixel \(x)")
            }
        }
        XCTAssertGreaterThan(deep.samples.filter { $0 % 257 != 0 }.count, deep.samples.count / 2)
        let grey = try Tool.pixels(work + "/out/gray.png")
        XCTAssertEqual([grey.width, grey.height], [96, 64])
    }
}
