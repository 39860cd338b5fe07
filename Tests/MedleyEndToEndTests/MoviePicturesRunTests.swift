import Foundation
import MedleyTestSupport
import XCTest

/// `animation:` and `sprites:` (docs/movies.md) against ffmpeg: the GIF of ffmpeg's palettegen/paletteuse
/// recipe read back with PIL (frame count, delays, size, loop), each picture against the frames ffmpeg's fps
/// filter picks; sprite cells against `ffmpeg -ss T -i in -frames:v 1` (PSNR ≥ 40 dB) and the WebVTT cues
/// against those times; bad movies failing alone before anything is decoded.
final class MoviePicturesRunTests: EndToEndCase {
    /// A 6 s 640×360 test pattern at 25 fps (every frame different), H.264.
    func makeClip(_ name: String = "clip.mp4", size: String = "640x360", seconds: Int = 6, codec: [String] = ["-c:v", "libx264", "-pix_fmt", "yuv420p"]) throws -> String {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let path = work + "/in/" + name
        try Peer.must("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)"] + codec + [path])
        return path
    }

    /// Size, frame count, per-frame delays (ms) and loop of an animated GIF/WebP, by PIL.
    func animationInfo(_ path: String) throws -> (width: Int, height: Int, delays: [Int], loop: Int) {
        let script = """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]); d = []
            try:
                while True:
                    im.load(); d.append(im.info.get('duration', -1)); im.seek(im.tell() + 1)
            except EOFError:
                pass
            print(im.size[0], im.size[1], im.info.get('loop', -1), *d)
            """
        let out = try Peer.must(Peer.python, ["-c", script, path]).stdout.split(separator: " ").map { Int(Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -99) }
        XCTAssertGreaterThan(out.count, 3, path)
        return (out[0], out[1], Array(out.dropFirst(3)), out[2])
    }

    /// For each picture of the animation, the index of the closest of ffmpeg's reference frames (raw RGB, w × h).
    func closestFrames(_ animation: String, reference: Data, width: Int, height: Int) throws -> [Int] {
        let raw = work + "/reference.rgb"
        try reference.write(to: URL(fileURLWithPath: raw))
        let script = """
            import sys
            import numpy as np
            from PIL import Image, ImageSequence
            w, h = int(sys.argv[3]), int(sys.argv[4])
            ref = np.fromfile(sys.argv[2], dtype=np.uint8).reshape(-1, h, w, 3).astype(float)
            out = []
            for frame in ImageSequence.Iterator(Image.open(sys.argv[1])):
                a = np.asarray(frame.convert('RGB'), dtype=float)
                out.append(int(np.argmin([((a - r) ** 2).mean() for r in ref])))
            print(*out)
            """
        return try Peer.must(Peer.python, ["-c", script, animation, raw, String(width), String(height)]).stdout
            .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The mean PSNR (dB) of an animation's pictures against the reference frames (raw RGB, w × h, one for each
    /// picture), both blurred by a Gaussian of σ = 1 px (PIL), so a dither counts by the colour it averages to.
    func blurredPSNR(_ animation: String, reference: Data, width: Int, height: Int) throws -> Double {
        let raw = work + "/reference.rgb"
        try reference.write(to: URL(fileURLWithPath: raw))
        let script = """
            import sys
            import numpy as np
            from PIL import Image, ImageFilter, ImageSequence
            w, h = int(sys.argv[3]), int(sys.argv[4])
            blur = lambda image: np.asarray(image.filter(ImageFilter.GaussianBlur(1.0)), dtype=float)
            ref = [blur(Image.fromarray(r)) for r in np.fromfile(sys.argv[2], dtype=np.uint8).reshape(-1, h, w, 3)]
            psnr = []
            for index, frame in enumerate(ImageSequence.Iterator(Image.open(sys.argv[1]))):
                mse = ((blur(frame.convert('RGB')) - ref[index]) ** 2).mean()
                psnr.append(10 * np.log10(255 ** 2 / max(mse, 1e-9)))
            print(len(psnr), np.mean(psnr))
            """
        let out = try Peer.must(Peer.python, ["-c", script, animation, raw, String(width), String(height)]).stdout
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(out.first, String(reference.count / (width * height * 3)), "one picture for each reference frame")
        return try XCTUnwrap(Double(out.last ?? ""), "\(out)")
    }

    func testGIFAndWebPMatchFfmpegsRecipe() throws {
        let clip = try makeClip()
        let path = try pipeline("""
            version: 1
            jobs:
              - name: clip-palette
                ingest: { from: [in] }
                animation: { from: 1.5, duration: 3, fps: 10, width: 320 }
                export: { to: gif }
              - name: frame-palette
                ingest: { from: [in] }
                animation: { from: "0:01", duration: 2s, fps: 15, width: 200, palette: frame, loop: 3 }
                export: { to: gif15 }
              - name: webp
                ingest: { from: [in] }
                animation: { from: 1.5, duration: 3, fps: 10, width: 320, format: webp }
                export: { to: webp }
              - name: clip-palette-loop
                ingest: { from: [in] }
                animation: { from: 1, duration: 1, fps: 10, width: 160, loop: 2 }
                export: { to: gif-loop }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // ffmpeg's recipe, as the FFmpeg wiki gives it.
        func recipe(_ from: String, _ seconds: String, fps: String, width: Int, _ out: String, extra: [String] = []) throws {
            try Peer.must("ffmpeg", ["-v", "error", "-ss", from, "-t", seconds, "-i", clip, "-vf",
                                     "fps=\(fps),scale=\(width):-1:flags=lanczos,split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse"] + extra + [work + "/" + out])
        }
        try recipe("1.5", "3", fps: "10", width: 320, "ff10.gif")
        try recipe("1", "2", fps: "15", width: 200, "ff15.gif", extra: ["-loop", "3"])
        try recipe("1", "1", fps: "10", width: 160, "ff-loop.gif", extra: ["-loop", "2"])
        let looped = try animationInfo(work + "/gif-loop/clip.gif"), theirsLooped = try animationInfo(work + "/ff-loop.gif")
        XCTAssertEqual(looped.loop, theirsLooped.loop, "repeats twice, as ffmpeg's -loop 2 writes it")
        XCTAssertEqual(looped.delays, theirsLooped.delays)
        let ours = try animationInfo(work + "/gif/clip.gif"), theirs = try animationInfo(work + "/ff10.gif")
        XCTAssertEqual([ours.width, ours.height], [theirs.width, theirs.height])
        XCTAssertEqual([ours.width, ours.height], [320, 180])
        XCTAssertEqual(ours.delays, theirs.delays, "30 pictures of 100 ms")
        XCTAssertEqual(ours.delays.count, 30)
        XCTAssertEqual(ours.loop, theirs.loop, "loops for ever")
        let ours15 = try animationInfo(work + "/gif15/clip.gif"), theirs15 = try animationInfo(work + "/ff15.gif")
        XCTAssertEqual([ours15.width, ours15.height], [theirs15.width, theirs15.height])
        XCTAssertEqual(ours15.delays, theirs15.delays, "15 fps in centiseconds: 70, 60, 70, …, the last 60 (its length cut to centiseconds)")
        XCTAssertEqual(ours15.delays.count, 30)
        XCTAssertEqual(ours15.loop, theirs15.loop)
        let webp = try animationInfo(work + "/webp/clip.webp")
        XCTAssertEqual([webp.width, webp.height], [320, 180])
        XCTAssertEqual(webp.delays, Array(repeating: 100, count: 30))

        // Each picture is the frame ffmpeg's fps filter picks for that tick (the test pattern moves every frame).
        let frames = try Peer.must("ffmpeg", ["-v", "error", "-ss", "1.5", "-t", "3", "-i", clip, "-vf", "fps=10,scale=320:-1:flags=lanczos",
                                              "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data
        XCTAssertEqual(frames.count, 30 * 320 * 180 * 3)
        XCTAssertEqual(try closestFrames(work + "/gif/clip.gif", reference: frames, width: 320, height: 180), Array(0..<30))
        // Colours: each picture against ffmpeg's unquantised frame, both blurred (σ = 1 px, as the eye averages a
        // dither): at least as close as the pictures of ffmpeg's paletteuse, in a file no bigger than its.
        let ourFidelity = try blurredPSNR(work + "/gif/clip.gif", reference: frames, width: 320, height: 180)
        let theirFidelity = try blurredPSNR(work + "/ff10.gif", reference: frames, width: 320, height: 180)
        XCTAssertGreaterThanOrEqual(ourFidelity, theirFidelity - 0.5, "mean PSNR of the blurred pictures, dB")
        let ourBytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: work + "/gif/clip.gif")[.size] as? Int)
        let theirBytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: work + "/ff10.gif")[.size] as? Int)
        XCTAssertLessThanOrEqual(ourBytes, theirBytes)
        print("clip-palette GIF: \(ourBytes) bytes, blurred PSNR \(ourFidelity) dB; ffmpeg's: \(theirBytes) bytes, \(theirFidelity) dB")
        XCTAssertEqual(try closestFrames(work + "/webp/clip.webp", reference: frames, width: 320, height: 180), Array(0..<30))
    }

    /// Sprites: every 2 s of a 10 s clip is 5 cells in rows of 3; the cells at the source's width are ffmpeg's frames at
    /// those times, the scaled ones that frame resized by vips (Lanczos-3), each PSNR ≥ 40 dB; the VTT's cues are the times.
    func testSpritesAndTheirWebVTTMatchFfmpegsFrames() throws {
        let clip = try makeClip(size: "320x240", seconds: 10)
        let path = try pipeline("""
            version: 1
            jobs:
              - name: full
                ingest: { from: [in] }
                sprites: { every: 2s, columns: 3, width: 320 }
                export: { to: full, format: png }
              - name: small
                ingest: { from: [in] }
                sprites: { every: 2.5, columns: 2, width: 160 }
                export: { to: small, format: png }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/full"), ["clip.png", "clip.vtt"])
        func check(_ folder: String, every: Double, columns: Int, cellWidth: Int, cellHeight: Int, count: Int) throws {
            let sheet = try Tool.pixels(work + "/\(folder)/clip.png")
            let rows = (count + columns - 1) / columns
            XCTAssertEqual([sheet.width, sheet.height], [columns * cellWidth, rows * cellHeight], folder)
            let vtt = try String(contentsOfFile: work + "/\(folder)/clip.vtt", encoding: .utf8)
            var expected = "WEBVTT\n"
            for index in 0..<count {
                func stamp(_ t: Double) -> String { String(format: "00:00:%02d.%03d", Int(t), Int((t * 1000).rounded()) % 1000) }
                let start = Double(index) * every, end = index + 1 < count ? Double(index + 1) * every : 10
                expected += "\n\(stamp(start)) --> \(stamp(end))\nclip.png#xywh=\(index % columns * cellWidth),\(index / columns * cellHeight),\(cellWidth),\(cellHeight)\n"
            }
            XCTAssertEqual(vtt, expected, folder)
            for index in 0..<count {
                let reference = work + "/ref-\(folder)-\(index).png"
                try Peer.must("ffmpeg", ["-v", "error", "-ss", String(Double(index) * every), "-i", clip, "-frames:v", "1", reference])
                var expectedCell = reference
                if cellWidth != 320 {
                    expectedCell = work + "/ref-\(folder)-\(index)-small.png"
                    try Peer.must("vips", ["resize", reference, expectedCell, String(Double(cellWidth) / 320)])
                }
                let cell = work + "/cell-\(folder)-\(index).png"
                try Peer.must("vips", ["crop", work + "/\(folder)/clip.png", cell, String(index % columns * cellWidth),
                                       String(index / columns * cellHeight), String(cellWidth), String(cellHeight)])
                let compare = try Tool.run("compare", ["-metric", "PSNR", expectedCell, cell, "null:"])
                let psnr = compare.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                print("sprites \(folder) cell \(index): PSNR \(psnr)")
                XCTAssertTrue(psnr == "inf" || (Double(psnr.split(separator: " ").first ?? "") ?? 0) >= 40, "\(folder) cell \(index): PSNR \(psnr)")
            }
        }
        try check("full", every: 2, columns: 3, cellWidth: 320, cellHeight: 240, count: 5)
        try check("small", every: 2.5, columns: 2, cellWidth: 160, cellHeight: 120, count: 4)
    }

    /// A GIF of a 16,000-pixel-wide movie is over the pixel limit before a frame is decoded, and a clip
    /// that starts past the end fails; each alone, nothing written for them, the good movie's GIF made.
    func testBadMoviesFailAloneAndWriteNothing() throws {
        _ = try makeClip("good.mp4", size: "320x240", seconds: 2)
        _ = try makeClip("wide.mkv", size: "16000x32", seconds: 2, codec: ["-c:v", "ffv1"])
        let path = try pipeline("""
            version: 1
            jobs:
              - name: gifs
                ingest: { from: [in] }
                limits: { maxPixels: 4000000 }
                animation: { from: 0.5, duration: 1, fps: 10 }
                export: { to: out }
              - name: late
                ingest: { from: [in/good.mp4] }
                animation: { from: 30, duration: 1 }
                export: { to: late }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("wide.mkv") && result.stderr.contains("limits.maxPixels") && result.stderr.contains("not decoded"), result.stderr)
        XCTAssertTrue(result.stderr.contains("past the end"), result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out").filter { !$0.hasPrefix(".medley") }, ["good.gif"])
        XCTAssertEqual(Tool.files(under: work + "/late").filter { !$0.hasPrefix(".medley") }, [])
        XCTAssertEqual(try animationInfo(work + "/out/good.gif").delays.count, 10)
    }

    func testMistakesAreReportedWhereTheyAre() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: gifs
                ingest: { from: [in] }
                animation: { fps: 0, format: gfi, palette: frame, width: 0 }
                poster: { at: 1 }
                export: { to: out }
              - name: sprites
                ingest: { from: [in] }
                sprites: { every: 0s, columns: 3 }
            """)
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 2, result.stderr)
        for expected in ["pipeline.yaml:5:23: error: animation.fps", "pipeline.yaml:5:34: error: unknown animation.format 'gfi'", "did you mean 'gif'",
                         "pipeline.yaml:5:62: error: animation.width must be from 1", "pipeline.yaml:5:16: error: 'animation' and 'poster' both make the output",
                         "pipeline.yaml:10:23: error: sprites.every", "sprites makes a file, but the job has no 'export'"] {
            XCTAssertTrue(result.stderr.contains(expected), "\(expected) in:\n\(result.stderr)")
        }
    }
}
