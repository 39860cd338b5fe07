import Foundation
import XCTest

/// The colour path of an image job (issue 30): flattening grey+alpha onto a colour, one resampling rule
/// whatever a photo's EXIF orientation, a hard-edged grey picture enlarged, the watermark's colour space
/// on a photo in another profile, and the rendering intent of profile conversions. Expected values come
/// from formulas written here, vips, vipsthumbnail or ImageMagick — never from Medley.
final class ColourPathRunTests: EndToEndCase {
    static let photos = Tool.testData + "/photos/photos"

    /// Runs a pipeline; the run must succeed.
    func run(_ text: String, name: String = "pipeline.yaml") throws {
        let result = try Tool.medley(["run", try pipeline(text, name: name), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    /// An image's RGB samples (ImageMagick) averaged over `side` × `side` boxes (its sides divisible by `side`).
    func boxAveraged(_ path: String, side: Int) throws -> [Double] {
        let image = try Tool.pixels(path)
        let boxW = image.width / side, boxH = image.height / side
        XCTAssertEqual([boxW * side, boxH * side], [image.width, image.height], path)
        var sums = [Double](repeating: 0, count: side * side * 3)
        for y in 0..<boxH * side {
            for x in 0..<boxW * side {
                for c in 0..<3 {
                    sums[((y / boxH) * side + x / boxW) * 3 + c] += Double(image.samples[(y * image.width + x) * 3 + c])
                }
            }
        }
        return sums.map { $0 / Double(boxW * boxH) }
    }

    // MARK: - Flatten

    func testGreyWithAlphaFlattenedOntoAColourGetsThatColourNotItsGrey() throws {
        // Grey 100, alpha 255 on the left, 0 on the right, 128 in the middle third (vips makes it).
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let grey = work + "/grey.v", alpha = work + "/alpha.v", left = work + "/left.v", mid = work + "/mid.v"
        try Tool.vips(["black", work + "/zero.v", "30", "20"])
        try Tool.vips(["linear", work + "/zero.v", grey, "1", "100", "--uchar"])
        try Tool.vips(["linear", work + "/zero.v", left, "1", "255", "--uchar"])
        try Tool.vips(["linear", work + "/zero.v", mid, "1", "128", "--uchar"])
        try Tool.vips(["arrayjoin", "\(left) \(mid) \(work + "/zero.v")", alpha, "--across", "3"])
        try Tool.vips(["arrayjoin", "\(grey) \(grey) \(grey)", work + "/wide.v", "--across", "3"])
        try Tool.vips(["bandjoin", "\(work + "/wide.v") \(alpha)", input + "/ga.png"])
        XCTAssertEqual(try Tool.vipsHeader(input + "/ga.png", "bands"), "2")
        XCTAssertEqual(try Tool.vipsHeader(input + "/ga.png", "interpretation"), "b_w")
        for format in ["png", "jpeg"] {
            try run("""
                version: 1
                jobs:
                  - name: flat
                    ingest: { from: [\(input)] }
                    export: { to: \(work!)/out-\(format), format: \(format), quality: 100, background: '#F0A703', name: "{stem}.{ext}" }
                """, name: "flat-\(format).yaml")
            let out = try Tool.pixels(work + "/out-\(format)/ga." + (format == "jpeg" ? "jpg" : "png"))
            XCTAssertEqual([out.width, out.height], [90, 20])
            // vips_flatten's (and sharp's) formula: in·a + background·(1 − a), a = alpha / 255.
            let background = [240.0, 167, 3]
            let tolerance = format == "png" ? 1.0 : 3.0  // JPEG at q100 moves a few samples a little
            for (x, a) in [(5, 255.0), (45, 128), (80, 0)] {
                for c in 0..<3 {
                    let expected = (100 * a + background[c] * (255 - a)) / 255
                    let got = Double(out.samples[(10 * out.width + x) * 3 + c])
                    XCTAssertEqual(got, expected, accuracy: tolerance, "\(format): channel \(c) where alpha is \(a)")
                }
            }
        }
    }

    // MARK: - One resampling rule whatever the orientation

    /// Copies of one photo that differ only in how they are stored: each with its EXIF orientation
    /// (1, 3, 6, 8) and pixels turned so that the picture shown upright is the same.
    func orientedCopies(of photo: String, into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Stored = upright turned back: 3 is shown turned 180°, 6 turned 90° clockwise, 8 turned 90° anticlockwise.
        for (orientation, angle) in [(1, "d0"), (3, "d180"), (6, "d270"), (8, "d90")] {
            let path = folder + "/o\(orientation).jpg"
            try Tool.vips(["rot", photo, path + "[Q=95]", angle])
            let tagged = try Tool.run("exiftool", ["-q", "-n", "-Orientation=\(orientation)", "-overwrite_original", path])
            XCTAssertEqual(tagged.status, 0, tagged.stderr)
            XCTAssertEqual(try Tool.exif(path, "Orientation"), "\(orientation)")
        }
    }

    func testAnUprightPhotoAndRotatedCopiesAreResampledInTheSameLight() throws {
        let photo = Self.photos + "/astronaut.png"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: photo), "the photo corpus is missing: run scripts/test-data.sh")
        let input = work + "/in"
        try orientedCopies(of: photo, into: input)
        for (name, filters) in [("oriented", "[autoOrient, { resize: { width: 96, height: 96 } }]"),
                                ("plain", "[{ resize: { width: 96, height: 96 } }]")] {
            try run("""
                version: 1
                jobs:
                  - name: thumbs
                    ingest: { from: [\(input)] }
                    filters: \(filters)
                    export: { to: \(work!)/\(name), format: png, strip: true, name: "{stem}.{ext}" }
                """, name: name + ".yaml")
            let upright = try boxAveraged(work + "/\(name)/o1.png", side: 24)
            for orientation in [3, 6, 8] {
                let turned = try boxAveraged(work + "/\(name)/o\(orientation).png", side: 24)
                let worst = zip(upright, turned).map { abs($0 - $1) }.max() ?? .infinity
                XCTAssertLessThanOrEqual(worst, 1, "\(name): orientation \(orientation) against 1, 24×24 boxes")
            }
            // The rule is the stored values, as vipsthumbnail resamples (not --linear).
            let peer = work + "/peer-\(name).png"
            try Tool.run("vipsthumbnail", [input + "/o6.jpg", "-s", "96", "-o", peer])
            let theirs = try boxAveraged(peer, side: 24)
            let mean = zip(upright, theirs).map { abs($0 - $1) }.reduce(0, +) / Double(theirs.count)
            XCTAssertLessThanOrEqual(mean, 1, "\(name): against vipsthumbnail, 24×24 boxes")
        }
    }

    // MARK: - A hard-edged grey picture enlarged

    /// Catmull-Rom (vips' bicubic) enlargement of a grey picture's stored values, pixel centres aligned
    /// ((x + ½)/s − ½), edges repeated, rounded and clipped to 0…255: what vips_resize does when enlarging.
    static func enlarged(_ samples: [Double], side n: Int, to m: Int) -> [Double] {
        func weight(_ t: Double) -> Double {
            let t = abs(t)
            return t < 1 ? 1.5 * t * t * t - 2.5 * t * t + 1 : t < 2 ? -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2 : 0
        }
        let scale = Double(m) / Double(n)
        var weights = [[Double]](repeating: [Double](repeating: 0, count: n), count: m)
        for x in 0..<m {
            let u = (Double(x) + 0.5) / scale - 0.5, first = Int(u.rounded(.down))
            for k in first - 1...first + 2 { weights[x][min(max(k, 0), n - 1)] += weight(u - Double(k)) }
        }
        var across = [Double](repeating: 0, count: n * m)  // n rows of m
        for y in 0..<n { for x in 0..<m { across[y * m + x] = (0..<n).reduce(0) { $0 + weights[x][$1] * samples[y * n + $1] } } }
        var out = [Double](repeating: 0, count: m * m)
        for y in 0..<m { for x in 0..<m {
            out[y * m + x] = min(max((0..<n).reduce(0) { $0 + weights[y][$1] * across[$1 * m + x] }.rounded(), 0), 255)
        } }
        return out
    }

    func testAHardEdgedGreyPictureEnlargedMatchesResamplingItsStoredValues() throws {
        // A 21×21 QR-like picture: black and white modules from a fixed pattern.
        let n = 21, m = 320
        var modules = [Double](repeating: 0, count: n * n)
        var state: UInt32 = 12345
        for i in 0..<n * n {
            state = state &* 1_103_515_245 &+ 12345
            modules[i] = (state >> 16) & 1 == 1 ? 255 : 0
        }
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let pgm = work + "/qr.pgm"
        try (Data("P5 \(n) \(n) 255\n".utf8) + Data(modules.map { UInt8($0) })).write(to: URL(fileURLWithPath: pgm))
        try Tool.vips(["copy", pgm, input + "/qr.png"])
        XCTAssertEqual(try Tool.vipsHeader(input + "/qr.png", "interpretation"), "b_w")
        let formula = Self.enlarged(modules, side: n, to: m).reduce(0, +) / Double(m * m)
        let peer = work + "/peer.png"
        try Tool.run("vipsthumbnail", [input + "/qr.png", "-s", "\(m)", "-o", peer])
        let vips = Double(try Tool.pixels(peer, channels: "gray").samples.reduce(0, +)) / Double(m * m)
        XCTAssertEqual(vips, formula, accuracy: 1, "vipsthumbnail against the formula")
        for (name, filters) in [("oriented", "[autoOrient, { resize: { width: \(m), height: \(m) } }]"),
                                ("plain", "[{ resize: { width: \(m), height: \(m) } }]")] {
            try run("""
                version: 1
                jobs:
                  - name: qr
                    ingest: { from: [\(input)] }
                    filters: \(filters)
                    export: { to: \(work!)/\(name), format: png, name: "{stem}.{ext}" }
                """, name: name + ".yaml")
            let out = try Tool.pixels(work + "/\(name)/qr.png", channels: "gray")
            XCTAssertEqual([out.width, out.height], [m, m])
            let mean = Double(out.samples.reduce(0, +)) / Double(m * m)
            // Resampled in linear light the mean was 150.43 on the issue's picture (vips 117.60).
            XCTAssertEqual(mean, formula, accuracy: 1, "\(name): Medley's mean against the formula's")
            XCTAssertEqual(mean, vips, accuracy: 1, "\(name): Medley's mean against vipsthumbnail's")
        }
    }

    // MARK: - The watermark's colour path

    static let adobeRGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

    /// sRGB's transfer function, both ways (IEC 61966-2-1).
    static func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encoded(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    func testAWatermarkOnAnAdobeRGBPhotoBlendsInTheWorkingSpaceWithOrWithoutFilters() throws {
        let photo = Self.photos + "/chelsea.png"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: photo), "the photo corpus is missing: run scripts/test-data.sh")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: Self.adobeRGB), "icc-profiles-free is not installed")
        let input = work + "/in", assets = work + "/assets"
        for folder in [input, assets] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        // The photo in Adobe RGB, its profile embedded (vips/lcms).
        try Tool.vips(["icc_transform", photo, input + "/adobe.png", Self.adobeRGB, "--input-profile", "srgb"])
        XCTAssertFalse(try Tool.vipsHeader(input + "/adobe.png", "icc-profile-data").isEmpty)
        // A 40×40 logo of one colour at half alpha.
        let logo: [Double] = [30, 200, 90], alpha = 128.0
        try Tool.vips(["black", work + "/zero.v", "40", "40", "--bands", "4"])
        try Tool.vips(["linear", work + "/zero.v", assets + "/logo.png", "1 1 1 1",
                       "\(Int(logo[0])) \(Int(logo[1])) \(Int(logo[2])) \(Int(alpha))", "--uchar"])
        for (name, filters) in [("bare", ""), ("filtered", "    filters: [{ CIExposureAdjust: { inputEV: 0 } }]\n")] {
            try run("""
                version: 1
                assets: [\(assets)]
                jobs:
                  - name: marked
                    ingest: { from: [\(input)] }
                \(filters)    watermark: { image: \(assets)/logo.png, gravity: northwest, offset: [0, 0] }
                    export: { to: \(work!)/\(name), format: png, name: "{stem}.{ext}" }
                """, name: name + ".yaml")
        }
        // The formula: the photo in sRGB (vips/lcms), the logo over it in linear light, back to Adobe RGB (vips/lcms).
        try Tool.vips(["icc_transform", input + "/adobe.png", work + "/srgb.png", "srgb", "--embedded"])
        let under = try Tool.pixels(work + "/srgb.png")
        var box: [UInt8] = []
        for y in 0..<40 {
            for x in 0..<40 {
                for c in 0..<3 {
                    let a = alpha / 255, below = Double(under.samples[(y * under.width + x) * 3 + c]) / 255
                    let blended = a * Self.linear(logo[c] / 255) + (1 - a) * Self.linear(below)
                    box.append(UInt8((Self.encoded(blended) * 255).rounded()))
                }
            }
        }
        let ppm = work + "/box.ppm"
        try (Data("P6 40 40 255\n".utf8) + Data(box)).write(to: URL(fileURLWithPath: ppm))
        try Tool.vips(["icc_transform", ppm, work + "/expected.png", Self.adobeRGB, "--input-profile", "srgb"])
        let expected = try Tool.pixels(work + "/expected.png").samples
        func logoBox(_ path: String) throws -> [Int] {
            let image = try Tool.pixels(path)
            return (0..<40).flatMap { y in (0..<120).map { image.samples[y * image.width * 3 + $0] } }
        }
        let bare = try logoBox(work + "/bare/adobe.png"), filtered = try logoBox(work + "/filtered/adobe.png")
        func mean(_ a: [Int], _ b: [Int]) -> Double { Double(zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) }) / Double(a.count) }
        XCTAssertLessThanOrEqual(mean(bare, filtered), 1, "the logo's box without filters against with a no-op filter")
        XCTAssertLessThanOrEqual(mean(bare, expected), 1, "the logo's box against the formula")
        XCTAssertLessThanOrEqual(mean(filtered, expected), 1, "with a no-op filter against the formula")
        // The output keeps the photo's profile (export.profile: keep).
        XCTAssertEqual(try Tool.vipsHeader(work + "/bare/adobe.png", "icc-profile-data"),
                       try Tool.vipsHeader(input + "/adobe.png", "icc-profile-data"))
    }

    // MARK: - Rendering intent

    /// Mean and largest absolute difference of two images' RGB samples (ImageMagick), same size.
    func difference(_ a: String, _ b: String) throws -> (mean: Double, max: Int) {
        let x = try Tool.pixels(a), y = try Tool.pixels(b)
        XCTAssertEqual([x.width, x.height], [y.width, y.height], "\(a) against \(b)")
        guard x.samples.count == y.samples.count, !x.samples.isEmpty else { return (.infinity, .max) }
        let errors = zip(x.samples, y.samples).map { abs($0 - $1) }
        return (Double(errors.reduce(0, +)) / Double(errors.count), errors.max() ?? 0)
    }

    func testACMYKPhotoIsConvertedPerceptuallyByDefaultAndWithTheIntentAsked() throws {
        let photo = Self.photos + "/coffee.png"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: photo), "the photo corpus is missing: run scripts/test-data.sh")
        let input = work + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        // A CMYK JPEG with its profile embedded (libvips' built-in CMYK profile, a print profile with tables).
        let cmyk = input + "/coffee.jpg"
        try Tool.vips(["icc_transform", photo, cmyk + "[Q=95]", "cmyk", "--input-profile", "srgb"])
        XCTAssertEqual(try Tool.vipsHeader(cmyk, "interpretation"), "cmyk")
        // The peers: vips icc_transform from the embedded profile with each intent; vipsthumbnail --intent.
        for intent in ["perceptual", "relative", "absolute"] {
            try Tool.vips(["icc_transform", cmyk, work + "/vips-\(intent).png", "srgb", "--embedded", "--intent", intent])
            try Tool.run("vipsthumbnail", [cmyk, "-s", "200", "--intent", intent, "-o", work + "/thumb-\(intent).png"])
        }
        // Absolute colorimetric keeps the profile's paper white: the intents differ on this profile.
        XCTAssertGreaterThan(try difference(work + "/vips-relative.png", work + "/vips-absolute.png").mean, 2)
        for (name, intent) in [("default", nil), ("absolute", "absolute"), ("relative", "relative")] {
            let option = intent.map { "intent: \($0), " } ?? ""
            try run("""
                version: 1
                jobs:
                  - name: whole
                    ingest: { from: [\(input)] }
                    export: { to: \(work!)/\(name), format: png, \(option)name: "{stem}.{ext}" }
                  - name: thumb
                    ingest: { from: [\(input)] }
                    filters: [{ resize: { width: 200, height: 200 } }]
                    export: { to: \(work!)/\(name)-thumb, format: png, \(option)name: "{stem}.{ext}" }
                """, name: name + ".yaml")
            let peer = intent ?? "perceptual"  // CMYK's default, as sharp and Photoshop convert
            let whole = try difference(work + "/\(name)/coffee.png", work + "/vips-\(peer).png")
            XCTAssertLessThanOrEqual(whole.mean, 1, "\(name): against vips icc_transform --intent \(peer)")
            XCTAssertLessThanOrEqual(whole.max, 1, "\(name): against vips icc_transform --intent \(peer)")
            let thumb = try difference(work + "/\(name)-thumb/coffee.png", work + "/thumb-\(peer).png")
            XCTAssertLessThanOrEqual(thumb.mean, 1, "\(name): against vipsthumbnail --intent \(peer)")
        }
    }

    func testAMisspeltIntentFailsValidationAtItsPlaceWithASuggestion() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: print
                ingest: { from: [in] }
                export: { to: out, intent: perceptal }
            """)
        let refused = try Tool.medley(["run", path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("pipeline.yaml:5:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("did you mean 'perceptual'"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")
    }
}
