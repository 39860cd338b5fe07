import Foundation
import MedleyFilters
import MedleyKernels
import XCTest

/// The convolution, rank, blur and stylize filters of issue 16, run through their kernels on small
/// float blocks with edges extended (as the renderer feeds them). Expected values are formulas
/// written here in Double, from each filter's stated reference.
final class NeighbourhoodCatalogTests: XCTestCase {
    /// A small image given by a function of (x, y, channel), y down, with edges extended.
    struct Picture {
        let width, height, bands: Int
        let value: (Int, Int, Int) -> Double
        /// The sample at (x, y), coordinates clamped into the image (edges extended).
        func at(_ x: Int, _ y: Int, _ c: Int) -> Double {
            value(min(max(x, 0), width - 1), min(max(y, 0), height - 1), c)
        }
    }

    /// A deterministic irregular picture: values in 0…1, alpha (band 3) in 0.2…1.
    static func noise(width: Int = 23, height: Int = 17, bands: Int = 3) -> Picture {
        Picture(width: width, height: height, bands: bands) { x, y, c in
            let h = (x * 73_856_093) ^ (y * 19_349_663) ^ (c * 83_492_791)
            let unit = Double((h & 0xFFFF) % 1000) / 999
            return c == 3 ? 0.2 + 0.8 * unit : unit
        }
    }

    /// Runs a recipe that is one region step over the picture (one block, margin filled by
    /// extending edges) and returns the output samples.
    func render(_ recipe: FilterImage, _ picture: Picture, file: StaticString = #filePath, line: UInt = #line) -> [Float] {
        guard case .region(let kernel, .source) = recipe else {
            XCTFail("expected one region step over the source", file: file, line: line)
            return []
        }
        return render(kernel, picture)
    }

    func render(_ kernel: RegionKernel, _ picture: Picture) -> [Float] {
        let m = kernel.margin, b = picture.bands
        let w = picture.width + 2 * m, h = picture.height + 2 * m
        var input = [Float](repeating: 0, count: w * h * b)
        for y in 0..<h { for x in 0..<w { for c in 0..<b { input[(y * w + x) * b + c] = Float(picture.at(x - m, y - m, c)) } } }
        var output = [Float](repeating: .nan, count: picture.width * picture.height * b)
        input.withUnsafeBufferPointer { src in output.withUnsafeMutableBufferPointer { dst in
            kernel.apply(input: src.baseAddress!, inputStride: w * b, output: dst.baseAddress!, outputStride: picture.width * b,
                         width: picture.width, height: picture.height, bands: b, x: 0, y: 0,
                         imageWidth: picture.width, imageHeight: picture.height)
        } }
        return output
    }

    /// The worst difference between `output` and `expected(x, y, c)` over every sample.
    func worst(_ output: [Float], _ picture: Picture, _ expected: (Int, Int, Int) -> Double) -> Double {
        var worst = 0.0
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                for c in 0..<picture.bands {
                    let value = Double(output[(y * picture.width + x) * picture.bands + c])
                    worst = max(worst, value.isFinite ? abs(value - expected(x, y, c)) : .infinity)
                }
            }
        }
        return worst
    }

    // MARK: - Convolutions

    func testConvolution3X3IsACorrelationWithBiasOnPremultipliedRGBA() throws {
        // An asymmetric matrix: a flipped (convolution-order) or transposed application fails.
        let weights: [Double] = [0.1, 0.5, -0.2, 0.3, 0.4, 0, -0.1, 0.2, 0.05]
        let recipe = try Render.filter("CIConvolution3X3", ["inputWeights": .vector(weights), "inputBias": .number(0.03)])
        let picture = Self.noise(bands: 4)
        func premultiplied(_ x: Int, _ y: Int, _ c: Int) -> Double {
            c == 3 ? picture.at(x, y, 3) : picture.at(x, y, c) * picture.at(x, y, 3)
        }
        func sum(_ x: Int, _ y: Int, _ c: Int) -> Double {
            var s = 0.03
            for j in 0..<3 { for i in 0..<3 { s += weights[j * 3 + i] * premultiplied(x + i - 1, y + j - 1, c) } }
            return s
        }
        let out = render(recipe, picture)
        // Float arithmetic over nine products and an unpremultiply: 1e-5 of the unit range.
        XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
            let alpha = min(max(sum(x, y, 3), 0), 1)
            return c == 3 ? alpha : (alpha > 1e-6 ? sum(x, y, c) / alpha : 0)
        }, 2e-5)
    }

    func testRGBConvolutionLeavesAlphaAndConvolvesStoredColour() throws {
        var weights = [Double](repeating: 0, count: 25)
        weights[0] = 0.5; weights[12] = 0.25; weights[24] = 0.25  // top-left, centre, bottom-right
        let recipe = try Render.filter("CIConvolutionRGB5X5", ["inputWeights": .vector(weights), "inputBias": .number(-0.1)])
        let picture = Self.noise(bands: 4)
        let out = render(recipe, picture)
        XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
            c == 3 ? picture.at(x, y, 3)
                : -0.1 + 0.5 * picture.at(x - 2, y - 2, c) + 0.25 * picture.at(x, y, c) + 0.25 * picture.at(x + 2, y + 2, c)
        }, 1e-5)
    }

    func testNineTapConvolutionsRunAlongTheirAxis() throws {
        // Weight 0 is the leftmost (horizontal) or topmost (vertical) tap.
        let weights: [Double] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
        let picture = Self.noise()
        let horizontal = render(try Render.filter("CIConvolution9Horizontal", ["inputWeights": .vector(weights)]), picture)
        XCTAssertLessThanOrEqual(worst(horizontal, picture) { x, y, c in picture.at(x - 4, y, c) }, 1e-6)
        let vertical = render(try Render.filter("CIConvolutionRGB9Vertical", ["inputWeights": .vector(weights)]), picture)
        XCTAssertLessThanOrEqual(worst(vertical, picture) { x, y, c in picture.at(x, y - 4, c) }, 1e-6)
        let seven = (0..<49).map { Double($0 % 7) / 100 }
        let out = render(try Render.filter("CIConvolution7X7", ["inputWeights": .vector(seven)]), picture)
        XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
            var s = 0.0
            for j in 0..<7 { for i in 0..<7 { s += seven[j * 7 + i] * picture.at(x + i - 3, y + j - 3, c) } }
            return s
        }, 1e-5)
    }

    func testWeightsOfTheWrongLengthAreRefused() throws {
        let filter = try XCTUnwrap(Filter(name: "CIConvolution3X3"))
        XCTAssertThrowsError(try filter.setValue(.vector([1, 2, 3]), forKey: "inputWeights"))
        XCTAssertThrowsError(try filter.setValue(.vector([Double](repeating: 0, count: 25)), forKey: "inputWeights"))
        XCTAssertThrowsError(try filter.setValue(.vector([0, 0, 0, 0, .infinity, 0, 0, 0, 0]), forKey: "inputWeights"))
        XCTAssertNoThrow(try filter.setValue(.vector([Double](repeating: 1 / 9, count: 9)), forKey: "inputWeights"))
        let light = try XCTUnwrap(Filter(name: "CISpotLight"))
        XCTAssertThrowsError(try light.setValue(.vector([1, 2]), forKey: "inputLightPosition"))
        XCTAssertNoThrow(try light.setValue(.vector([1, 2, 3]), forKey: "inputLightPosition"))
    }

    // MARK: - Rank and morphology

    func testMedianIsTheMiddleOfNineSamples() throws {
        // 23 columns: the vector path and the overlapping last vector of each row.
        for bands in [3, 4] {
            let picture = Self.noise(bands: bands)
            let out = render(try Render.filter("CIMedianFilter"), picture)
            XCTAssertEqual(worst(out, picture) { x, y, c in
                var values: [Double] = []
                for dy in -1...1 { for dx in -1...1 { values.append(picture.at(x + dx, y + dy, c)) } }
                return values.sorted()[4]
            }, 0, accuracy: 1e-6, "bands \(bands)")
        }
        // A row narrower than one vector takes the scalar path.
        let narrow = Self.noise(width: 2, height: 5)
        let out = render(try Render.filter("CIMedianFilter"), narrow)
        XCTAssertEqual(worst(out, narrow) { x, y, c in
            var values: [Double] = []
            for dy in -1...1 { for dx in -1...1 { values.append(narrow.at(x + dx, y + dy, c)) } }
            return values.sorted()[4]
        }, 0, accuracy: 1e-6)
    }

    /// The extreme of each channel over the pixels with dx² + dy² ≤ r².
    func discExtreme(_ picture: Picture, radius: Double, _ x: Int, _ y: Int, _ c: Int, maximum: Bool) -> Double {
        let reach = Int(radius)
        var best = maximum ? -Double.infinity : .infinity
        for dy in -reach...reach {
            for dx in -reach...reach where Double(dx * dx + dy * dy) <= radius * radius {
                let v = picture.at(x + dx, y + dy, c)
                best = maximum ? max(best, v) : min(best, v)
            }
        }
        return best
    }

    func testMorphologyUsesADiscAndTheGradientIsTheirDifference() throws {
        let picture = Self.noise(width: 30, height: 21)
        for radius in [1.0, 2.5, 4.0] {
            let dilated = render(try Render.filter("CIMorphologyMaximum", ["inputRadius": .number(radius)]), picture)
            XCTAssertEqual(worst(dilated, picture) { discExtreme(picture, radius: radius, $0, $1, $2, maximum: true) }, 0,
                           accuracy: 1e-6, "maximum, r \(radius)")
            let eroded = render(try Render.filter("CIMorphologyMinimum", ["inputRadius": .number(radius)]), picture)
            XCTAssertEqual(worst(eroded, picture) { discExtreme(picture, radius: radius, $0, $1, $2, maximum: false) }, 0,
                           accuracy: 1e-6, "minimum, r \(radius)")
        }
        let rgba = Self.noise(width: 19, height: 13, bands: 4)
        let gradient = render(try Render.filter("CIMorphologyGradient", ["inputRadius": .number(2)]), rgba)
        XCTAssertEqual(worst(gradient, rgba) { x, y, c in
            c == 3 ? rgba.at(x, y, 3)
                : discExtreme(rgba, radius: 2, x, y, c, maximum: true) - discExtreme(rgba, radius: 2, x, y, c, maximum: false)
        }, 0, accuracy: 1e-6)
    }

    func testRectangleSidesAreOddAndRoundedUp() throws {
        let picture = Self.noise(width: 26, height: 15)
        func extreme(_ x: Int, _ y: Int, _ c: Int, halfWidth: Int, halfHeight: Int, maximum: Bool) -> Double {
            var best = maximum ? -Double.infinity : .infinity
            for dy in -halfHeight...halfHeight {
                for dx in -halfWidth...halfWidth {
                    best = maximum ? max(best, picture.at(x + dx, y + dy, c)) : min(best, picture.at(x + dx, y + dy, c))
                }
            }
            return best
        }
        // 7 × 3 as given; 4 × 2 becomes 5 × 3.
        let wide = render(try Render.filter("CIMorphologyRectangleMaximum", ["inputWidth": .number(7), "inputHeight": .number(3)]), picture)
        XCTAssertEqual(worst(wide, picture) { extreme($0, $1, $2, halfWidth: 3, halfHeight: 1, maximum: true) }, 0, accuracy: 1e-6)
        let even = render(try Render.filter("CIMorphologyRectangleMinimum", ["inputWidth": .number(4), "inputHeight": .number(2)]), picture)
        XCTAssertEqual(worst(even, picture) { extreme($0, $1, $2, halfWidth: 2, halfHeight: 1, maximum: false) }, 0, accuracy: 1e-6)
    }

    // MARK: - Blurs

    func testDiscBlurIsTheMeanOverTheDisc() throws {
        for bands in [3, 4] {
            let picture = Self.noise(width: 40, height: 20, bands: bands)
            let radius = 5.5
            let out = render(try Render.filter("CIDiscBlur", ["inputRadius": .number(radius)]), picture)
            XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
                var sum = 0.0, alpha = 0.0, count = 0.0
                for dy in -5...5 {
                    for dx in -5...5 where Double(dx * dx + dy * dy) <= radius * radius {
                        let a = bands == 4 ? picture.at(x + dx, y + dy, 3) : 1
                        sum += c == 3 ? a : picture.at(x + dx, y + dy, c) * a
                        alpha += a
                        count += 1
                    }
                }
                return c == 3 ? alpha / count : sum / alpha
            }, 1e-4, "bands \(bands): running sums in Float over ≤ 51 columns")
        }
    }

    func testBokehWithoutRingOrSoftnessIsTheDiscBlur() throws {
        let picture = Self.noise(width: 24, height: 18)
        let radius = 4.0
        let out = render(try Render.filter("CIBokehBlur", ["inputRadius": .number(radius), "inputRingAmount": .number(0),
                                                           "inputSoftness": .number(0)]), picture)
        XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
            var sum = 0.0, count = 0.0
            for dy in -4...4 { for dx in -4...4 where Double(dx * dx + dy * dy) <= radius * radius {
                sum += picture.at(x + dx, y + dy, c); count += 1
            } }
            return sum / count
        }, 1e-5)
        // A ring weights the rim more: on a picture bright only at one pixel, the rim gets more of it.
        let spot = Picture(width: 21, height: 21, bands: 3) { x, y, _ in x == 10 && y == 10 ? 1 : 0 }
        let ringed = render(try Render.filter("CIBokehBlur", ["inputRadius": .number(6), "inputRingAmount": .number(1),
                                                              "inputRingSize": .number(0.2), "inputSoftness": .number(0)]), spot)
        let rim = ringed[(10 * 21 + 16) * 3], middle = ringed[(10 * 21 + 12) * 3]
        XCTAssertEqual(Double(rim / middle), 2, accuracy: 1e-4, "ring weight 1 + 1 against 1")
    }

    func testMotionBlurAveragesALineAtTheAngle() throws {
        let picture = Self.noise(width: 30, height: 12)
        let flat = render(try Render.filter("CIMotionBlur", ["inputRadius": .number(3), "inputAngle": .number(0)]), picture)
        XCTAssertLessThanOrEqual(worst(flat, picture) { x, y, c in
            (-3...3).reduce(0) { $0 + picture.at(x + $1, y, c) } / 7
        }, 1e-5)
        // 90° counter-clockwise in Core Image (y up) is along the columns; symmetric, so up and down alike.
        let upright = render(try Render.filter("CIMotionBlur", ["inputRadius": .number(2), "inputAngle": .number(Double.pi / 2)]), picture)
        XCTAssertLessThanOrEqual(worst(upright, picture) { x, y, c in
            (-2...2).reduce(0) { $0 + picture.at(x, y + $1, c) } / 5
        }, 1e-5)
        // 45°: samples at (k·cos, −k·sin) fall between pixels; on a linear ramp bilinear sampling is exact,
        // so the mean is the ramp at the pixel itself (away from the clamped border).
        let ramp = Picture(width: 30, height: 30, bands: 3) { x, y, c in 0.01 * Double(x) + 0.02 * Double(y) + 0.1 * Double(c) }
        let diagonal = render(try Render.filter("CIMotionBlur", ["inputRadius": .number(4), "inputAngle": .number(Double.pi / 4)]), ramp)
        for (x, y) in [(10, 10), (15, 20), (22, 8)] {
            XCTAssertEqual(Double(diagonal[(y * 30 + x) * 3]), ramp.at(x, y, 0), accuracy: 1e-5)
        }
    }

    func testZoomBlurAveragesTowardsTheCentre() throws {
        // A ramp along x, 64 × 33; centre at the middle row in Core Image coordinates (y = 16.5 up = row 16).
        let ramp = Picture(width: 64, height: 33, bands: 3) { x, _, c in 0.01 * Double(x) + 0.05 * Double(c) }
        let out = render(try Render.filter("CIZoomBlur", ["inputCenter": .vector([10.5, 16.5]), "inputAmount": .number(50)]), ramp)
        for x in [10, 30, 50, 63] {
            // Pixel centre x + 0.5, distance d to 10.5; the segment covers half of it towards the centre, so the
            // mean of a linear ramp is its value at the segment's midpoint: x + 0.5 − d/4.
            let d = Double(x) + 0.5 - 10.5
            let midpoint = Double(x) + 0.5 - d / 4 - 0.5  // back to pixel-index units
            XCTAssertEqual(Double(out[(16 * 64 + x) * 3]), 0.01 * midpoint, accuracy: 2e-5, "x \(x)")
        }
        // A centre far away (1e30) blurs at most the bounded reach and stays finite.
        let far = render(try Render.filter("CIZoomBlur", ["inputCenter": .vector([1e30, -1e30]), "inputAmount": .number(200)]), ramp)
        XCTAssertTrue(far.allSatisfy { $0.isFinite })
        guard case .region(let kernel, _) = try Render.filter("CIZoomBlur", ["inputAmount": .number(1e30)]) else { return XCTFail() }
        XCTAssertLessThanOrEqual(kernel.margin, 257, "the reach is bounded whatever the amount")
    }

    // MARK: - Stylize

    func testBloomScreensAndGloomMultipliesTheBlurredCopy() throws {
        // On a flat picture the blur changes nothing, so G = in.
        let flat = Picture(width: 12, height: 12, bands: 3) { _, _, c in [0.2, 0.5, 0.8][c] }
        let bloom = render(try Render.filter("CIBloom", ["inputIntensity": .number(0.6), "inputRadius": .number(3)]), flat)
        XCTAssertLessThanOrEqual(worst(bloom, flat) { _, _, c in
            let v = flat.at(0, 0, c)
            return v + 0.6 * ((1 - (1 - v) * (1 - v)) - v)
        }, 1e-5)
        let gloom = render(try Render.filter("CIGloom", ["inputIntensity": .number(0.6), "inputRadius": .number(3)]), flat)
        XCTAssertLessThanOrEqual(worst(gloom, flat) { _, _, c in
            let v = flat.at(0, 0, c)
            return v + 0.6 * (v * v - v)
        }, 1e-5)
    }

    func testEdgesIsTheSobelMagnitude() throws {
        let picture = Self.noise(width: 17, height: 11, bands: 4)
        let out = render(try Render.filter("CIEdges", ["inputIntensity": .number(2)]), picture)
        XCTAssertLessThanOrEqual(worst(out, picture) { x, y, c in
            if c == 3 { return picture.at(x, y, 3) }
            func p(_ dx: Int, _ dy: Int) -> Double { picture.at(x + dx, y + dy, c) }
            let gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1)
            let gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1)
            return 2 * (gx * gx + gy * gy).squareRoot()
        }, 1e-5)
    }

    func testLineOverlayAndComicDrawLinesOnlyAtEdges() throws {
        // A vertical step from 0.1 to 0.9 at column 10: Sobel |∇Y| = 4·0.8 next to it, 0 elsewhere.
        let step = Picture(width: 20, height: 8, bands: 3) { x, _, _ in x < 10 ? 0.1 : 0.9 }
        let comic = render(try Render.filter("CIComicEffect"), step)
        XCTAssertLessThanOrEqual(worst(comic, step) { x, y, c in (x == 9 || x == 10) ? 0 : step.at(x, y, c) }, 1e-6)
        // Line overlay on an opaque image: black lines over white; flat parts stay white.
        let lines = render(try Render.filter("CILineOverlay", ["inputNRNoiseLevel": .number(0), "inputNRSharpness": .number(0)]), step)
        XCTAssertLessThanOrEqual(worst(lines, step) { x, _, _ in (x == 9 || x == 10) ? 0 : 1 }, 1e-6)
    }

    func testEdgeWorkMarksTheDarkSideOfAnEdge() throws {
        let step = Picture(width: 30, height: 6, bands: 3) { x, _, _ in x < 15 ? 0.1 : 0.9 }
        let out = render(try Render.filter("CIEdgeWork", ["inputRadius": .number(2)]), step)
        // Next to the edge the blur pulls the dark side up by far more than 0.02: white; far away flat: black.
        XCTAssertEqual(out[(2 * 30 + 14) * 3], 1, accuracy: 1e-6)
        XCTAssertEqual(out[(2 * 30 + 2) * 3], 0, accuracy: 1e-6)
        XCTAssertEqual(out[(2 * 30 + 16) * 3], 0, accuracy: 1e-6, "the bright side is pulled down: no stroke")
    }

    /// A picture whose colour encodes its own position, so an output pixel tells where it was sampled.
    static func positions(width: Int, height: Int) -> Picture {
        Picture(width: width, height: height, bands: 3) { x, y, c in [Double(x), Double(y), 0][c] }
    }

    func testCrystallizeCellsAreVoronoiCellsOfTheirSeeds() throws {
        let width = 90, height = 70, radius = 12.0
        let picture = Self.positions(width: width, height: height)
        let out = render(try Render.filter("CICrystallize", ["inputRadius": .number(radius), "inputCenter": .vector([7, 9])]), picture)
        // Each output pixel names the pixel it took its colour from: its cell's seed (clamped into the image).
        var seeds = Set<[Int]>()
        var owner: [[Int]] = []
        for p in 0..<(width * height) {
            let seed = [Int(out[p * 3]), Int(out[p * 3 + 1])]
            seeds.insert(seed)
            owner.append(seed)
        }
        // About one seed per radius² (the image holds ~44 cells); at least a few dozen, never one per pixel.
        XCTAssertGreaterThan(seeds.count, 25)
        XCTAssertLessThan(seeds.count, 80)
        // Voronoi: no other seed is nearer than a pixel's own (within a pixel: seeds sit between pixel centres).
        let interior = seeds.filter { $0[0] > 0 && $0[0] < width - 1 && $0[1] > 0 && $0[1] < height - 1 }
        var violations = 0
        for y in stride(from: 0, to: height, by: 3) {
            for x in stride(from: 0, to: width, by: 3) {
                let mine = owner[y * width + x]
                guard interior.contains(mine) else { continue }
                func distance(_ s: [Int]) -> Double { (Double((s[0] - x) * (s[0] - x) + (s[1] - y) * (s[1] - y))).squareRoot() }
                let own = distance(mine)
                if interior.contains(where: { distance($0) < own - 1.5 }) { violations += 1 }
            }
        }
        XCTAssertEqual(violations, 0)
        // The same layout on every run.
        XCTAssertEqual(render(try Render.filter("CICrystallize", ["inputRadius": .number(radius), "inputCenter": .vector([7, 9])]), picture), out)
    }

    func testPointillizeDotsHaveTheirRadiusAndWhiteBetween() throws {
        let width = 80, height = 60, radius = 6.0
        let picture = Self.positions(width: width, height: height)
        // Pixels hold (x, y, 0) ≥ 0 and white is (1, 1, 1): blue 1 marks the background.
        let out = render(try Render.filter("CIPointillize", ["inputRadius": .number(radius)]), picture)
        var background = 0, farthest = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let p = (y * width + x) * 3
                if out[p + 2] == 1 { background += 1; continue }
                let sx = Double(out[p]), sy = Double(out[p + 1])
                guard sx > 0, sx < Double(width - 1), sy > 0, sy < Double(height - 1) else { continue }
                farthest = max(farthest, ((sx - Double(x)) * (sx - Double(x)) + (sy - Double(y)) * (sy - Double(y))).squareRoot())
            }
        }
        // Seeds are sampled at the pixel below them: a pixel lies within the radius plus one pixel of its seed.
        XCTAssertLessThanOrEqual(farthest, radius + 1.5)
        XCTAssertGreaterThan(background, 0, "white between the dots")
        XCTAssertLessThan(background, width * height, "and dots")
    }

    func testHexagonalPixellateSamplesHexagonCentres() throws {
        let width = 80, height = 60, side = 7.0, cx = 40.0, cy = 30.0
        let picture = Self.positions(width: width, height: height)
        let out = render(try Render.filter("CIHexagonalPixellate", ["inputScale": .number(side), "inputCenter": .vector([cx, cy])]), picture)
        // Pointy-top centres (Core Image coordinates): c + (√3·s·(q + r/2), 1.5·s·r) for integers q, r.
        var checked = 0
        for y in stride(from: 5, to: height - 5, by: 2) {
            for x in stride(from: 5, to: width - 5, by: 2) {
                let p = (y * width + x) * 3
                // Sampled pixel (column, row) holds the centre, rounded down, row counted from the top.
                let px = Double(x) + 0.5, py = Double(height - y) - 0.5
                var best = (Double.infinity, 0.0, 0.0)
                for r in -10...10 {
                    for q in -10...10 {
                        let hx = cx + 3.0.squareRoot() * side * (Double(q) + Double(r) / 2), hy = cy + 1.5 * side * Double(r)
                        let d = (hx - px) * (hx - px) + (hy - py) * (hy - py)
                        if d < best.0 { best = (d, hx, hy) }
                    }
                }
                XCTAssertEqual(Double(out[p]), best.1.rounded(.down), accuracy: 0.5, "x \(x) y \(y)")
                XCTAssertEqual(Double(out[p + 1]), (Double(height) - best.2).rounded(.down), accuracy: 0.5, "x \(x) y \(y)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    func testSpotLightFollowsTheSVGSpotlightFormula() throws {
        let image = Render.swatches()
        let light = [30.0, 2.0, 20.0], target = [5.0, 10.0, 0.0]
        let recipe = try Render.filter("CISpotLight", [
            "inputLightPosition": .vector(light), "inputLightPointsAt": .vector(target),
            "inputBrightness": .number(2), "inputConcentration": .number(0.7),
            "inputColor": .color(red: 1, green: 0.5, blue: 0.25, alpha: 1),
        ])
        guard case .point = recipe else { return XCTFail("a point-wise step (it joins the fused pass)") }
        let out = Render.pixels(recipe, image.pixels, width: image.width, height: image.height)
        var axis = zip(target, light).map { $0 - $1 }
        let axisLength = axis.reduce(0) { $0 + $1 * $1 }.squareRoot()
        axis = axis.map { $0 / axisLength }
        var worst = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let point = [Double(x) + 0.5, Double(image.height - y) - 0.5, 0]
                var l = zip(light, point).map { $0 - $1 }
                let length = l.reduce(0) { $0 + $1 * $1 }.squareRoot()
                l = l.map { $0 / length }
                let cone = max(0, min(1, -(l[0] * axis[0] + l[1] * axis[1] + l[2] * axis[2])))
                let shade = 2 * max(l[2], 0) * pow(cone, 0.7)
                // The colour is sRGB-encoded, as CIColor components are: linear 1, 0.214, 0.0509.
                let colour = [1, SRGB.toLinear(0.5), SRGB.toLinear(0.25)]
                for c in 0..<3 {
                    let p = (y * image.width + x) * 3 + c
                    let expected = SRGB.stored(SRGB.linear(image.pixels[p]) * shade * colour[c])
                    worst = max(worst, abs(Double(out[p]) - expected))
                }
            }
        }
        // ≤ 1 level: 8-bit rounding plus the kernels' vector pow (~1e-6 relative).
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testSpotColorReplacesColoursNearItsCentres() throws {
        // Three pixels: exactly the first centre, exactly the third, and one far from all three (pure blue).
        let pixels: [UInt8] = [20, 16, 18, 235, 116, 85, 0, 0, 255] + [UInt8](repeating: 0, count: 15)
        let recipe = try Render.filter("CISpotColor")
        guard case .point = recipe else { return XCTFail("a point-wise step") }
        let out = Render.pixels(recipe, pixels, width: 8, height: 1)
        // Replacement colours (sRGB-encoded) 0.4392 0.1922 0.1961 and 0.9098 0.7529 0.6078, × 255.
        for (c, v) in [0.4392, 0.1922, 0.1961].enumerated() { XCTAssertEqual(Double(out[c]), v * 255, accuracy: 1) }
        for (c, v) in [0.9098, 0.7529, 0.6078].enumerated() { XCTAssertEqual(Double(out[3 + c]), v * 255, accuracy: 1) }
        XCTAssertEqual(Array(out[6..<9]), [0, 0, 255], "far from every centre: unchanged")
    }

    func testExtremeParametersNeitherTrapNorReachBeyondTheirMargin() throws {
        let picture = Self.noise(width: 9, height: 7, bands: 4)
        let cases: [(String, [String: FilterValue])] = [
            ("CICrystallize", ["inputCenter": .vector([3e38, -3e38]), "inputRadius": .number(1)]),
            ("CIPointillize", ["inputCenter": .vector([-3e38, 3e38])]),
            ("CIHexagonalPixellate", ["inputCenter": .vector([3e38, 3e38]), "inputScale": .number(3)]),
            ("CIMotionBlur", ["inputRadius": .number(0.3), "inputAngle": .number(3e38)]),
            ("CIConvolution3X3", ["inputWeights": .vector([Double](repeating: 3e38, count: 9)), "inputBias": .number(-3e38)]),
            ("CIMorphologyGradient", ["inputRadius": .number(0)]),
            ("CIBokehBlur", ["inputRadius": .number(0.2), "inputSoftness": .number(10)]),
        ]
        for (name, values) in cases {
            let recipe = try Render.filter(name, values)
            guard case .region(let kernel, _) = recipe else { continue }
            XCTAssertLessThanOrEqual(kernel.margin, 64, name)
            _ = render(kernel, picture)  // must not trap or read outside its block
        }
        // Over Medley's limits: refused with the reason, before any rendering.
        XCTAssertThrowsError(try Render.filter("CIMorphologyMaximum", ["inputRadius": .number(5000)]))
        XCTAssertThrowsError(try Render.filter("CIBokehBlur", ["inputRadius": .number(100)]))
        XCTAssertThrowsError(try Render.filter("CIDiscBlur", ["inputRadius": .number(1e6)]))
    }

    func testDefaultsMatchCoreImage() throws {
        let expected: [(String, String, FilterValue)] = [
            ("CIConvolution3X3", "inputWeights", .vector([0, 0, 0, 0, 1, 0, 0, 0, 0])), ("CIConvolution3X3", "inputBias", .number(0)),
            ("CIConvolution9Horizontal", "inputWeights", .vector([0, 0, 0, 0, 1, 0, 0, 0, 0])),
            ("CIMorphologyMaximum", "inputRadius", .number(0)), ("CIMorphologyGradient", "inputRadius", .number(2)),
            ("CIMorphologyRectangleMaximum", "inputWidth", .number(5)), ("CIMorphologyRectangleMinimum", "inputHeight", .number(5)),
            ("CIDiscBlur", "inputRadius", .number(8)), ("CIMotionBlur", "inputRadius", .number(20)), ("CIMotionBlur", "inputAngle", .number(0)),
            ("CIZoomBlur", "inputAmount", .number(20)), ("CIZoomBlur", "inputCenter", .vector([150, 150])),
            ("CIBokehBlur", "inputRadius", .number(20)), ("CIBokehBlur", "inputRingAmount", .number(0)),
            ("CIBokehBlur", "inputRingSize", .number(0.1)), ("CIBokehBlur", "inputSoftness", .number(1)),
            ("CIBloom", "inputRadius", .number(10)), ("CIBloom", "inputIntensity", .number(0.5)),
            ("CIGloom", "inputRadius", .number(10)), ("CIGloom", "inputIntensity", .number(0.5)),
            ("CICrystallize", "inputRadius", .number(20)), ("CIPointillize", "inputRadius", .number(20)),
            ("CIEdges", "inputIntensity", .number(1)), ("CIEdgeWork", "inputRadius", .number(3)),
            ("CIHexagonalPixellate", "inputScale", .number(8)),
            ("CILineOverlay", "inputNRNoiseLevel", .number(0.07)), ("CILineOverlay", "inputNRSharpness", .number(0.71)),
            ("CILineOverlay", "inputEdgeIntensity", .number(1)), ("CILineOverlay", "inputThreshold", .number(0.1)),
            ("CILineOverlay", "inputContrast", .number(50)),
            ("CISpotLight", "inputLightPosition", .vector([400, 600, 150])), ("CISpotLight", "inputLightPointsAt", .vector([200, 200, 0])),
            ("CISpotLight", "inputBrightness", .number(3)), ("CISpotLight", "inputConcentration", .number(0.1)),
            ("CISpotColor", "inputCloseness1", .number(0.22)), ("CISpotColor", "inputContrast3", .number(0.99)),
        ]
        for (name, key, value) in expected {
            let filter = try XCTUnwrap(Filter(name: name), name)
            filter.setDefaults()
            XCTAssertEqual(filter.value(forKey: key), value, "\(name).\(key)")
        }
    }
}
