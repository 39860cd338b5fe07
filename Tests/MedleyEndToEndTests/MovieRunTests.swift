import Foundation
import XCTest

/// Movies through `medley run` (docs/movies.md): poster frames into the image path, re-encodes at a
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

    /// A poster through CISepiaTone, checked pixel by pixel: the frame `ffmpeg -ss T -i clip
    /// -frames:v 1` gives at 50 % of ffprobe's duration (rotation applied, as players do), toned
    /// here with that sepia in linear light (`Reference.sepia`). PNG keeps the pixels as
    /// written; the bound is one 8-bit step, the rounding of the formula's result plus the
    /// kernel's float arithmetic (the same bound as SepiaRunTests). Then a typeLow re-encode of
    /// the same clips: both are stored 320×240, inside typeLow's "at most 640×360" (360×640 for
    /// the portrait one), which never enlarges, so 320×240 stays, with the display matrix.
    func testPosterThroughFiltersAndAVideoQualityReencode() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: stills
                ingest: { from: [\(movies)/h264-aac.mp4, \(movies)/rotated-90.mp4] }
                poster: { at: "50%" }
                filters: [ { CISepiaTone: { inputIntensity: 0.8 } } ]
                export: { to: stills, format: png, name: "{stem}-{width}x{height}.png" }
              - name: small
                ingest: { from: [\(movies)/h264-aac.mp4, \(movies)/rotated-90.mp4] }
                transcode: { videoQuality: typeLow }
                export: { to: small, name: "{stem}.mp4" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // ffprobe's display-matrix angle, counter-clockwise: -90 shows the picture turned 90° clockwise.
        let rotations = ["h264-aac": nil, "rotated-90": "-90"]
        for clip in ["h264-aac", "rotated-90"] {
            let source = movies + "/\(clip).mp4"
            let stream = try ffprobe(source, "stream=width,height:stream_side_data=rotation")
            XCTAssertEqual([stream["width"], stream["height"]], ["320", "240"], "\(clip): the fixture as stored")
            XCTAssertEqual(stream["rotation"], rotations[clip]!, "\(clip): the fixture's display matrix")
            // Sizes as displayed: the rotated clip is portrait.
            let (w, h) = stream["rotation"] == nil ? (320, 240) : (240, 320)
            let still = work + "/stills/\(clip)-\(w)x\(h).png"
            XCTAssertEqual(Tool.files(under: work + "/stills").filter { $0.hasPrefix(clip + "-") }, ["\(clip)-\(w)x\(h).png"])

            let duration = try XCTUnwrap(Double(try ffprobe(source, "format=duration")["duration"] ?? ""), clip)
            let frame = try Tool.run("ffmpeg", ["-v", "error", "-ss", String(duration * 0.5), "-i", source, "-frames:v", "1",
                                                "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            XCTAssertEqual(frame.status, 0, frame.stderr)
            let reference = [UInt8](frame.data)
            let poster = try Tool.pixels(still)
            XCTAssertEqual([poster.width, poster.height], [w, h], clip)
            XCTAssertEqual(reference.count, w * h * 3, clip)
            XCTAssertEqual(poster.samples.count, reference.count, clip)
            var worst = 0.0
            for p in stride(from: 0, to: min(reference.count, poster.samples.count), by: 3) {
                let expected = Reference.sepia(reference[p..<p + 3].map(Int.init), intensity: 0.8)
                for c in 0..<3 { worst = max(worst, abs(Double(poster.samples[p + c]) - expected[c])) }
            }
            XCTAssertLessThanOrEqual(worst, 1.0, "\(clip): largest difference from the toned ffmpeg frame, in 8-bit steps")

            let small = work + "/small/\(clip).mp4"
            let video = try ffprobe(small, "stream=codec_name,width,height:stream_side_data=rotation")
            XCTAssertEqual(video["codec_name"], "h264", clip)
            XCTAssertEqual([video["width"], video["height"]], ["320", "240"], "\(clip): typeLow never enlarges")
            XCTAssertEqual(video["rotation"], rotations[clip]!, "\(clip): the display matrix is kept exactly")
            let audio = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", small])
            XCTAssertEqual(audio.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "aac", clip)
        }
        let tags = try ffprobe(work + "/small/rotated-90.mp4", "format_tags=title")
        XCTAssertEqual(tags["TAG:title"], "Sideways", "tags carried over")
    }

    /// `probe` shows every container tag ffprobe's format_tags lists (brands aside), verbatim, as
    /// `tag.<key>`, in text and JSON; `where` selects on them.
    func testProbeShowsContainerTags() throws {
        let clip = work + "/phone.mov"
        XCTAssertEqual(try Tool.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "1", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", "-metadata", "make=Apple", "-metadata", "model=iPhone 12",
            "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "location=+081.120/",
            "-metadata", "creation_time=2024-05-01T10:00:00.000000Z", "-movflags", "use_metadata_tags", clip]).status, 0)
        let peer = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", clip])
        let peerTags = try XCTUnwrap(((JSONSerialization.jsonObject(with: Data(peer.stdout.utf8)) as? [String: Any])?["format"]
            as? [String: Any])?["tags"] as? [String: String])
        let expected = peerTags.filter { !["major_brand", "minor_version", "compatible_brands"].contains($0.key) }
        XCTAssertEqual(expected["location"], "+081.120/")
        XCTAssertEqual(expected.count, 6, "\(expected)")

        let json = try Tool.medley(["probe", clip, "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let report = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])?.first)
        var shown: [String: String] = [:]
        for (key, value) in report where key.hasPrefix("tag.") { shown[String(key.dropFirst(4))] = value as? String }
        XCTAssertEqual(shown, expected)

        let text = try Tool.medley(["probe", clip])
        for (key, value) in expected { XCTAssertTrue(text.stdout.contains("\n  tag.\(key): \(value)\n"), "\(key): \(text.stdout)") }

        let path = try pipeline("""
            version: 1
            jobs:
              - name: apple
                ingest: { from: [\(work!)], media: [movie] }
                where: { tag.make: apple }
                poster: { at: 0.5 }
                export: { to: out, name: "{tag.model}.png" }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["iPhone 12.png"])
    }

    /// A movie cut short re-encodes to part of its length: the item fails, naming how much was
    /// decoded of the duration the container declares (ffprobe's format.duration), and nothing
    /// is written; the whole clip beside it succeeds.
    func testTruncatedMovieFailsItsReencode() throws {
        let source = work + "/in", whole = source + "/whole.mp4"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "4", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", "-movflags", "+faststart", whole]).status, 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: source + "/cut.mp4"))
        let declared = try ffprobe(source + "/cut.mp4", "format=duration")["duration"]
        XCTAssertEqual(declared, "4.000000")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: small
                ingest: { from: [in], media: [movie] }
                transcode: { videoQuality: typeLow }
                export: { to: out, name: "{stem}.mp4" }
            """)
        let run = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("cut.mp4") && run.stderr.contains("truncated: ")
                      && run.stderr.contains(" s decoded of the 4.000 s the container declares"), run.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["whole.mp4"])
    }

    /// Bytes scrambled in the P-frame after the 2 s keyframe (offsets from ffprobe): a poster at
    /// 3 s fails naming the corruption instead of exporting the decoder's guess, one at 1 s is
    /// exported; a re-encode succeeds with a warning, in the console and the manifest.
    func testDamagedClipPosterFailsAndReencodeWarns() throws {
        let input = work + "/in", clip = input + "/damaged.mp4"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "5", "-c:v", "libx264",
            "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-pix_fmt", "yuv420p", clip]).status, 0)
        let packets = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,pos,size,flags",
                                               "-of", "csv=p=0", clip]).stdout.split(separator: "\n").map { $0.split(separator: ",") }
        let key = try XCTUnwrap(packets.firstIndex { $0.count >= 4 && Double($0[0]) == 2 && $0[3].hasPrefix("K") })
        let (position, size) = (try XCTUnwrap(Int(packets[key + 1][2])), try XCTUnwrap(Int(packets[key + 1][1])))
        XCTAssertGreaterThan(size, 600)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clip)))
        for i in (position + 100)..<(position + size - 100) { bytes[i] = bytes[i] &* 7 &+ 13 }
        try Data(bytes).write(to: URL(fileURLWithPath: clip))

        func run(_ stage: String, _ name: String) throws -> Tool.Result {
            try Tool.medley(["run", try pipeline("""
                version: 1
                jobs:
                  - name: clips
                    ingest: { from: [in], media: [movie] }
                    \(stage)
                    export: { to: out, name: "\(name)" }
                """), "--force"])
        }
        let late = try run("poster: { at: 3 }", "{stem}-3s.png")
        XCTAssertEqual(late.status, 1, late.stderr)
        XCTAssertTrue(late.stderr.contains("\(clip): cannot take the poster frame: the frame at 3.000 s is corrupt"), late.stderr)
        let early = try run("poster: { at: 1 }", "{stem}-1s.png")
        XCTAssertEqual(early.status, 0, early.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["damaged-1s.png"])

        let reencode = try run("transcode: { videoQuality: typeLow }", "{stem}.mp4")
        XCTAssertEqual(reencode.status, 0, reencode.stderr)
        XCTAssertTrue(reencode.stderr.contains("warn  \(clip): ") && reencode.stderr.contains("damaged frame(s) in the source"), reencode.stderr)
        let manifest = try String(contentsOfFile: work + "/out/.medley/manifest-clips.jsonl", encoding: .utf8)
        XCTAssertTrue(manifest.contains("damaged frame(s) in the source, re-encoded as the decoder concealed them"), manifest)
    }
}

