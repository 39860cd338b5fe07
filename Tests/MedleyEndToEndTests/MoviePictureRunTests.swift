import Foundation
import XCTest

/// The pictures of a re-encode (issue 50, docs/movies.md): interlaced, letterboxed and HDR clips
/// made here by ffmpeg (field-coded H.264 from `tinterlace`, a picture `pad`ded into bars, x265
/// 10-bit HLG and PQ with mastering-display metadata). Oracles: ffmpeg's `idet` and `cropdetect` on
/// the outputs, its own zscale+tonemap graph for the SDR pictures, ffprobe for what HDR keeps.
final class MoviePictureRunTests: EndToEndCase {
    func ffmpeg(_ arguments: [String]) throws {
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y"] + arguments)
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    func makeInput() throws -> String {
        let folder = work + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Field-coded 1280×720 H.264, top field first, from a 50 fps pattern woven into 25 frames.
    func makeInterlaced(_ path: String) throws {
        try ffmpeg(["-f", "lavfi", "-t", "3", "-i", "testsrc2=size=1280x720:rate=50", "-vf", "tinterlace=interleave_top,fieldorder=tff",
                    "-flags", "+ildct+ilme", "-c:v", "libx264", "-preset", "ultrafast", "-x264-params", "tff=1", path])
    }

    /// A 1280×536 picture padded into 1280×720 (92-pixel bars above and below).
    func makeLetterboxed(_ path: String) throws {
        try ffmpeg(["-f", "lavfi", "-t", "3", "-i", "testsrc2=size=1280x536:rate=25", "-vf", "pad=1280:720:0:92",
                    "-c:v", "libx264", "-preset", "ultrafast", path])
    }

    /// 10-bit HEVC in BT.2020 with the HLG or PQ transfer; PQ with HDR10 mastering display and light levels.
    func makeHDR(_ path: String, pq: Bool) throws {
        let transfer = pq ? "smpte2084" : "arib-std-b67"
        var params = "log-level=none:colorprim=bt2020:transfer=\(transfer):colormatrix=bt2020nc"
        if pq { params += ":hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" }
        try ffmpeg(["-f", "lavfi", "-t", "2", "-i", "testsrc2=size=1280x720:rate=25", "-vf", "format=yuv420p10le",
                    "-c:v", "libx265", "-preset", "ultrafast", "-color_primaries", "bt2020", "-color_trc", transfer,
                    "-colorspace", "bt2020nc", "-x265-params", params, path])
    }

    func run(_ settings: String, ext: String = "mp4", include: String = "*") throws -> (log: String, manifest: [[String: Any]]) {
        let text = """
            version: 1
            jobs:
              - name: movies
                ingest: { from: [\(work!)/in], media: [movie], include: ["\(include)"] }
                transcode: { \(settings) }
                export: { to: \(work!)/out, name: "{stem}.\(ext)" }
            """
        let result = try Tool.medley(["run", try pipeline(text)])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let lines = (try? String(contentsOfFile: work + "/out/.medley/manifest-movies.jsonl", encoding: .utf8)) ?? ""
        let records = lines.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (result.stdout + result.stderr, records)
    }

    func movieRecord(_ manifest: [[String: Any]], _ item: String) -> [String: Any] {
        manifest.first { $0["item"] as? String == item }?["movie"] as? [String: Any] ?? [:]
    }

    /// idet's multi-frame counts over a whole file: (tff, bff, progressive).
    func idet(_ path: String) throws -> (Int, Int, Int) {
        let result = try Tool.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-vf", "idet", "-an", "-f", "null", "-"])
        let line = result.stderr.split(separator: "\n").last { $0.contains("Multi frame detection") } ?? ""
        func count(_ name: String) -> Int {
            guard let range = line.range(of: name + ":") else { return -1 }
            return Int(line[range.upperBound...].trimmingCharacters(in: .whitespaces).prefix { $0.isNumber }) ?? -1
        }
        return (count("TFF"), count("BFF"), count("Progressive"))
    }

    /// cropdetect's last crop over a whole file, as [w, h, x, y].
    func cropdetect(_ path: String) throws -> [Int] {
        let result = try Tool.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-vf", "cropdetect=limit=24:round=2:reset=0",
                                             "-an", "-f", "null", "-"])
        guard let line = result.stderr.split(separator: "\n").last(where: { $0.contains("crop=") }),
              let range = line.range(of: "crop=") else { return [] }
        return line[range.upperBound...].split(separator: ":").compactMap { Int($0.prefix { $0.isNumber }) }
    }

    func frame(_ path: String, at seconds: Double, filter: String? = nil) throws -> [UInt8] {
        try MovieComparison.frame(path, at: seconds, filter: filter)
    }

    func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { MovieComparison.psnr(a, b) }

    /// `deinterlace: auto` (the default) finds the field-coded clip interlaced from the decoder's
    /// flags and deinterlaces it: idet on the output finds no interlaced frames where it finds
    /// them on the source, and the manifest says why. A progressive clip is left alone.
    func testInterlacedSourcesAreDeinterlaced() throws {
        let folder = try makeInput()
        try makeInterlaced(folder + "/interlaced.mp4")
        try makeLetterboxed(folder + "/progressive.mp4")
        let (_, manifest) = try run("videoCodec: h264, speed: veryfast")
        let source = try idet(folder + "/interlaced.mp4")
        XCTAssertGreaterThan(source.0 + source.1, 60, "idet on the source: \(source)")
        let written = try idet(work + "/out/interlaced.mp4")
        XCTAssertEqual(written.0 + written.1, 0, "idet on the output: \(written)")
        let decided = movieRecord(manifest, "interlaced.mp4")["deinterlace"] as? [String: Any]
        XCTAssertEqual(decided?["applied"] as? Bool, true)
        XCTAssertEqual(decided?["reason"] as? String, "the decoder marks 75 of 75 sampled frames interlaced (top field first)")
        let progressive = movieRecord(manifest, "progressive.mp4")["deinterlace"] as? [String: Any]
        XCTAssertEqual(progressive?["applied"] as? Bool, false)
        // The output is progressive as ffprobe reads it.
        let order = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=field_order",
                                             "-of", "csv=p=0", work + "/out/interlaced.mp4"]).stdout
        XCTAssertEqual(order.trimmingCharacters(in: .whitespacesAndNewlines), "progressive")
    }

    /// `crop: auto` takes off the bars cropdetect finds on the source (within 2 px), and
    /// cropdetect finds none left on the output.
    func testBlackBarsAreCropped() throws {
        let folder = try makeInput()
        try makeLetterboxed(folder + "/letterbox.mp4")
        let (_, manifest) = try run("videoCodec: h264, speed: veryfast, crop: auto")
        let source = try cropdetect(folder + "/letterbox.mp4"), out = work + "/out/letterbox.mp4"
        XCTAssertEqual(source.count, 4)
        let size = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                            "-of", "csv=p=0", out]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",").compactMap { Int($0) }
        XCTAssertEqual(size.count, 2)
        if source.count == 4, size.count == 2 {
            XCTAssertEqual(Double(size[0]), Double(source[0]), accuracy: 2)
            XCTAssertEqual(Double(size[1]), Double(source[1]), accuracy: 2)
            let left = try cropdetect(out)
            XCTAssertEqual(left.count, 4)
            if left.count == 4 {
                XCTAssertEqual(Double(left[0]), Double(size[0]), accuracy: 2, "bars left: \(left)")
                XCTAssertEqual(Double(left[1]), Double(size[1]), accuracy: 2, "bars left: \(left)")
            }
        }
        let record = movieRecord(manifest, "letterbox.mp4")
        XCTAssertEqual(record["crop"] as? [Int], [0, 92, 1280, 536])
        XCTAssertTrue((record["cropReason"] as? String ?? "").hasPrefix("black bars: top 92, bottom 92, left 0, right 0"), "\(record)")
    }

    /// Explicit edges crop the stored picture (1280×720 less 92 px above and below: 1280×536, as
    /// ffprobe reads it); edges that leave no picture fail that item alone, with the reason.
    func testExplicitEdgesAndImpossibleOnes() throws {
        let folder = try makeInput()
        try makeLetterboxed(folder + "/letterbox.mp4")
        let text = """
            version: 1
            jobs:
              - name: edges
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, speed: ultrafast, crop: { top: 92, bottom: 92 } }
                export: { to: \(work!)/edges, name: "{stem}.mp4" }
              - name: impossible
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, speed: ultrafast, crop: { left: 1000, right: 400 } }
                export: { to: \(work!)/impossible, name: "{stem}.mp4" }
            """
        let result = try Tool.medley(["run", try pipeline(text)])
        XCTAssertNotEqual(result.status, 0)
        let size = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                                            "-of", "csv=p=0", work + "/edges/letterbox.mp4"]).stdout
        XCTAssertEqual(size.trimmingCharacters(in: .whitespacesAndNewlines), "1280,536")
        XCTAssertTrue((result.stdout + result.stderr).contains("the crop (crop: top 0, bottom 0, left 1000, right 400) leaves no picture of the 1280×720 stored frame"),
                      result.stdout + result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/impossible/letterbox.mp4"))
    }

    /// An HLG and a PQ clip into 8-bit H.264 are tone-mapped (hable): each picture is within 1 dB
    /// PSNR of what ffmpeg's zscale+tonemap graph encoded at the same settings gives, both measured
    /// against that graph's unencoded pictures; the output is tagged BT.709.
    func testHDRIsToneMappedForAnSDROutput() throws {
        let folder = try makeInput()
        try makeHDR(folder + "/hlg.mp4", pq: false)
        try makeHDR(folder + "/pq.mp4", pq: true)
        let (_, manifest) = try run("videoCodec: h264, speed: veryfast, crf: 18")
        let graph = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        for name in ["hlg", "pq"] {
            let source = folder + "/\(name).mp4", out = work + "/out/\(name).mp4", peer = work + "/peer-\(name).mp4"
            try ffmpeg(["-i", source, "-vf", graph, "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", peer])
            for time in [0.5, 1.5] {
                let reference = try frame(source, at: time, filter: graph)
                let ours = psnr(try frame(out, at: time), reference), theirs = psnr(try frame(peer, at: time), reference)
                XCTAssertGreaterThan(ours, 30, "\(name) at \(time) s")
                XCTAssertGreaterThanOrEqual(ours, theirs - 1, "\(name) at \(time) s: Medley \(ours) dB, ffmpeg \(theirs) dB")
            }
            let tags = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                "stream=pix_fmt,color_transfer,color_primaries", "-of", "csv=p=0", out]).stdout
            XCTAssertEqual(tags.trimmingCharacters(in: .whitespacesAndNewlines), "yuv420p,bt709,bt709", name)
            XCTAssertEqual(movieRecord(manifest, "\(name).mp4")["hdrReason"] as? String,
                           "\(name.uppercased()) tone-mapped to BT.709 SDR (hable): the output is 8-bit")
        }
    }

    /// A poster of an HDR movie is tone-mapped as its re-encode is (hable): the PNG's pixels are
    /// at least 40 dB PSNR from ffmpeg's zscale+tonemap graph on the same frame, where the untouched
    /// conversion (washed out) is far below it.
    func testPostersOfHDRMoviesAreToneMapped() throws {
        let folder = try makeInput()
        try makeHDR(folder + "/pq.mp4", pq: true)
        let text = """
            version: 1
            jobs:
              - name: posters
                ingest: { from: [\(work!)/in], media: [movie] }
                poster: { at: 1.0 }
                export: { to: \(work!)/out, format: png, name: "{stem}.png" }
            """
        let result = try Tool.medley(["run", try pipeline(text)])
        XCTAssertEqual(result.status, 0, result.stderr)
        let graph = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        let reference = try frame(folder + "/pq.mp4", at: 1.0, filter: graph)
        let washedOut = try frame(folder + "/pq.mp4", at: 1.0)
        let poster = [UInt8](try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/out/pq.png", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data)
        XCTAssertGreaterThanOrEqual(psnr(poster, reference), 40)
        XCTAssertLessThan(psnr(washedOut, reference), 25, "the untouched conversion is not the tone-mapped picture")
    }

    /// A PQ clip whose HDR description is broken (no primaries or matrix, a mastering display of
    /// zeros) is still tone-mapped, with a warning for each thing assumed; only that item is affected.
    func testBrokenHDRMetadataIsAWarning() throws {
        let folder = try makeInput()
        try ffmpeg(["-f", "lavfi", "-t", "1", "-i", "testsrc2=size=640x360:rate=25", "-vf", "format=yuv420p10le",
                    "-c:v", "libx265", "-preset", "ultrafast", "-color_trc", "smpte2084", "-x265-params",
                    "log-level=none:transfer=smpte2084:hdr10=1:master-display=G(0,0)B(0,0)R(0,0)WP(0,0)L(0,0):max-cll=0,0",
                    folder + "/broken.mp4"])
        try makeLetterboxed(folder + "/plain.mp4")
        let (log, manifest) = try run("videoCodec: h264, speed: ultrafast")
        XCTAssertTrue(log.contains("broken.mp4: the PQ picture states no primaries or matrix: taken as BT.2020"), log)
        XCTAssertTrue(log.contains("broken.mp4: the mastering display metadata gives no peak luminance: not used"), log)
        XCTAssertFalse(log.contains("plain.mp4: the"), log)
        XCTAssertEqual(manifest.filter { $0["status"] as? String == "succeeded" }.count, 2)
        let tags = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_transfer",
                                            "-of", "csv=p=0", work + "/out/broken.mp4"]).stdout
        XCTAssertEqual(tags.trimmingCharacters(in: .whitespacesAndNewlines), "bt709")
    }

    /// `hdr: keep` writes 10-bit HEVC with the source's transfer and primaries, and the PQ clip's
    /// mastering display and light levels as ffprobe reads them from the source's first frame.
    func testHDRIsKeptInTenBitHEVC() throws {
        let folder = try makeInput()
        try makeHDR(folder + "/pq.mp4", pq: true)
        try makeHDR(folder + "/hlg.mp4", pq: false)
        _ = try run("videoCodec: hevc, speed: ultrafast, hdr: keep")
        func describe(_ path: String) throws -> String {
            try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                     "stream=pix_fmt,color_transfer,color_primaries,color_space", "-of", "csv=p=0", path]).stdout
                // The stream's own line: side data (mastering display in the container) adds more, and a field.
                .split(separator: "\n").first.map { String($0).split(separator: ",").prefix(4).joined(separator: ",") } ?? ""
        }
        func sideData(_ path: String) throws -> [String] {
            try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames",
                                     "-show_entries", "frame=side_data_list", "-of", "compact", path]).stdout
                .split(separator: "\n").filter { $0.contains("Mastering") || $0.contains("Content light") }.map(String.init)
        }
        for name in ["pq", "hlg"] {
            XCTAssertEqual(try describe(work + "/out/\(name).mp4"), try describe(folder + "/\(name).mp4"), name)
        }
        let kept = try sideData(work + "/out/pq.mp4")
        XCTAssertEqual(kept.count, 2, "\(kept)")
        XCTAssertEqual(kept, try sideData(folder + "/pq.mp4"))
        // VP9 in Matroska: libvpx writes no mastering display, so the container holds what the
        // source's frames carry (ffprobe's stream side data, as x265's SEI values: 34000/50000 …).
        let vp9 = """
            version: 1
            jobs:
              - name: vp9
                ingest: { from: [\(work!)/in], media: [movie], include: ["pq.mp4"] }
                transcode: { videoCodec: vp9, speed: ultrafast, hdr: keep, audioTracks: none }
                export: { to: \(work!)/vp9, name: "{stem}.mkv" }
            """
        let result = try Tool.medley(["run", try pipeline(vp9, name: "vp9.yaml")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the mastering display and light levels go into the container only"), result.stderr)
        let stream = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data_list",
                                              "-of", "flat", work + "/vp9/pq.mkv"]).stdout
        for expected in ["red_x=\"17/25\"", "green_x=\"53/200\"", "blue_y=\"3/50\"", "white_point_x=\"3127/10000\"",
                         "max_luminance=\"1000/1\"", "min_luminance=\"1/10000\"", "max_content=1000", "max_average=400"] {
            XCTAssertTrue(stream.contains(expected), "\(expected) in \(stream)")
        }
    }
}
