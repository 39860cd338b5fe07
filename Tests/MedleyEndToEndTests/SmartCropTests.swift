import Foundation
import XCTest

/// `resize` with `mode: aspectFill` and `crop:` (issue 30): smart crops against `vipsthumbnail
/// --smartcrop` on real photographs (scikit-image's samples, `fixtures/realworld/make-photos.sh`),
/// gravities against a formula on a picture whose samples say where they are, and the crop's
/// validation.
final class SmartCropTests: EndToEndCase {
    static let photos = Tool.testData + "/photos/photos"

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.photos + "/.done"),
                      "the photo corpus is missing under \(Self.photos): run scripts/test-data.sh")
    }

    func run(_ text: String) throws {
        let result = try Tool.medley(["run", try pipeline(text), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    func vipsthumbnail(_ arguments: [String]) throws {
        let result = try Tool.run("vipsthumbnail", arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// The mean absolute difference of two pictures' samples, and their sizes.
    func difference(_ a: String, _ b: String) throws -> Double {
        XCTAssertEqual(try Tool.vipsHeader(a, "width"), try Tool.vipsHeader(b, "width"), a)
        XCTAssertEqual(try Tool.vipsHeader(a, "height"), try Tool.vipsHeader(b, "height"), a)
        try Tool.vips(["subtract", a, b, work + "/d.v"])
        try Tool.vips(["abs", work + "/d.v", work + "/a.v"])
        return try XCTUnwrap(Double(try Tool.run("vips", ["avg", work + "/a.v"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// (left, top) of `crop` within `full`, found by `crop-offset.py` (numpy, every offset).
    func offset(of crop: String, in full: String) throws -> (x: Int, y: Int) {
        let out = try Tool.run("/usr/bin/python3", [Tool.fixtures + "/realworld/crop-offset.py", full, crop])
        XCTAssertEqual(out.status, 0, out.stderr)
        let fields = out.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(fields.count, 3, out.stdout)
        XCTAssertLessThan(fields.last ?? 99, 3, "the crop is found in the picture: \(out.stdout)")
        return (Int(fields.first ?? -1), Int(fields.dropFirst().first ?? -1))
    }

    /// As a job's first step the crop is libvips' own thumbnail with `crop: attention` — the same
    /// call as vipsthumbnail's: the same pictures, for a wide and a tall box, JPEG and PNG inputs.
    func testAttentionAsTheFirstStepIsVipsthumbnails() throws {
        let boxes = [(200, 120), (90, 200)]
        try run("version: 1\njobs:\n" + boxes.map { (width, height) in """
              - name: crops-\(width)
                ingest: { from: [\(Self.photos)] }
                filters: [ { resize: { width: \(width), height: \(height), mode: aspectFill, crop: attention } } ]
                export: { to: out-\(width), format: png, name: "{stem}-{inputExt}.png" }

            """ }.joined())
        for (width, height) in boxes {
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.photos) where !name.hasPrefix(".") {
                let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
                let peer = work + "/peer-\(stem)-\(ext).png"
                try vipsthumbnail([Self.photos + "/" + name, "-s", "\(width)x\(height)", "--smartcrop", "attention", "-o", peer])
                let mine = work + "/out-\(width)/\(stem)-\(ext).png"
                XCTAssertLessThanOrEqual(try difference(mine, peer), 0.05, "\(name) \(width)×\(height)")
            }
        }
    }

    /// After another step the crop is libvips' smartcrop on Medley's own scaled picture: the box it
    /// keeps is within 2 px of the one vipsthumbnail keeps (each found in its own uncropped picture).
    func testAttentionAfterOtherStepsKeepsVipsthumbnailsBox() throws {
        let photos = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png"]
        let boxes = [(90, 200), (300, 90)]
        var jobs = ""
        var fits: [String: String] = [:]
        for (width, height) in boxes {
            for name in photos {
                let stem = (name as NSString).deletingPathExtension
                let w = Int(try Tool.vipsHeader(Self.photos + "/" + name, "width")) ?? 0, h = Int(try Tool.vipsHeader(Self.photos + "/" + name, "height")) ?? 0
                // The side that binds when covering the box: the other is cropped.
                let fit = w * height > h * width ? "2000x\(height)" : "\(width)x2000"
                fits["\(stem)-\(width)"] = fit
                let box = fit.split(separator: "x").map(String.init)
                jobs += """
                      - name: crop-\(stem)-\(width)
                        ingest: { from: [\(Self.photos)], include: ["\(name)"] }
                        filters: [ { CIColorControls: { inputSaturation: 1.0 } }, { resize: { width: \(width), height: \(height), mode: aspectFill, crop: attention } } ]
                        export: { to: crop-\(width), format: png, name: "{stem}.png" }
                      - name: whole-\(stem)-\(width)
                        ingest: { from: [\(Self.photos)], include: ["\(name)"] }
                        filters: [ { CIColorControls: { inputSaturation: 1.0 } }, { resize: { width: \(box[0]), height: \(box[1]), mode: aspectFit } } ]
                        export: { to: whole-\(width), format: png, name: "{stem}.png" }

                    """
            }
        }
        try run("version: 1\njobs:\n" + jobs)
        for (width, height) in boxes {
            for name in photos {
                let stem = (name as NSString).deletingPathExtension
                let fit = try XCTUnwrap(fits["\(stem)-\(width)"])
                let peerCrop = work + "/peer-crop-\(stem)-\(width).png", peerWhole = work + "/peer-whole-\(stem)-\(width).png"
                try vipsthumbnail([Self.photos + "/" + name, "-s", "\(width)x\(height)", "--smartcrop", "attention", "-o", peerCrop])
                try vipsthumbnail([Self.photos + "/" + name, "-s", fit, "-o", peerWhole])
                let mine = try offset(of: work + "/crop-\(width)/\(stem).png", in: work + "/whole-\(width)/\(stem).png")
                let theirs = try offset(of: peerCrop, in: peerWhole)
                XCTAssertLessThanOrEqual(abs(mine.x - theirs.x), 2, "\(name) \(width)×\(height): \(mine) vs vipsthumbnail \(theirs)")
                XCTAssertLessThanOrEqual(abs(mine.y - theirs.y), 2, "\(name) \(width)×\(height): \(mine) vs vipsthumbnail \(theirs)")
            }
        }
    }

    /// Gravities, as sharp's `position` and ImageMagick's `-gravity` place them, on a picture whose
    /// first band is its column and second its row (`vips xyz`): the kept box's corner samples say
    /// where it was cut, by a formula of the box and the gravity. First step and later steps alike.
    func testGravitiesKeepTheEdgeTheyName() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        // 240 × 160: covering 80 × 80 scales by 1/2 to 120 × 80 and crops 40 columns; 160 × 240 crops rows.
        try Tool.vips(["xyz", work + "/xy.v", "240", "160"])
        try Tool.vips(["cast", work + "/xy.v", work + "/in/wide.png", "uchar"])
        try Tool.vips(["xyz", work + "/yx.v", "160", "240"])
        try Tool.vips(["cast", work + "/yx.v", work + "/in/tall.png", "uchar"])
        let anchors: [(String, Double, Double)] = [("centre", 0.5, 0.5), ("center", 0.5, 0.5), ("north", 0.5, 0), ("northeast", 1, 0),
                                                   ("east", 1, 0.5), ("southeast", 1, 1), ("south", 0.5, 1), ("southwest", 0, 1),
                                                   ("west", 0, 0.5), ("northwest", 0, 0)]
        let cases = [(false, ""), (true, "{ CIColorControls: { inputSaturation: 1.0 } }, ")]
        var jobs = ""
        for (late, prefix) in cases {
            for (gravity, _, _) in anchors {
                jobs += """
                      - name: g-\(gravity)-\(late)
                        ingest: { from: [in] }
                        filters: [ \(prefix){ resize: { width: 80, height: 80, mode: aspectFill, crop: \(gravity) } } ]
                        export: { to: out-\(gravity)-\(late), format: png, name: "{stem}.png" }

                    """
            }
        }
        try run("version: 1\njobs:\n" + jobs)
        for (late, _) in cases {
            for (gravity, ax, ay) in anchors {
                let folder = "out-\(gravity)-\(late)"
                for (name, spareX, spareY) in [("wide", 40.0, 0.0), ("tall", 0.0, 40.0)] {
                    let output = work + "/\(folder)/\(name).png"
                    XCTAssertEqual(try Tool.vipsHeader(output, "width"), "80")
                    XCTAssertEqual(try Tool.vipsHeader(output, "height"), "80")
                    // The scaled picture's column at the box's left edge is the spare room times the anchor;
                    // the source's column there is twice that (scale 1/2), give or take the resampling.
                    let column = try XCTUnwrap(Double(try Tool.run("vips", ["getpoint", output, "0", "40"]).stdout.split(separator: " ").first ?? ""))
                    let row = try XCTUnwrap(Double(try Tool.run("vips", ["getpoint", output, "40", "0"]).stdout.split(separator: " ").dropFirst().first ?? ""))
                    XCTAssertEqual(column, 2 * (spareX * ax).rounded(.down), accuracy: 2.5, "\(gravity) \(name) late \(late): left column")
                    XCTAssertEqual(row, 2 * (spareY * ay).rounded(.down), accuracy: 2.5, "\(gravity) \(name) late \(late): top row")
                }
            }
        }
    }

    /// The one-line job: `--resize 200x120 --crop attention` is `vipsthumbnail -s 200x120 --smartcrop
    /// attention`; a crop with a mode that does not cover the box is a usage error.
    func testOneLineCropIsVipsthumbnailsSmartcrop() throws {
        let photo = Self.photos + "/chelsea.jpg"
        let result = try Tool.medley(["run", "-i", photo, "-o", work + "/out", "--resize", "200x120", "--crop", "attention",
                                      "--format", "png", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let peer = work + "/peer.png"
        try vipsthumbnail([photo, "-s", "200x120", "--smartcrop", "attention", "-o", peer])
        XCTAssertLessThanOrEqual(try difference(work + "/out/chelsea.png", peer), 0.05)
        let refused = try Tool.medley(["run", "-i", photo, "-o", work + "/out2", "--resize", "200x120!", "--crop", "north"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--crop"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out2"))
    }

    /// A crop name that is none fails validation at its place with a suggestion; a 1 × 1 picture is
    /// covered and cropped without trouble.
    func testABadCropIsRefusedAndATinyPictureIsCropped() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: g
                ingest: { from: [in] }
                filters: [ { resize: { width: 80, height: 80, mode: aspectFill, crop: atention } } ]
                export: { to: out }
            """)
        let refused = try Tool.medley(["run", path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("pipeline.yaml:5:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("did you mean 'attention'"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"), "nothing written")

        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try Tool.vips(["black", work + "/in/dot.png", "1", "1"])
        let crops = ["attention", "entropy", "north"]
        try run("version: 1\njobs:\n" + crops.map { crop in """
              - name: g-\(crop)
                ingest: { from: [in] }
                filters: [ { resize: { width: 40, height: 20, mode: aspectFill, crop: \(crop) } } ]
                export: { to: out-\(crop), format: png }

            """ }.joined())
        for crop in crops {
            XCTAssertEqual(try Tool.vipsHeader(work + "/out-\(crop)/dot.png", "width"), "40", crop)
            XCTAssertEqual(try Tool.vipsHeader(work + "/out-\(crop)/dot.png", "height"), "20", crop)
        }
    }
}
