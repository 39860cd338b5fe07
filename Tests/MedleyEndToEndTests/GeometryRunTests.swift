import Foundation
import XCTest

/// Warps (perspective, straighten, clamp, tile, distortions) through `medley run`, on the stored
/// values (`colorSpace: none`, as ImageMagick works), against ImageMagick's `-distort` with the
/// same bilinear sampling, or against the filter's formula written here with bilinear sampling.
final class GeometryRunTests: EndToEndCase {
    private var runs = 0

    /// The landscape fixture (200 × 150) as a PNG written by vips: Medley and ImageMagick read the same samples.
    func landscape() throws -> String {
        let path = work + "/landscape.png"
        if !FileManager.default.fileExists(atPath: path) {
            try Tool.vips(["copy", Tool.fixtures + "/images/landscape.jpg", path])
        }
        return path
    }

    /// Runs one job of `filters` on the stored values and returns the output's path.
    func run(_ filters: String, input: String? = nil, expectFailure: Bool = false) throws -> (path: String, result: Tool.Result) {
        runs += 1
        let source = try input ?? landscape()
        let folder = work + "/out-\(runs)"
        let path = try pipeline("""
            version: 1
            jobs:
              - name: g
                ingest: { from: [\(source)] }
                colorSpace: none
                filters:
            \(filters)
                export: { to: \(folder), format: png, name: "{stem}.{ext}" }
            """, name: "pipeline-\(runs).yaml")
        let result = try Tool.medley(["run", path, "--quiet"])
        if !expectFailure { XCTAssertEqual(result.status, 0, result.stderr) }
        return (folder + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension + ".png", result)
    }

    /// An image's samples with a bilinear lookup at libvips/ImageMagick pixel coordinates (pixel
    /// centres at integers, y down).
    struct Picture {
        let width: Int, height: Int, bands: Int
        let samples: [Int]

        init(_ path: String, channels: String = "rgb") throws {
            let p = try Tool.pixels(path, channels: channels)
            (width, height, samples) = (p.width, p.height, p.samples)
            bands = channels.count
        }

        func at(_ x: Int, _ y: Int, _ c: Int) -> Int { samples[(y * width + x) * bands + c] }

        func bilinear(_ x: Double, _ y: Double, _ c: Int) -> Double {
            let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
            let fx = x - Double(x0), fy = y - Double(y0)
            func v(_ i: Int, _ j: Int) -> Double { Double(at(min(max(i, 0), width - 1), min(max(j, 0), height - 1), c)) }
            return (v(x0, y0) * (1 - fx) + v(x0 + 1, y0) * fx) * (1 - fy) + (v(x0, y0 + 1) * (1 - fx) + v(x0 + 1, y0 + 1) * fx) * fy
        }
    }

    /// ImageMagick's perspective distortion with bilinear lookups into a viewport of the given size.
    func magickPerspective(_ input: String, _ points: String, viewport: String) throws -> String {
        let out = work + "/magick-\(UUID().uuidString).png"
        let result = try Tool.run("convert", [input, "-alpha", "set", "-virtual-pixel", "transparent", "-filter", "point",
                                              "-interpolate", "bilinear", "-define", "distort:viewport=\(viewport)",
                                              "-distort", "Perspective", points, out])
        XCTAssertEqual(result.status, 0, result.stderr)
        return out
    }

    /// Worst difference over pixels where the reference is opaque two pixels all round (the
    /// quadrilateral's antialiased edge differs between the tools).
    func worstInterior(_ mine: Picture, _ reference: Picture) -> (worst: Double, count: Int) {
        var worst = 0.0, count = 0
        for y in 2..<(reference.height - 2) {
            for x in 2..<(reference.width - 2) {
                var opaque = true
                for dy in -2...2 { for dx in -2...2 where reference.at(x + dx, y + dy, 3) != 255 { opaque = false } }
                guard opaque else { continue }
                count += 1
                for c in 0..<3 { worst = max(worst, Double(abs(mine.at(x, y, c) - reference.at(x, y, c)))) }
            }
        }
        return (worst, count)
    }

    func testPerspectiveTransformMatchesImageMagick() throws {
        // Core Image's corners (y up) on the 200 × 150 image; the bounding box is x 10…190, y 0…140,
        // so ImageMagick's (y down) target of corner (x, y) is (x − 10, 140 − y).
        let (out, _) = try run("      - CIPerspectiveTransform: { inputTopLeft: [10, 140], inputTopRight: [190, 120], "
                               + "inputBottomRight: [170, 20], inputBottomLeft: [30, 0] }")
        let mine = try Picture(out)
        XCTAssertEqual([mine.width, mine.height], [180, 140])
        let reference = try Picture(try magickPerspective(try landscape(), "0,0 0,0  200,0 180,20  200,150 160,120  0,150 20,140",
                                                          viewport: "180x140+0+0"), channels: "rgba")
        let (worst, count) = worstInterior(mine, reference)
        XCTAssertGreaterThan(count, 15_000)
        // Both sample bilinearly at the same positions: ≤ 1 level of rounding (measured 1).
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testPerspectiveCorrectionMatchesImageMagick() throws {
        // The quadrilateral (Core Image coordinates) squared up: width = max(|TR − TL|, |BR − BL|),
        // height = max(|TL − BL|, |TR − BR|), rounded up.
        let tl = (20.0, 130.0), tr = (185.0, 140.0), br = (170.0, 15.0), bl = (10.0, 30.0)
        func length(_ p: (Double, Double), _ q: (Double, Double)) -> Double { hypot(p.0 - q.0, p.1 - q.1) }
        let w = Int(max(length(tr, tl), length(br, bl)).rounded(.up)), h = Int(max(length(tl, bl), length(tr, br)).rounded(.up))
        let (out, _) = try run("      - CIPerspectiveCorrection: { inputTopLeft: [20, 130], inputTopRight: [185, 140], "
                               + "inputBottomRight: [170, 15], inputBottomLeft: [10, 30] }")
        let mine = try Picture(out)
        XCTAssertEqual([mine.width, mine.height], [w, h])
        let points = "20,20 0,0  185,10 \(w),0  170,135 \(w),\(h)  10,120 0,\(h)"
        let reference = try Picture(try magickPerspective(try landscape(), points, viewport: "\(w)x\(h)+0+0"), channels: "rgba")
        let (worst, count) = worstInterior(mine, reference)
        XCTAssertGreaterThan(count, w * h * 8 / 10)
        XCTAssertLessThanOrEqual(worst, 1)
    }

    func testStraightenMatchesImageMagicksRotationAtTheSmallestCoveringScale() throws {
        // The scale that keeps the extent covered, found here numerically: each corner of the W × H
        // extent, turned back by θ about the centre, must lie inside the scaled image.
        let theta = 0.3, w = 200.0, h = 150.0
        var scale = 0.0
        for (cx, cy) in [(w / 2, h / 2), (-w / 2, h / 2)] {
            let x = cx * cos(theta) + cy * sin(theta), y = -cx * sin(theta) + cy * cos(theta)
            scale = max(scale, 2 * abs(x) / w, 2 * abs(y) / h)
        }
        let (out, _) = try run("      - CIStraightenFilter: { inputAngle: \(theta) }")
        let mine = try Picture(out)
        XCTAssertEqual([mine.width, mine.height], [200, 150])
        // ImageMagick's SRT turns clockwise on screen for positive angles (y down); Core Image's are
        // counter-clockwise.
        let reference = work + "/straight.png"
        let result = try Tool.run("convert", [try landscape(), "-virtual-pixel", "edge", "-filter", "point", "-interpolate", "bilinear",
                                              "-distort", "SRT", "\(scale) \(-theta * 180 / .pi)", reference])
        XCTAssertEqual(result.status, 0, result.stderr)
        let magick = try Picture(reference)
        var worst = 0
        for y in 0..<150 { for x in 0..<200 { for c in 0..<3 { worst = max(worst, abs(mine.at(x, y, c) - magick.at(x, y, c))) } } }
        XCTAssertLessThanOrEqual(worst, 1, "every pixel, corners included: none is empty")
    }

    func testDistortionsAtIdentityLeaveTheImageAlone() throws {
        // A hole of radius 0.01 far away moves each pixel by under 1e-8 of a pixel; a splash whose
        // circle holds the whole image keeps every pixel: the warp itself must then be exact.
        let input = try Picture(try landscape())
        for filter in ["CIHoleDistortion: { inputCenter: [-5000, -5000], inputRadius: 0.01 }",
                       "CICircleSplashDistortion: { inputCenter: [100, 75], inputRadius: 100000 }",
                       "CIBumpDistortion: { inputScale: 0 }", "CITwirlDistortion: { inputAngle: 0 }"] {
            let mine = try Picture(try run("      - " + filter).path)
            XCTAssertEqual([mine.width, mine.height], [200, 150])
            let worst = zip(mine.samples, input.samples).map { abs($0 - $1) }.max() ?? .max
            XCTAssertLessThanOrEqual(worst, 0, filter)
        }
    }

    /// Checks output pixels against the input sampled where `source` (Core Image coordinates) says.
    func assertWarp(_ filter: String, file: StaticString = #filePath, line: UInt = #line,
                    source: (Double, Double) -> (Double, Double)) throws {
        let input = try Picture(try landscape())
        let mine = try Picture(try run("      - " + filter).path)
        var worst = 0.0, checked = 0
        for y in stride(from: 0, to: 150, by: 3) {
            for x in stride(from: 0, to: 200, by: 3) {
                let (sx, sy) = source(Double(x) + 0.5, 150 - Double(y) - 0.5)
                let px = sx - 0.5, py = 150 - sy - 0.5
                guard px >= 0, px <= 199, py >= 0, py <= 149 else { continue }
                checked += 1
                for c in 0..<3 { worst = max(worst, abs(Double(mine.at(x, y, c)) - input.bilinear(px, py, c))) }
            }
        }
        XCTAssertGreaterThan(checked, 2000, file: file, line: line)
        // Bilinear in Float on the warp's side, Double here, each rounded: ≤ 1.5 levels.
        XCTAssertLessThanOrEqual(worst, 1.5, filter, file: file, line: line)
    }

    func testTwirlBumpPinchAndHoleFollowTheirFormulas() throws {
        let (cx, cy, r) = (100.0, 75.0, 60.0)
        try assertWarp("CITwirlDistortion: { inputCenter: [100, 75], inputRadius: 60, inputAngle: 2 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d < r else { return (x, y) }
            let theta = 2 * pow((r - d) / r, 2)
            return (cx + (x - cx) * cos(theta) - (y - cy) * sin(theta), cy + (x - cx) * sin(theta) + (y - cy) * cos(theta))
        }
        try assertWarp("CIVortexDistortion: { inputCenter: [100, 75], inputRadius: 60, inputAngle: 5 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d < r else { return (x, y) }
            let theta = 5 * pow((r - d) / r, 3)
            return (cx + (x - cx) * cos(theta) - (y - cy) * sin(theta), cy + (x - cx) * sin(theta) + (y - cy) * cos(theta))
        }
        try assertWarp("CIBumpDistortion: { inputCenter: [100, 75], inputRadius: 60, inputScale: 0.7 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d < r else { return (x, y) }
            let f = pow(1 - 0.7 * (r - d) / r, 2)
            return (cx + (x - cx) * f, cy + (y - cy) * f)
        }
        try assertWarp("CIPinchDistortion: { inputCenter: [100, 75], inputRadius: 60, inputScale: 0.6 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d < r else { return (x, y) }
            let f = 1 + 0.6 * (r - d) / r
            return (cx + (x - cx) * f, cy + (y - cy) * f)
        }
        try assertWarp("CIHoleDistortion: { inputCenter: [100, 75], inputRadius: 30 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d > 30 else { return (-1000, -1000) }  // the hole: not checked
            let f = (d * d - 900).squareRoot() / d
            return (cx + (x - cx) * f, cy + (y - cy) * f)
        }
        try assertWarp("CICircleSplashDistortion: { inputCenter: [100, 75], inputRadius: 40 }") { x, y in
            let d = hypot(x - cx, y - cy)
            guard d > 40 else { return (x, y) }
            return (cx + (x - cx) * 40 / d, cy + (y - cy) * 40 / d)
        }
    }

    func testTheHoleIsTransparent() throws {
        // An input with alpha keeps it: inside the hole alpha is 0, far outside 255.
        let input = work + "/alpha.png"
        try Tool.vips(["bandjoin_const", try landscape(), input, "255"])
        let mine = try Picture(try run("      - CIHoleDistortion: { inputCenter: [100, 75], inputRadius: 30 }", input: input).path,
                               channels: "rgba")
        XCTAssertEqual(mine.at(100, 75, 3), 0)
        XCTAssertEqual(mine.at(105, 70, 3), 0)
        XCTAssertEqual(mine.at(100, 10, 3), 255)
    }

    func testAffineClampExtendsEdgesAndAffineTileRepeats() throws {
        // Whole-pixel shifts sample pixel centres exactly. Core Image's (tx, ty) = (50, 20): the
        // output at (x, y) shows the input at (x − 50, y − 20); y up, so rows move up by 20.
        let input = try Picture(try landscape())
        let clamp = try Picture(try run("      - CIAffineClamp: { inputTransform: [1, 0, 0, 1, 50, 20] }").path)
        let tile = try Picture(try run("      - CIAffineTile: { inputTransform: [1, 0, 0, 1, 50, 20] }").path)
        XCTAssertEqual([clamp.width, clamp.height, tile.width, tile.height], [200, 150, 200, 150])
        var clampWorst = 0, tileWorst = 0
        for y in 0..<150 {
            for x in 0..<200 {
                for c in 0..<3 {
                    let clamped = input.at(min(max(x - 50, 0), 199), min(max(y + 20, 0), 149), c)
                    let tiled = input.at((x - 50 + 200) % 200, (y + 20) % 150, c)
                    clampWorst = max(clampWorst, abs(clamp.at(x, y, c) - clamped))
                    tileWorst = max(tileWorst, abs(tile.at(x, y, c) - tiled))
                }
            }
        }
        XCTAssertLessThanOrEqual(clampWorst, 0)
        XCTAssertLessThanOrEqual(tileWorst, 0)
    }

    /// Mitchell–Netravali's cubic (1988), written out here.
    static func cubic(_ x: Double, _ b: Double, _ c: Double) -> Double {
        let x = abs(x)
        if x < 1 { return ((12 - 9 * b - 6 * c) * pow(x, 3) + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6 }
        if x < 2 { return ((-b - 6 * c) * pow(x, 3) + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6 }
        return 0
    }

    /// The resampling matrix of one axis: output o centred on input (o + 0.5)/s − 0.5, the kernel
    /// stretched by 1/s when shrinking, edge pixels repeated, each row normalised.
    static func resampling(from n: Int, to count: Int, scale s: Double, _ b: Double, _ c: Double) -> [[Double]] {
        let reach = 2 * max(1, 1 / s), stretch = min(s, 1)
        return (0..<count).map { o in
            var row = [Double](repeating: 0, count: n)
            let centre = (Double(o) + 0.5) / s - 0.5
            for i in Int((centre - reach).rounded(.up))...Int((centre + reach).rounded(.down)) {
                row[min(max(i, 0), n - 1)] += cubic((Double(i) - centre) * stretch, b, c)
            }
            let sum = row.reduce(0, +)
            return row.map { $0 / sum }
        }
    }

    func testBicubicScaleFollowsMitchellNetravali() throws {
        let input = try Picture(try landscape())
        for (scale, aspect, b, c, size) in [(0.6, 1.25, 0.0, 0.75, [150, 90]), (1.7, 1.0, 1.0 / 3, 1.0 / 3, [340, 255])] {
            let (out, _) = try run("      - CIBicubicScaleTransform: { inputScale: \(scale), inputAspectRatio: \(aspect), inputB: \(b), inputC: \(c) }")
            let mine = try Picture(out)
            XCTAssertEqual([mine.width, mine.height], size)
            let across = Self.resampling(from: 200, to: size[0], scale: scale * aspect, b, c)
            let down = Self.resampling(from: 150, to: size[1], scale: scale, b, c)
            // Rows first, then columns, in Double; clamped only at the end (Medley keeps floats between passes).
            var wide = [Double](repeating: 0, count: 150 * size[0] * 3)
            for y in 0..<150 {
                for (o, weights) in across.enumerated() {
                    for (i, w) in weights.enumerated() where w != 0 {
                        for ch in 0..<3 { wide[(y * size[0] + o) * 3 + ch] += w * Double(input.at(i, y, ch)) }
                    }
                }
            }
            var worst = 0.0
            for (o, weights) in down.enumerated() {
                for x in 0..<size[0] {
                    for ch in 0..<3 {
                        var v = 0.0
                        for (i, w) in weights.enumerated() where w != 0 { v += w * wide[(i * size[0] + x) * 3 + ch] }
                        worst = max(worst, abs(Double(mine.at(x, o, ch)) - min(max(v, 0), 255)))
                    }
                }
            }
            // Rounding to 8 bits (0.5) plus Float arithmetic: measured 0.504.
            XCTAssertLessThanOrEqual(worst, 0.6, "scale \(scale), B \(b), C \(c)")
            // ImageMagick's cubic filter with the same B and C, as a peer: IM 6 (Q16) truncates to 8 bits
            // (a −0.5 bias) and clamps between its passes, so it is up to 4 levels away, 0.5 on average.
            let magick = work + "/magick-\(size[0]).png"
            let result = try Tool.run("convert", [try landscape(), "-filter", "Cubic", "-define", "filter:b=\(b)", "-define", "filter:c=\(c)",
                                                  "-resize", "\(size[0])x\(size[1])!", magick])
            XCTAssertEqual(result.status, 0, result.stderr)
            let peer = try Picture(magick)
            let differences = zip(mine.samples, peer.samples).map { Double(abs($0 - $1)) }
            XCTAssertLessThanOrEqual(differences.max() ?? .infinity, 4)
            XCTAssertLessThanOrEqual(differences.reduce(0, +) / Double(differences.count), 0.6)
        }
    }

    func testAHugeQuadrilateralFailsTheItemOverTheLimit() throws {
        // A bounding box of 2e6 × 2e6 pixels: over limits.maxPixels, refused before libvips makes it.
        let (out, result) = try run("      - CIPerspectiveTransform: { inputTopLeft: [0, 2000000], inputTopRight: [2000000, 2000000], "
                                    + "inputBottomRight: [2000000, 0], inputBottomLeft: [0, 0] }", expectFailure: true)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue((result.stdout + result.stderr).contains("CIPerspectiveTransform"), result.stdout + result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
