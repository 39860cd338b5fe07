import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// CIColorCube, CIColorCubeWithColorSpace, CIColorCubesMixedWithMask and the `.cube` parser, over
/// in-memory pixels. Expected values come from formulas written here: cubes are sampled from
/// functions defined in the test, and the interpolation a test expects is written out in Double.
final class ColorCubeTests: XCTestCase {
    /// Core Image's data layout: 4·N³ floats, red index fastest, then green, then blue, RGBA.
    static func cubeData(_ n: Int, _ f: (Double, Double, Double) -> (Double, Double, Double)) -> [Double] {
        var data: [Double] = []
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let v = f(Double(r) / Double(n - 1), Double(g) / Double(n - 1), Double(b) / Double(n - 1))
                    data += [v.0, v.1, v.2, 1]
                }
            }
        }
        return data
    }

    /// `.cube` text of a 3D table sampled from `f` (red fastest).
    static func cubeText(_ n: Int, header: String = "", _ f: (Double, Double, Double) -> (Double, Double, Double)) -> String {
        var lines = ["TITLE \"test\"", "# a comment", "LUT_3D_SIZE \(n)"] + (header.isEmpty ? [] : [header])
        let data = cubeData(n, f)
        for i in stride(from: 0, to: data.count, by: 4) {
            lines.append(String(format: "%.6f %.6f %.6f", data[i], data[i + 1], data[i + 2]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An affine map with channels swapped: exact under any interpolation (it is linear on every
    /// cell and every tetrahedron), so it checks the layout (which index is red) and the encoding.
    static func affine(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (0.2 + 0.6 * g, b, 1 - 0.8 * r)
    }

    func table(_ text: String) throws -> ColorLookupTable {
        switch CubeFile.parse(Array(text.utf8)) {
        case .success(let table): return table
        case .failure(let error): XCTFail("\(error)"); throw error
        }
    }

    func testAttributesAreCoreImages() throws {
        let cube = try XCTUnwrap(FilterRegistry.attributes(of: "CIColorCube"))
        XCTAssertEqual(cube.displayName, "Color Cube")
        XCTAssertEqual(cube.categories.first, "CICategoryColorEffect")
        let dimension = try XCTUnwrap(cube.parameter("inputCubeDimension"))
        XCTAssertEqual(dimension.type, .count)
        XCTAssertEqual(dimension.defaultValue, .number(2))
        XCTAssertEqual(dimension.minimum, 2)
        XCTAssertEqual(dimension.maximum, 128)
        // The default cube is the 2-point identity, RGBA with alpha 1, red fastest.
        XCTAssertEqual(cube.parameter("inputCubeData")?.defaultValue,
                       .vector(Self.cubeData(2) { r, g, b in (r, g, b) }))
        XCTAssertEqual(cube.parameter("inputExtrapolate")?.defaultValue, .boolean(false))
        XCTAssertEqual(cube.parameter("inputCubeData")?.type.attributeClass, "NSData")
        let mixed = try XCTUnwrap(FilterRegistry.attributes(of: "CIColorCubesMixedWithMask"))
        XCTAssertEqual(mixed.imageKeys, ["inputImage", "inputMaskImage"])
        XCTAssertNotNil(mixed.parameter("inputCube0Data"))
        XCTAssertNotNil(mixed.parameter("inputCube1Data"))
        XCTAssertEqual(FilterRegistry.attributes(of: "CIColorCubeWithColorSpace")?.parameter("inputColorSpace")?.choices,
                       ["sRGB", "linearSRGB"])
    }

    /// Inline data applies in the working space (linear light): out = f(linear(in)).
    func testInlineCubeAppliesInTheWorkingSpace() throws {
        let data = Self.cubeData(5, Self.affine)
        let recipe = try Render.filter("CIColorCube", ["inputCubeDimension": .number(5), "inputCubeData": .vector(data)])
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        // 1 level: Float arithmetic and the 8-bit encode table's rounding.
        assertPixels(out, image.pixels, tolerance: 1) { r, g, b in Self.affine(r, g, b) }
    }

    /// A curved map read trilinearly: the expected value is the trilinear formula over the cube's
    /// eight neighbours, written here.
    func testTrilinearInterpolationMatchesTheFormula() throws {
        let n = 4
        let f: (Double, Double, Double) -> (Double, Double, Double) = { r, g, b in (r * r, (g + b) / 2, sqrt(r * b)) }
        let data = Self.cubeData(n, f)
        let recipe = try Render.filter("CIColorCube", ["inputCubeDimension": .number(Double(n)), "inputCubeData": .vector(data),
                                                       "interpolation": .text("trilinear")])
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        func entry(_ r: Int, _ g: Int, _ b: Int) -> [Double] {
            let i = 4 * (r + n * (g + n * b))
            return [data[i], data[i + 1], data[i + 2]]
        }
        assertPixels(out, image.pixels, tolerance: 1) { r, g, b in
            let p = [r, g, b].map { min(max($0, 0), 1) * Double(n - 1) }
            let i = p.map { min(Int($0), n - 2) }
            let t = zip(p, i).map { $0 - Double($1) }
            var sum = [0.0, 0.0, 0.0]
            for corner in 0..<8 {
                let d = [corner & 1, corner >> 1 & 1, corner >> 2 & 1]
                let w = (0..<3).reduce(1.0) { $0 * (d[$1] == 1 ? t[$1] : 1 - t[$1]) }
                let e = entry(i[0] + d[0], i[1] + d[1], i[2] + d[2])
                for c in 0..<3 { sum[c] += w * e[c] }
            }
            return (sum[0], sum[1], sum[2])
        }
    }

    /// A file's table applies to sRGB-encoded values in a linear working space:
    /// stored out = f(stored in), checked on the 8-bit values directly.
    func testFileTableAppliesToEncodedValues() throws {
        let table = try table(Self.cubeText(9, Self.affine))
        let recipe = try Render.filter("CIColorCube", ["file": .lookupTable(table)])
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        var worst = 0.0
        for p in stride(from: 0, to: image.pixels.count, by: 3) {
            let v = Self.affine(Double(image.pixels[p]) / 255, Double(image.pixels[p + 1]) / 255, Double(image.pixels[p + 2]) / 255)
            for (c, expected) in [v.0, v.1, v.2].enumerated() { worst = max(worst, abs(Double(out[p + c]) - expected * 255)) }
        }
        // 1 level: the decode–encode round trip through linear floats.
        XCTAssertLessThanOrEqual(worst, 1)
    }

    /// The same file LUT over 16-bit rows (stored sRGB values, read directly) and over float rows
    /// (linear light: encoded for the table and decoded after): both against the formula,
    /// 16-bit within 2 steps of 65535 (Float rounding), float within 2·10⁻⁴ (the sRGB tables).
    func testFileTableOverSixteenBitAndFloatRows() throws {
        let table = try table(Self.cubeText(9, Self.affine))
        let recipe = try Render.filter("CIColorCube", ["file": .lookupTable(table)])
        let step = try XCTUnwrap(RenderPlan(recipe).steps.first)
        let kernel = step.kernel(transfer: .sRGB, imageWidth: 4, imageHeight: 1)
        let stored: [UInt16] = [0, 0, 0, 65535, 32768, 1000, 12000, 50000, 65535, 300, 40000, 20000]
        var out16 = [UInt16](repeating: 0, count: stored.count)
        stored.withUnsafeBytes { src in
            out16.withUnsafeMutableBytes { dst in
                kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: 4, bands: 3, sampleBytes: 2)
            }
        }
        for p in stride(from: 0, to: stored.count, by: 3) {
            let v = Self.affine(Double(stored[p]) / 65535, Double(stored[p + 1]) / 65535, Double(stored[p + 2]) / 65535)
            for (c, expected) in [v.0, v.1, v.2].enumerated() {
                XCTAssertEqual(Double(out16[p + c]), expected * 65535, accuracy: 2, "16-bit pixel \(p / 3)")
            }
        }
        let linear: [Float] = stored.map { Float(SRGB.toLinear(Double($0) / 65535)) }
        var outFloat = [Float](repeating: -1, count: linear.count)
        linear.withUnsafeBytes { src in
            outFloat.withUnsafeMutableBytes { dst in
                kernel.apply(row: src.baseAddress!, to: dst.baseAddress!, width: 4, bands: 3, sampleBytes: 4)
            }
        }
        for p in stride(from: 0, to: linear.count, by: 3) {
            let e = (0..<3).map { SRGB.fromLinear(Double(linear[p + $0])) }
            let v = Self.affine(e[0], e[1], e[2])
            for (c, expected) in [v.0, v.1, v.2].enumerated() {
                XCTAssertEqual(Double(outFloat[p + c]), SRGB.toLinear(expected), accuracy: 2e-4, "float pixel \(p / 3)")
            }
        }
    }

    /// An identity table leaves every 8-bit value as it was (within 1 level: the round trip
    /// 8-bit → linear float → encoded → table → linear → 8-bit).
    func testIdentityTableLeavesPixelsUnchanged() throws {
        for n in [2, 17, 33] {
            let table = try table(Self.cubeText(n) { r, g, b in (r, g, b) })
            let recipe = try Render.filter("CIColorCube", ["file": .lookupTable(table)])
            let image = Render.swatches(bands: 4)
            let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height, bands: 4)
            let worst = zip(out, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99
            XCTAssertLessThanOrEqual(worst, 1, "\(n)³ identity")
        }
    }

    /// intensity 0.5: the average of the input and the full result, in encoded values.
    func testHalfIntensityIsTheAverageOfInputAndFullResult() throws {
        let table = try table(Self.cubeText(9, Self.affine))
        let recipe = try Render.filter("CIColorCube", ["file": .lookupTable(table), "intensity": .number(0.5)])
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        var worst = 0.0
        for p in stride(from: 0, to: image.pixels.count, by: 3) {
            let input = (0..<3).map { Double(image.pixels[p + $0]) / 255 }
            let full = Self.affine(input[0], input[1], input[2])
            for (c, f) in [full.0, full.1, full.2].enumerated() {
                worst = max(worst, abs(Double(out[p + c]) - (input[c] + f) / 2 * 255))
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
        // intensity 0 plans no pass at all.
        let none = try Render.filter("CIColorCube", ["file": .lookupTable(table), "intensity": .number(0)])
        if case .source = RenderPlan(none).root {} else { XCTFail("intensity 0 should leave the image alone") }
    }

    /// 1D curves with Resolve's input range, on the stored values (colorSpace: none):
    /// the curve is sampled at LUT_1D_INPUT_RANGE 0…2, so an input x reads f(x) with f as written.
    func testOneDimensionalCurvesMatchTheFormula() throws {
        let n = 1024
        let curves: [(Double) -> Double] = [{ $0 * $0 / 4 }, { sqrt($0 / 2) }, { 1 - $0 / 2 }]
        var text = "LUT_1D_SIZE \(n)\nLUT_1D_INPUT_RANGE 0 2\n"
        for i in 0..<n {
            let x = 2 * Double(i) / Double(n - 1)
            text += curves.map { String(format: "%.7f", $0(x)) }.joined(separator: " ") + "\n"
        }
        let table = try table(text)
        XCTAssertEqual(table.shape, .curves)
        let filter = try XCTUnwrap(Filter(name: "CIColorCube"))
        filter.workingSpace = .none
        filter.setDefaults()
        try filter.setValue(.lookupTable(table), forKey: "file")
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        let recipe = try XCTUnwrap(filter.outputImage)
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height, transfer: .none)
        var worst = 0.0
        for p in stride(from: 0, to: image.pixels.count, by: 3) {
            for c in 0..<3 {
                worst = max(worst, abs(Double(out[p + c]) - curves[c](Double(image.pixels[p + c]) / 255) * 255))
            }
        }
        // Half a level of rounding plus the linear interpolation of √x near 0 (the steepest part).
        XCTAssertLessThanOrEqual(worst, 1)
    }

    /// CIColorCubeWithColorSpace sRGB in a linear working space: the table reads encoded values.
    func testColorSpaceSRGBReadsEncodedValues() throws {
        let data = Self.cubeData(5, Self.affine)
        let recipe = try Render.filter("CIColorCubeWithColorSpace", ["inputCubeDimension": .number(5), "inputCubeData": .vector(data),
                                                                     "inputColorSpace": .text("sRGB")])
        let image = Render.swatches()
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        var worst = 0.0
        for p in stride(from: 0, to: image.pixels.count, by: 3) {
            let v = Self.affine(Double(image.pixels[p]) / 255, Double(image.pixels[p + 1]) / 255, Double(image.pixels[p + 2]) / 255)
            for (c, expected) in [v.0, v.1, v.2].enumerated() { worst = max(worst, abs(Double(out[p + c]) - expected * 255)) }
        }
        XCTAssertLessThanOrEqual(worst, 1)
        XCTAssertThrowsError(try Filter(name: "CIColorCubeWithColorSpace")!.setValue(.text("displayP3"), forKey: "inputColorSpace"))
    }

    /// The mask mixes the two cubes by its luminance: 0 → cube 0, 1 → cube 1, ½ → their average.
    func testMaskMixesTheTwoCubes() throws {
        let cube0 = try XCTUnwrap(ColorLookupTable(shape: .cube, size: 2, entries: Array(repeating: SIMD4(0.1, 0.2, 0.3, 1), count: 8)))
        let cube1 = try XCTUnwrap(ColorLookupTable(shape: .cube, size: 2, entries: Array(repeating: SIMD4(0.9, 0.6, 0.5, 1), count: 8)))
        let kernel = ColorCubeMixKernel(cube0: cube0, cube1: cube1, interpolation: .tetrahedral, extrapolate: false, encoding: .working)
        let mask: [Float] = [0, 0, 0, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 1, 1, 0, 0, 1]
        let image: [Float] = [0.3, 0.4, 0.5, 0.7, 0.3, 0.4, 0.5, 0.6, 0.3, 0.4, 0.5, 0.5, 0.3, 0.4, 0.5, 1]
        var output = [Float](repeating: -1, count: 16)
        mask.withUnsafeBufferPointer { m in
            image.withUnsafeBufferPointer { i in
                output.withUnsafeMutableBufferPointer { o in
                    kernel.apply(first: m.baseAddress!, second: i.baseAddress!, to: o.baseAddress!, width: 4, bands: 4, x: 0, y: 0)
                }
            }
        }
        let red = 0.2126  // the fourth mask pixel is pure red: its luminance weight
        let expected: [[Double]] = [[0.1, 0.2, 0.3, 0.7], [0.9, 0.6, 0.5, 0.6], [0.5, 0.4, 0.4, 0.5],
                                    [0.1 + 0.8 * red, 0.2 + 0.4 * red, 0.3 + 0.2 * red, 1]]
        for (p, want) in expected.enumerated() {
            for c in 0..<4 { XCTAssertEqual(Double(output[4 * p + c]), want[c], accuracy: 1e-5, "pixel \(p) channel \(c)") }
        }
    }

    /// Extrapolation extends the edge cells linearly; without it inputs are clamped to the domain.
    /// NaN and infinities never trap.
    func testExtrapolateAndHostileValues() throws {
        let table = try XCTUnwrap(ColorLookupTable(shape: .cube, size: 3, entries: Self.cubeData(3, Self.affine)
            .chunks4.map { SIMD4(Float($0[0]), Float($0[1]), Float($0[2]), 1) }))
        for interpolation in LookupInterpolation.allCases {
            let inside = table.lookup(SIMD3(1.5, -0.5, 0.25), interpolation: interpolation, extrapolate: false)
            let clamped = Self.affine(1, 0, 0.25)
            XCTAssertEqual(Double(inside.x), clamped.0, accuracy: 1e-5)
            XCTAssertEqual(Double(inside.z), clamped.2, accuracy: 1e-5)
            let beyond = table.lookup(SIMD3(1.5, -0.5, 0.25), interpolation: interpolation, extrapolate: true)
            let linear = Self.affine(1.5, -0.5, 0.25)
            XCTAssertEqual(Double(beyond.x), linear.0, accuracy: 1e-5, "\(interpolation)")
            XCTAssertEqual(Double(beyond.z), linear.2, accuracy: 1e-5, "\(interpolation)")
            for hostile: Float in [.nan, .infinity, -.infinity, .greatestFiniteMagnitude] {
                for extrapolate in [false, true] {
                    _ = table.lookup(SIMD3(hostile, 0.5, hostile), interpolation: interpolation, extrapolate: extrapolate)
                }
            }
        }
    }

    /// Inline data whose count does not fit the dimension is a conflict (validation reports it),
    /// and no output is made.
    func testDataThatDoesNotFitTheDimensionIsAConflict() throws {
        let filter = try XCTUnwrap(Filter(name: "CIColorCube"))
        filter.setDefaults()
        try filter.setValue(.number(3), forKey: "inputCubeDimension")
        try filter.setValue(.image(.source("input")), forKey: "inputImage")
        XCTAssertEqual(filter.problem?.contains("needs 4 × 3³ = 108"), true, filter.problem ?? "no conflict")
        XCTAssertNil(filter.outputImage)
        try filter.setValue(.vector(Self.cubeData(3) { r, g, b in (r, g, b) }), forKey: "inputCubeData")
        XCTAssertNil(filter.problem)
        XCTAssertThrowsError(try filter.setValue(.vector([0, .nan, 0, 1]), forKey: "inputCubeData"))
    }

    /// Malformed `.cube` files name the line that is wrong.
    func testMalformedCubeFilesNameTheLine() {
        func failure(_ text: String) -> LUTFileError? {
            if case .failure(let error) = CubeFile.parse(Array(text.utf8)) { return error }
            return nil
        }
        let twoLines = "0 0 0\n1 0 0\n"
        var e = failure("LUT_3D_SIZE 2\n" + twoLines)
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.reason.contains("ends after 2 data lines"), true, "\(String(describing: e))")
        XCTAssertEqual(e?.reason.contains("needs 2³ = 8"), true)
        e = failure("LUT_3D_SIZE 2\n0 0 0\n1 x 0\n")
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.text, "1 x 0")
        XCTAssertEqual(e?.reason, "'x' is not a finite number")
        e = failure("# big\nLUT_3D_SIZE 256\n")
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.reason.contains("over Medley's limit of 129"), true)
        e = failure("TITLE \"no size\"\n0 0 0\n")
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.reason.contains("before LUT_3D_SIZE"), true)
        XCTAssertEqual(failure("TITLE \"empty\"\n")?.reason.contains("no LUT_3D_SIZE or LUT_1D_SIZE"), true)
        e = failure("LUT_1D_SIZE 2\nLUT_3D_SIZE 2\n")
        XCTAssertEqual(e?.line, 2)
        XCTAssertEqual(e?.reason.contains("not both"), true)
        e = failure("LUT_3D_SIZE 2\n" + String(repeating: "0 0 0\n", count: 9))
        XCTAssertEqual(e?.line, 10)
        XCTAssertEqual(e?.reason.contains("more data lines"), true)
        e = failure("LUT_3D_SIZE 2\n0 0\n")
        XCTAssertEqual(e?.line, 2)
        e = failure("LUT_3D_SIZE 2\nLUT_IN_VIDEO_RANGE\n")
        XCTAssertEqual(e?.reason.contains("unknown keyword 'LUT_IN_VIDEO_RANGE'"), true)
        e = failure("LUT_3D_SIZE 2\nDOMAIN_MIN 1 1 1\nDOMAIN_MAX 0 0 0\n" + String(repeating: "0 0 0\n", count: 8))
        XCTAssertEqual(e?.reason.contains("below its maximum"), true)
        XCTAssertEqual(failure("LUT_3D_SIZE 2\n0 0 1e999\n")?.line, 2)
    }

    /// DOMAIN_MIN/MAX map the domain onto the table: with domain 0…2, input 1 reads the middle.
    func testDomainScalesTheInput() throws {
        let table = try table("DOMAIN_MIN 0 0 0\nDOMAIN_MAX 2 2 2\n" + Self.cubeText(3) { r, g, b in (r, g, b) })
        let v = table.lookup(SIMD3(1, 0.5, 2), interpolation: .tetrahedral, extrapolate: false)
        XCTAssertEqual(v.x, 0.5, accuracy: 1e-6)
        XCTAssertEqual(v.y, 0.25, accuracy: 1e-6)
        XCTAssertEqual(v.z, 1, accuracy: 1e-6)
    }

    /// Hald CLUT images: an identity Hald of level 2 (8×8, a 4³ cube) reads back as the identity.
    func testHaldIdentityImage() throws {
        var samples: [Float] = []
        for b in 0..<4 { for g in 0..<4 { for r in 0..<4 { samples += [Float(r) / 3, Float(g) / 3, Float(b) / 3] } } }
        guard case .success(let table) = HaldCLUT.table(samples: samples, width: 8, height: 8, bands: 3) else {
            return XCTFail("not a Hald image")
        }
        XCTAssertEqual(table.size, 4)
        let v = table.lookup(SIMD3(0.2, 0.7, 0.9), interpolation: .trilinear, extrapolate: false)
        XCTAssertEqual(v.x, 0.2, accuracy: 1e-6)
        XCTAssertEqual(v.y, 0.7, accuracy: 1e-6)
        XCTAssertEqual(v.z, 0.9, accuracy: 1e-6)
        if case .success = HaldCLUT.table(samples: samples + samples, width: 8, height: 16, bands: 3) { XCTFail("not square") }
    }
}

private extension Array where Element == Double {
    var chunks4: [[Double]] { stride(from: 0, to: count, by: 4).map { Array(self[$0..<$0 + 4]) } }
}
