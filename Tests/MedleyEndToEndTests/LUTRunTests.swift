import Foundation
import XCTest

/// LUT files through `medley run`: `.cube` files made here from a formula, applied to a fixture
/// photo by Medley and by ffmpeg's `lut3d` (tetrahedral and trilinear), a Hald CLUT compared with
/// ImageMagick's `-hald-clut`, a 1D LUT with a formula; malformed files, files outside the read
/// roots, and editing a LUT between incremental runs.
final class LUTRunTests: EndToEndCase {
    /// A non-trivial look: channels rotated (r ← g, g ← b, b ← r), gamma 0.8, saturation 1.3
    /// around the Rec. 709 luma, clamped to 0…1.
    static func look(_ r: Double, _ g: Double, _ b: Double) -> [Double] {
        let c = [g, b, r].map { pow($0, 0.8) }
        let y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
        return c.map { min(max(y + 1.3 * ($0 - y), 0), 1) }
    }

    /// `.cube` text of a 3D table sampled from `look`, red fastest.
    static func cubeText(_ n: Int, _ f: (Double, Double, Double) -> [Double] = look) -> String {
        var text = "TITLE \"look\"\n# made by LUTRunTests\nLUT_3D_SIZE \(n)\n\n"
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let v = f(Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1))
                    text += String(format: "%.6f %.6f %.6f\n", v[0], v[1], v[2])
                }
            }
        }
        return text
    }

    /// The landscape fixture as a PNG written by vips: every tool starts from the same samples.
    func landscapePNG() throws -> String {
        let path = work + "/in/landscape.png"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
            try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path])
        }
        return path
    }

    func write(_ text: String, _ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: work + "/looks", withIntermediateDirectories: true)
        let path = work + "/looks/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A pipeline over `in/` with one CIColorCube step of `parameters`, `assets: [looks]`.
    func lutPipeline(_ parameters: String, colorSpace: String? = nil, assets: String = "[looks]") throws -> String {
        try pipeline("""
            version: 1
            assets: \(assets)
            jobs:
              - name: lut
                ingest: { from: [in] }
            \(colorSpace.map { "    colorSpace: \($0)" } ?? "")
                filters:
                  - CIColorCube: \(parameters)
                export: { to: out, format: png, name: "{stem}.{ext}" }
            """)
    }

    /// Runs and returns the output's samples.
    func runLUT(_ parameters: String, colorSpace: String? = nil) throws -> [Int] {
        _ = try landscapePNG()
        let path = try lutPipeline(parameters, colorSpace: colorSpace)
        let result = try Tool.medley(["run", path, "--quiet", "--force"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try Tool.pixels(work + "/out/landscape.png").samples
    }

    /// (largest difference, mean difference) between two sample lists of the same size.
    func compare(_ mine: [Int], _ theirs: [Int], file: StaticString = #filePath, line: UInt = #line) -> (Int, Double) {
        XCTAssertEqual(mine.count, theirs.count, "sample counts", file: file, line: line)
        let d = zip(mine, theirs).map { abs($0 - $1) }
        return (d.max() ?? 999, Double(d.reduce(0, +)) / Double(max(d.count, 1)))
    }

    func ffmpeg(_ cube: String, interpolation: String) throws -> [Int] {
        let out = work + "/ffmpeg-\(interpolation).png"
        let result = try Tool.run("ffmpeg", ["-loglevel", "error", "-y", "-i", try landscapePNG(),
                                             "-vf", "lut3d=file=\(cube):interp=\(interpolation)", "-pix_fmt", "rgb24", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try Tool.pixels(out).samples
    }

    /// ffmpeg's lut3d applies the table to the stored 8-bit values and truncates its result to
    /// 8 bits; Medley rounds. So Medley is 0 or 1 level above ffmpeg: largest difference ≤ 1,
    /// about half the samples differing (a mean near 0.5, below 0.75). With the default linear
    /// working space Medley decodes, encodes for the table, decodes and encodes again: still ≤ 1.
    func testCubeFileMatchesFfmpegLut3d() throws {
        let cube = try write(Self.cubeText(33), "look.cube")
        for (interpolation, parameters) in [("tetrahedral", "{ file: looks/look.cube }"),
                                            ("trilinear", "{ file: looks/look.cube, interpolation: trilinear }")] {
            let reference = try ffmpeg(cube, interpolation: interpolation)
            for space in [nil, "none"] {
                let (worst, mean) = compare(try runLUT(parameters, colorSpace: space), reference)
                XCTAssertLessThanOrEqual(worst, 1, "\(interpolation), colorSpace \(space ?? "default")")
                XCTAssertLessThan(mean, 0.75, "\(interpolation), colorSpace \(space ?? "default")")
            }
        }
        // The look is far from the identity: the comparison means something.
        let (moved, _) = compare(try ffmpeg(cube, interpolation: "tetrahedral"), try Tool.pixels(try landscapePNG()).samples)
        XCTAssertGreaterThan(moved, 60)
    }

    /// Tetrahedral and trilinear differ on a curved look with a coarse (5³) table, and each
    /// matches its ffmpeg counterpart — the interpolation key really switches the maths.
    func testInterpolationModesDifferAsFfmpegsDo() throws {
        let cube = try write(Self.cubeText(5), "coarse.cube")
        let tetrahedral = try runLUT("{ file: looks/coarse.cube }", colorSpace: "none")
        let trilinear = try runLUT("{ file: looks/coarse.cube, interpolation: trilinear }", colorSpace: "none")
        XCTAssertLessThanOrEqual(compare(tetrahedral, try ffmpeg(cube, interpolation: "tetrahedral")).0, 1)
        XCTAssertLessThanOrEqual(compare(trilinear, try ffmpeg(cube, interpolation: "trilinear")).0, 1)
        XCTAssertGreaterThan(compare(tetrahedral, trilinear).0, 3, "the two interpolations should differ on a 5³ table")
    }

    /// A Hald CLUT made by ImageMagick (`hald:8`), altered by a known ImageMagick operation,
    /// applied by Medley (trilinear) and by `convert -hald-clut`. ImageMagick reads the Hald image
    /// with its own interpolation between the 64³ entries: within 2 levels, mean under 0.6.
    func testHaldCLUTMatchesImageMagick() throws {
        try FileManager.default.createDirectory(atPath: work + "/looks", withIntermediateDirectories: true)
        let identity = work + "/hald-identity.png", hald = work + "/looks/hald.png"
        XCTAssertEqual(try Tool.run("convert", ["hald:8", "-depth", "16", identity]).status, 0)
        XCTAssertEqual(try Tool.run("convert", [identity, "-gamma", "0.8", "-modulate", "100,140,100",
                                                "-channel", "B", "-evaluate", "multiply", "0.85", "+channel",
                                                "-depth", "16", hald]).status, 0)
        let reference = work + "/magick.png"
        XCTAssertEqual(try Tool.run("convert", [try landscapePNG(), hald, "-hald-clut", "-depth", "8", reference]).status, 0)
        let mine = try runLUT("{ file: looks/hald.png, interpolation: trilinear }")
        let (worst, mean) = compare(mine, try Tool.pixels(reference).samples)
        XCTAssertLessThanOrEqual(worst, 2)
        XCTAssertLessThan(mean, 0.6)
        XCTAssertGreaterThan(compare(mine, try Tool.pixels(try landscapePNG()).samples).0, 20, "the look changes the image")
    }

    /// A 1D LUT (Resolve's LUT_1D_INPUT_RANGE) on the stored values, against the formula: within
    /// 1 level (rounding, and linear interpolation between 4096 entries).
    func testOneDimensionalLUTMatchesTheFormula() throws {
        let curves: [(Double) -> Double] = [{ pow($0, 0.6) }, { $0 * $0 }, { 0.1 + 0.8 * $0 }]
        var text = "TITLE \"curves\"\nLUT_1D_SIZE 4096\nLUT_1D_INPUT_RANGE 0.0 1.0\n"
        for i in 0..<4096 {
            let x = Double(i) / 4095
            text += curves.map { String(format: "%.7f", $0(x)) }.joined(separator: " ") + "\n"
        }
        _ = try write(text, "curves.cube")
        let input = try Tool.pixels(try landscapePNG()).samples
        let mine = try runLUT("{ file: looks/curves.cube }")
        let expected = input.enumerated().map { i, v in Int((curves[i % 3](Double(v) / 255) * 255).rounded()) }
        let (worst, _) = compare(mine, expected)
        XCTAssertLessThanOrEqual(worst, 1)
    }

    /// An identity .cube leaves the photo's pixels unchanged (within 1 level: the linear
    /// working space's float round trip), and intensity 0.5 is the average of the input and the
    /// full look, in stored values (within 1 level).
    func testIdentityAndHalfIntensity() throws {
        _ = try write(Self.cubeText(17) { r, g, b in [r, g, b] }, "identity.cube")
        let input = try Tool.pixels(try landscapePNG()).samples
        XCTAssertLessThanOrEqual(compare(try runLUT("{ file: looks/identity.cube }"), input).0, 1)
        _ = try write(Self.cubeText(33), "look.cube")
        let full = try runLUT("{ file: looks/look.cube }")
        let half = try runLUT("{ file: looks/look.cube, intensity: 0.5 }")
        let average = zip(input, full).map { Double($0 + $1) / 2 }
        let worst = zip(half, average).map { abs(Double($0) - $1) }.max() ?? 99
        // 1.5: the full result is itself rounded to 8 bits before it is averaged here.
        XCTAssertLessThanOrEqual(worst, 1.5)
    }

    /// A malformed .cube fails validation: exit 2, FILE:LINE:COL of the `file:` value, the .cube
    /// line that is wrong, and nothing written.
    func testMalformedCubeFilesFailValidationAtTheFileValue() throws {
        _ = try landscapePNG()
        let cases: [(text: String, expected: String)] = [
            ("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n", "line 3 ('1 0 0'): the file ends after 2 data lines"),
            ("LUT_3D_SIZE 2\n0 0 0\n0 zero 0\n", "line 3 ('0 zero 0'): 'zero' is not a finite number"),
            ("# too big\nLUT_3D_SIZE 257\n", "line 2 ('LUT_3D_SIZE 257'): LUT_3D_SIZE 257 is over Medley's limit of 129"),
            ("TITLE \"x\"\n", "no LUT_3D_SIZE or LUT_1D_SIZE line"),
            ("LUT_3D_SIZE 2\nLUT_1D_SIZE 2\n", "line 2 ('LUT_1D_SIZE 2'): a file is either a 3D LUT"),
        ]
        for (index, bad) in cases.enumerated() {
            _ = try write(bad.text, "bad\(index).cube")
            let path = try lutPipeline("{ file: looks/bad\(index).cube }")
            let result = try Tool.medley(["run", path])
            XCTAssertEqual(result.status, 2, result.stderr)
            // The step is line 8; its `file:` value starts at column 30.
            XCTAssertTrue(result.stderr.contains(path + ":8:30: "), "FILE:LINE:COL in\n\(result.stderr)")
            XCTAssertTrue(result.stderr.contains(bad.expected), "\(bad.expected) in\n\(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
        }
        // Inline data of the wrong size for its dimension fails too.
        let path = try lutPipeline("{ inputCubeDimension: 3, inputCubeData: [0, 0, 0, 1] }")
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("inputCubeData has 4 numbers, but a cube of inputCubeDimension 3 needs 4 × 3³ = 108"),
                      result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }

    /// A LUT outside the pipeline's read roots is refused at validation: exit 2, nothing written.
    func testLUTOutsideTheReadRootsFailsValidation() throws {
        _ = try landscapePNG()
        _ = try write(Self.cubeText(2) { r, g, b in [r, g, b] }, "ok.cube")
        let path = try lutPipeline("{ file: looks/ok.cube }", assets: "[]")
        let result = try Tool.medley(["run", path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(path + ":8:30: "), result.stderr)
        XCTAssertTrue(result.stderr.contains("outside the folders this pipeline may read"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }

    /// CIColorCubesMixedWithMask in a graph, the photo as its own mask: identity cube and inverting
    /// cube mixed by the mask's Rec. 709 luminance, all in linear light:
    /// out = c + Y·((1 − c) − c), Y = 0.2126 r + 0.7152 g + 0.0722 b, with the sRGB transfer
    /// functions of Support.swift; within 1 level (8-bit rounding, the float path's encode).
    func testCubesMixedWithMaskInAGraph() throws {
        let input = try landscapePNG()
        let identity = "[0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1]"
        let inverted = "[1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1]"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: mixed
                ingest: { from: [in] }
                graph:
                  output: { filter: CIColorCubesMixedWithMask, inputImage: input, inputMaskImage: input,
                            inputCube0Data: \(identity), inputCube1Data: \(inverted) }
                export: { to: out, format: png, name: "{stem}.{ext}" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stored = try Tool.pixels(input).samples
        var expected: [Int] = []
        for p in stride(from: 0, to: stored.count, by: 3) {
            let c = (0..<3).map { Reference.toLinear(Double(stored[p + $0]) / 255) }
            let y = min(max(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2], 0), 1)
            expected += c.map { Int((Reference.toSRGB($0 + y * (1 - 2 * $0)) * 255).rounded()) }
        }
        let mine = try Tool.pixels(work + "/out/landscape.png").samples
        XCTAssertLessThanOrEqual(compare(mine, expected).0, 1)
    }

    /// Editing the LUT file redoes the items on the next incremental run; an unchanged one skips them.
    func testEditingTheLUTRedoesItems() throws {
        _ = try landscapePNG()
        _ = try write(Self.cubeText(9), "look.cube")
        let path = try lutPipeline("{ file: looks/look.cube }")
        func events() throws -> [String] {
            let result = try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
            XCTAssertEqual(result.status, 0, result.stderr)
            return try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n").compactMap { line in
                let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                guard let kind = event?["event"] as? String, ["itemFinished", "itemSkipped", "itemFailed"].contains(kind) else { return nil }
                return kind
            }
        }
        XCTAssertEqual(try events(), ["itemFinished"])
        let first = try Tool.pixels(work + "/out/landscape.png").samples
        XCTAssertEqual(try events(), ["itemSkipped"])
        _ = try write(Self.cubeText(9) { r, g, b in [1 - r, 1 - g, 1 - b] }, "look.cube")
        XCTAssertEqual(try events(), ["itemFinished"])
        let second = try Tool.pixels(work + "/out/landscape.png").samples
        XCTAssertGreaterThan(compare(first, second).0, 50, "the new LUT was applied")
    }
}
