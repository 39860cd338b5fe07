import Foundation
import XCTest

/// Movies through `medley run` (SPEC §11): poster frames into the image path, re-encodes at a
/// videoQuality, broken clips failing alone — checked with the ffmpeg CLI, ffprobe and ImageMagick.
final class MovieRunTests: EndToEndCase {
    let movies = Tool.fixtures + "/movies"

    func ffprobe(_ path: String, _ entries: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "default=noprint_wrappers=1", path])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    func testPosterFramesMatchFfmpegAndBrokenClipsFailAlone() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: posters
                ingest: { from: [\(movies)], media: [movie] }
                poster: { at: 0.5 }
                export: { to: out, format: png, name: "{relpath}/{stem}-{format}.png" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 1, "the broken clip fails: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("broken/truncated.mp4:"), result.stderr)
        let clips = try FileManager.default.contentsOfDirectory(atPath: movies).filter { $0.contains(".") }.sorted()
        XCTAssertGreaterThanOrEqual(clips.count, 5)
        func posterName(_ clip: String) -> String {
            // {format} is the container as Medley's sniffer names it; M4V is MP4.
            let ext = (clip as NSString).pathExtension
            return (clip as NSString).deletingPathExtension + "-" + (ext == "m4v" ? "mp4" : ext) + ".png"
        }
        XCTAssertEqual(Tool.files(under: work + "/out"), clips.map(posterName).sorted())
        for clip in clips {
            // The frame ffmpeg's CLI shows at 0.5 s (rotation applied, as players do).
            let reference = work + "/ref-\(clip).png"
            XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-ss", "0.5", "-i", movies + "/" + clip, "-frames:v", "1", reference]).status, 0)
            let poster = work + "/out/" + posterName(clip)
            let compare = try Tool.run("compare", ["-metric", "PSNR", reference, poster, "null:"])
            let psnr = compare.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertTrue(psnr == "inf" || (Double(psnr.split(separator: " ").first ?? "") ?? 0) >= 40, "\(clip): PSNR \(psnr)")
        }
    }

    func testPosterThroughFiltersAndAVideoQualityReencode() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: stills
                ingest: { from: [\(movies)/h264-aac.mp4, \(movies)/rotated-90.mp4] }
                poster: { at: "50%" }
                filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
                export: { to: stills, format: jpeg, name: "{stem}-{width}x{height}.jpg" }
              - name: small
                ingest: { from: [\(movies)/h264-aac.mp4, \(movies)/rotated-90.mp4] }
                transcode: { videoQuality: typeLow }
                export: { to: small, name: "{stem}.mp4" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for clip in ["h264-aac", "rotated-90"] {
            // Sizes as ffprobe displays them: the rotated clip is portrait.
            let stream = try ffprobe(movies + "/\(clip).mp4", "stream=width,height:stream_side_data=rotation")
            var (w, h) = (Int(stream["width"] ?? "") ?? 0, Int(stream["height"] ?? "") ?? 0)
            if let rotation = Int(stream["rotation"] ?? "0"), abs(rotation) % 180 == 90 { (w, h) = (h, w) }
            let still = work + "/stills/\(clip)-\(w)x\(h).jpg"
            XCTAssertTrue(FileManager.default.fileExists(atPath: still), "\(still) in \(Tool.files(under: work + "/stills"))")

            let small = work + "/small/\(clip).mp4"
            let video = try ffprobe(small, "stream=codec_name,width,height")
            XCTAssertEqual(video["codec_name"], "h264")
            XCTAssertLessThanOrEqual(Int(video["width"] ?? "") ?? 9999, 640)
            XCTAssertLessThanOrEqual(Int(video["height"] ?? "") ?? 9999, 640)
            let audio = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", small])
            XCTAssertEqual(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "aac")
        }
        let tags = try ffprobe(work + "/small/rotated-90.mp4", "format_tags=title")
        XCTAssertEqual(tags["TAG:title"], "Sideways", "tags carried over")
        let rotation = try ffprobe(work + "/small/rotated-90.mp4", "stream_side_data=rotation")
        XCTAssertNotNil(rotation["rotation"], "rotation kept")
    }
}
