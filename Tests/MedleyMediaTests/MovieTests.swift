import Foundation
import MedleyMedia
import XCTest
import MedleyTestSupport

/// Movie.probe, Movie.frame and Movie.transcode against the FFmpeg command-line tools: ffprobe's
/// JSON for stream facts, `ffmpeg -ss t -i clip -frames:v 1` for frames (compared by PSNR
/// computed here), and ffprobe on every transcoded file. Fixtures: fixtures/movies, made by
/// fixtures/make-movie-fixtures.sh.
final class MovieTests: XCTestCase {
    static let movies = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/movies").path
    static let clips = ["h264-aac.mp4", "rotated-90.mp4", "silent.m4v", "h264-aac.mov", "h263-aac.3gp",
                        "mpeg4-mp3.mkv", "vp9-opus.webm", "vp8-opus.webm"]
    var work = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-movie-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    func clip(_ name: String) -> String { Self.movies + "/" + name }

    // MARK: - ffprobe and ffmpeg

    /// `ffprobe -show_streams -show_format -of json` (plus -show_frames when asked), parsed.
    func ffprobe(_ path: String, _ extra: [String] = []) throws -> [String: Any] {
        let result = try Peer.must("ffprobe", ["-v", "error", "-show_streams", "-show_format", "-of", "json"] + extra + [path])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: result.data) as? [String: Any])
    }

    func streams(_ probe: [String: Any], _ type: String) -> [[String: Any]] {
        ((probe["streams"] as? [[String: Any]]) ?? []).filter {
            $0["codec_type"] as? String == type && (($0["disposition"] as? [String: Any])?["attached_pic"] as? Int ?? 0) == 0
        }
    }

    func number(_ value: Any?) -> Double? {
        if let text = value as? String { return Double(text) }
        return (value as? NSNumber)?.doubleValue
    }

    func fraction(_ value: Any?) -> Double {
        let parts = ((value as? String) ?? "0/1").split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : 0
    }

    /// Clockwise display rotation from ffprobe's display-matrix angle (counter-clockwise).
    func ffprobeRotation(_ stream: [String: Any]) -> Int {
        let sideData = (stream["side_data_list"] as? [[String: Any]]) ?? []
        guard let angle = sideData.compactMap({ number($0["rotation"]) }).first else { return 0 }
        return ((-Int(angle.rounded()) % 360) + 360) % 360
    }

    /// The frame `ffmpeg -ss t -i path -frames:v 1` gives, as packed RGB (autorotated, as the CLI does).
    func ffmpegFrame(_ path: String, at seconds: Double) throws -> [UInt8] {
        let result = try Peer.must("ffmpeg", ["-v", "error", "-ss", String(seconds), "-i", path, "-frames:v", "1",
                                              "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return [UInt8](result.data)
    }

    // MARK: - probe

    func testProbeMatchesFFprobe() throws {
        for name in Self.clips {
            let path = clip(name)
            let info = try Movie.probe(path: path)
            let probe = try ffprobe(path)
            let format = try XCTUnwrap(probe["format"] as? [String: Any])
            let video = try XCTUnwrap(streams(probe, "video").first, name)
            let audio = streams(probe, "audio").first
            let fps = fraction(video["avg_frame_rate"])
            let duration = try XCTUnwrap(number(format["duration"]))
            XCTAssertEqual(info.duration, duration, accuracy: max(0.001, 1 / fps), name)
            XCTAssertEqual(info.width, video["width"] as? Int, name)
            XCTAssertEqual(info.height, video["height"] as? Int, name)
            XCTAssertEqual(info.frameRate, fps, accuracy: 1e-9, name)
            XCTAssertEqual(info.videoCodec, video["codec_name"] as? String, name)
            XCTAssertEqual(info.audioCodec, audio?["codec_name"] as? String, name)
            XCTAssertEqual(info.sampleRate, Int(audio?["sample_rate"] as? String ?? "0"), name)
            XCTAssertEqual(info.channels, audio?["channels"] as? Int ?? 0, name)
            XCTAssertEqual(info.bitRate, Int(format["bit_rate"] as? String ?? ""), name)
            XCTAssertEqual(info.format, format["format_name"] as? String, name)
            XCTAssertEqual(info.rotation, ffprobeRotation(video), name)
            XCTAssertEqual(info.pixelFormat, video["pix_fmt"] as? String, name)
            var tags: [String: String] = [:]
            for (key, value) in (format["tags"] as? [String: String]) ?? [:]
            where !["major_brand", "minor_version", "compatible_brands"].contains(key.lowercased()) {
                tags[key.lowercased()] = value
            }
            XCTAssertEqual(info.tags, tags, name)
        }
    }

    func testProbeReadsKnownFacts() throws {
        // Written by fixtures/make-movie-fixtures.sh.
        let mp4 = try Movie.probe(path: clip("h264-aac.mp4"))
        XCTAssertEqual(mp4.tags["title"], "Test Card")
        XCTAssertEqual(mp4.tags["artist"], "Medley")
        XCTAssertEqual(mp4.tags["comment"], "generated by lavfi")
        XCTAssertEqual(mp4.tags["date"], "2024")
        XCTAssertEqual(mp4.frameRate, 25)
        XCTAssertEqual(mp4.duration, 2, accuracy: 0.001)
        let rotated = try Movie.probe(path: clip("rotated-90.mp4"))
        XCTAssertEqual(rotated.rotation, 90)
        XCTAssertEqual([rotated.width, rotated.height, rotated.displayWidth, rotated.displayHeight], [320, 240, 240, 320])
        let mov = try Movie.probe(path: clip("h264-aac.mov"))
        XCTAssertEqual(mov.frameRateNumerator, 30000)
        XCTAssertEqual(mov.frameRateDenominator, 1001)
        XCTAssertNil(try Movie.probe(path: clip("silent.m4v")).audioCodec)
        XCTAssertEqual(try Movie.probe(path: clip("mpeg4-mp3.mkv")).tags["title"], "Matroska Card")
    }

    // MARK: - frames

    /// Times to check in a clip: 0, the middle, a time between two frames' timestamps just before
    /// a frame that is not a keyframe (found with ffprobe -show_frames), and one just after the
    /// last frame's timestamp (`ffmpeg -ss` gives nothing there; Medley the last frame, still on
    /// screen, which ffmpeg gives at its own timestamp).
    func times(_ path: String) throws -> [(seconds: Double, expectedTime: Double?)] {
        let probe = try ffprobe(path, ["-show_frames", "-select_streams", "v"])
        let frames = (probe["frames"] as? [[String: Any]]) ?? []
        let start = number((probe["format"] as? [String: Any])?["start_time"]) ?? 0
        let pts = frames.compactMap { number($0["best_effort_timestamp_time"] ?? $0["pts_time"]) }.sorted()
        let duration = try Movie.probe(path: path).duration
        var result: [(Double, Double?)] = [(0, nil), (duration / 2, nil)]
        // A non-keyframe well after a keyframe, so the decoder must run forward from the seek point.
        let candidates = frames.filter { ($0["key_frame"] as? Int) == 0 }
            .compactMap { number($0["best_effort_timestamp_time"] ?? $0["pts_time"]) }.sorted()
        if let target = candidates.dropFirst(candidates.count / 2).first,
           let index = pts.firstIndex(of: target), index > 0 {
            // Just after the previous frame: the first frame at or after it is `target`.
            let between = (pts[index - 1] + target) / 2 - start
            result.append((between, target - start))
        }
        if let last = pts.last { result.append((last - start + 0.001, last - start)) }
        return result
    }

    func testFramesMatchFFmpeg() throws {
        for name in Self.clips {
            let path = clip(name)
            let info = try Movie.probe(path: path)
            for (seconds, expectedTime) in try times(path) {
                let frame = try Movie.frame(path: path, at: seconds)
                let reference = try ffmpegFrame(path, at: min(seconds, expectedTime ?? seconds))
                let label = "\(name) at \(seconds) s"
                XCTAssertEqual([frame.width, frame.height], [info.displayWidth, info.displayHeight], label)
                XCTAssertEqual(reference.count, frame.width * frame.height * 3, label)
                XCTAssertGreaterThanOrEqual(try psnr(frame.rgb, reference), 40, label)
                if let expectedTime { XCTAssertEqual(frame.time, expectedTime, accuracy: 0.0005, label) }
            }
        }
    }

    /// Every frame of a clip, asked for between its timestamp and the previous one's, is that frame
    /// of ffmpeg's sequential decode (no seeking on ffmpeg's side): the seek-then-decode-forward
    /// path is exact everywhere in a GOP, B-frames included.
    func testEveryFrameBetweenTimestamps() throws {
        for name in ["h264-aac.mp4", "h264-aac.mov", "vp9-opus.webm", "mpeg4-mp3.mkv"] {
            let path = clip(name)
            let info = try Movie.probe(path: path)
            let probe = try ffprobe(path, ["-show_frames", "-select_streams", "v"])
            let start = number((probe["format"] as? [String: Any])?["start_time"]) ?? 0
            let pts = ((probe["frames"] as? [[String: Any]]) ?? [])
                .compactMap { number($0["best_effort_timestamp_time"] ?? $0["pts_time"]) }.sorted()
            let all = try Peer.must("ffmpeg", ["-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data
            let size = info.width * info.height * 3
            XCTAssertEqual(all.count, size * pts.count, name)
            for (index, time) in pts.enumerated() {
                let previous = index > 0 ? pts[index - 1] : start
                let seconds = max(0, (previous + time) / 2 - start)
                let frame = try Movie.frame(path: path, at: index == 0 ? 0 : seconds)
                let reference = [UInt8](all[(index * size)..<((index + 1) * size)])
                XCTAssertGreaterThanOrEqual(try psnr(frame.rgb, reference), 40, "\(name) frame \(index) at \(seconds) s")
            }
        }
    }

    /// MPEG-TS seeks by bisecting the file on timestamps and can land on a keyframe after the wanted
    /// time; Medley must still return the frame a sequential decode has on screen then. Every frame
    /// of the clip is asked for (between its timestamp and the previous one's), so whichever seeks
    /// land late with this libavformat are among them; the reference is ffmpeg's one sequential
    /// decode of the whole file, with no seeking on its side.
    func testEveryFrameOfAnMPEGTSClipAfterSeeking() throws {
        let ts = work + "/clip.ts"
        try Peer.must("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=4,hue=h=360*t",
                                 "-c:v", "libx264", "-g", "25", "-bf", "3", "-pix_fmt", "yuv420p", ts])
        let all = try Peer.must("ffmpeg", ["-v", "error", "-i", ts, "-fps_mode", "passthrough", "-f", "rawvideo",
                                           "-pix_fmt", "rgb24", "-"]).data
        let size = 160 * 120 * 3
        XCTAssertEqual(all.count, size * 100)
        func reference(_ index: Int) -> [UInt8] { [UInt8](all[(index * size)..<((index + 1) * size)]) }
        for index in 0..<100 {
            let seconds = index == 0 ? 0 : (Double(index) - 0.5) / 25
            let frame = try Movie.frame(path: ts, at: seconds)
            XCTAssertGreaterThanOrEqual(try psnr(frame.rgb, reference(index)), 40, "frame \(index) at \(seconds) s")
            XCTAssertEqual(frame.time, Double(index) / 25, accuracy: 0.0005, "frame \(index)")
            // A neighbour is far below the bar, so a frame off by one cannot pass.
            XCTAssertLessThan(try psnr(frame.rgb, reference(index == 0 ? 1 : index - 1)), 30, "frame \(index)")
        }
    }

    /// The comparison can tell neighbouring frames apart (the fixtures turn their hue every frame).
    func testNeighbouringFramesDiffer() throws {
        let path = clip("h264-aac.mp4")
        let frame = try Movie.frame(path: path, at: 0.6)
        XCTAssertEqual(frame.time, 0.6, accuracy: 1e-6)
        XCTAssertGreaterThanOrEqual(try psnr(frame.rgb, try ffmpegFrame(path, at: 0.6)), 40)
        XCTAssertLessThan(try psnr(frame.rgb, try ffmpegFrame(path, at: 0.64)), 30)
        XCTAssertLessThan(try psnr(frame.rgb, try ffmpegFrame(path, at: 0.56)), 30)
    }

    func testRotatedFrameIsDisplayedUpright() throws {
        let path = clip("rotated-90.mp4")
        let shown = try Movie.frame(path: path, at: 0.5)
        let stored = try Movie.frame(path: path, at: 0.5, displayed: false)
        XCTAssertEqual([stored.width, stored.height, shown.width, shown.height], [320, 240, 240, 320])
        // ffmpeg -noautorotate gives the stored picture.
        let raw = try Peer.must("ffmpeg", ["-v", "error", "-noautorotate", "-ss", "0.5", "-i", path, "-frames:v", "1",
                                           "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        XCTAssertGreaterThanOrEqual(try psnr(stored.rgb, [UInt8](raw.data)), 40)
    }

    func testRotationByHand() {
        // 3×2 picture, pixels numbered 1…6 row by row (all three channels the same).
        let picture = MovieFrame(width: 3, height: 2, time: 0, rgb: [1, 2, 3, 4, 5, 6].flatMap { [$0, $0, $0] })
        func values(_ frame: MovieFrame) -> [UInt8] { stride(from: 0, to: frame.rgb.count, by: 3).map { frame.rgb[$0] } }
        let right = picture.rotated(clockwise: 90)
        XCTAssertEqual([right.width, right.height], [2, 3])
        XCTAssertEqual(values(right), [4, 1, 5, 2, 6, 3])
        XCTAssertEqual(values(picture.rotated(clockwise: 180)), [6, 5, 4, 3, 2, 1])
        XCTAssertEqual(values(picture.rotated(clockwise: 270)), [3, 6, 2, 5, 1, 4])
    }

    func testPosterAsImage() throws {
        let path = clip("h264-aac.mp4")
        let image = try Movie.poster(path: path, at: try XCTUnwrap(PosterTime("50%")))
        XCTAssertEqual([image.width, image.height, image.bands], [320, 240, 3])
        XCTAssertEqual(image.interpretation, "srgb")
        XCTAssertGreaterThanOrEqual(try psnr(try image.pixels(), try ffmpegFrame(path, at: 1.0)), 40)
    }

    func testPosterTimeParsing() {
        XCTAssertEqual(PosterTime("1.5"), .seconds(1.5))
        XCTAssertEqual(PosterTime("10%"), .fraction(0.1))
        XCTAssertEqual(PosterTime(" 0 "), .seconds(0))
        XCTAssertNil(PosterTime("-1"))
        XCTAssertNil(PosterTime("150%"))
        XCTAssertNil(PosterTime("soon"))
    }

    // MARK: - failures

    func assertThrowsReason(_ body: @autoclosure () throws -> some Any, containing words: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            let reason = (error as? MediaError)?.reason ?? ""
            XCTAssertTrue(reason.contains(words), "reason: \(reason)", file: file, line: line)
        }
    }

    func testBrokenClipThrows() throws {
        let broken = clip("broken/truncated.mp4")
        assertThrowsReason(try Movie.probe(path: broken), containing: "cannot read the container: Invalid data")
        assertThrowsReason(try Movie.frame(path: broken, at: 0.5), containing: "cannot read the container")
        let output = work + "/out.mp4"
        assertThrowsReason(try Movie.transcode(path: broken, to: output, preset: .typeLow), containing: "cannot read the container")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        assertThrowsReason(try Movie.probe(path: work + "/missing.mp4"), containing: "No such file")
        let copy = work + "/copy.mp4"
        try FileManager.default.copyItem(atPath: clip("silent.m4v"), toPath: copy)
        assertThrowsReason(try Movie.transcode(path: copy, to: work + "/./copy.mp4", preset: .typeLow), containing: "overwrite")
        XCTAssertNoThrow(try Movie.probe(path: copy))
        let text = work + "/notes.mp4"
        try Data("not a movie\n".utf8).write(to: URL(fileURLWithPath: text))
        assertThrowsReason(try Movie.probe(path: text), containing: "cannot read the container")
    }

    func testClipCutInItsDataThrowsPastWhereItStops() throws {
        // moov first (faststart), then half of the media data: the index promises 2 s that are not there.
        let whole = work + "/whole.mp4", cut = work + "/cut.mp4"
        try Peer.must("ffmpeg", ["-v", "error", "-i", clip("h264-aac.mp4"), "-c", "copy", "-movflags", "+faststart", whole])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(try Movie.probe(path: cut).duration, 2, accuracy: 0.001)
        XCTAssertGreaterThanOrEqual(try psnr(try Movie.frame(path: cut, at: 0.2).rgb, try ffmpegFrame(whole, at: 0.2)), 40)
        assertThrowsReason(try Movie.frame(path: cut, at: 1.9), containing: "may be truncated")
    }

    func testTimesOutsideTheMovieThrow() throws {
        assertThrowsReason(try Movie.frame(path: clip("h264-aac.mp4"), at: 2.0), containing: "past the end")
        assertThrowsReason(try Movie.frame(path: clip("h264-aac.mp4"), at: -1), containing: "≥ 0")
        XCTAssertThrowsError(try Movie.probe(path: Self.movies + "/../audio/tone.m4a")) { error in
            XCTAssertEqual((error as? MediaError)?.reason, "no video stream")
        }
    }

    // MARK: - transcode

    /// ffprobe's facts about a transcoded file.
    struct Written {
        let videoCodec: String?, audioCodec: String?
        let width: Int, height: Int, rotation: Int
        let videoBitRate: Double, audioBitRate: Double, sampleRate: Int, channels: Int
        let duration: Double, frames: Int
        let tags: [String: String]
        let profile: String?, pixelFormat: String?
    }

    func written(_ path: String) throws -> Written {
        let probe = try ffprobe(path)
        let format = try XCTUnwrap(probe["format"] as? [String: Any])
        let video = try XCTUnwrap(streams(probe, "video").first)
        let audio = streams(probe, "audio").first
        return Written(
            videoCodec: video["codec_name"] as? String, audioCodec: audio?["codec_name"] as? String,
            width: video["width"] as? Int ?? 0, height: video["height"] as? Int ?? 0, rotation: ffprobeRotation(video),
            videoBitRate: number(video["bit_rate"]) ?? 0, audioBitRate: number(audio?["bit_rate"]) ?? 0,
            sampleRate: Int(number(audio?["sample_rate"]) ?? 0), channels: audio?["channels"] as? Int ?? 0,
            duration: number(format["duration"]) ?? 0, frames: Int(number(video["nb_frames"]) ?? 0),
            tags: (format["tags"] as? [String: String]) ?? [:],
            profile: video["profile"] as? String, pixelFormat: video["pix_fmt"] as? String)
    }

    /// key_frame of every video frame, from ffprobe.
    func keyFrames(_ path: String) throws -> [Int] {
        let result = try Peer.must("ffprobe", ["-v", "error", "-show_frames", "-select_streams", "v",
                                               "-show_entries", "frame=key_frame", "-of", "csv=p=0", path])
        // A line per frame, "1" or "0", then any side data after a comma (x264's SEI on the first).
        return result.stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").first ?? "") }
    }

    func testPresetsWriteH264AndAACAtTheirSizes() throws {
        // h264-aac.mp4: 320×240 (4:3), 25 fps, 2 s, 50 frames, stereo AAC at 44.1 kHz, tagged.
        let source = clip("h264-aac.mp4")
        // Picture size, video cap in bits/s (nil: none) and whether every frame is a keyframe, as
        // the presets are documented: the "at most" boxes never enlarge the 320×240 source; the
        // iFrame presets are Apple's iFrame format (all keyframes, 30 and 40 Mb/s ceilings).
        let expected: [(VideoQualityPreset, Int, Int, cap: Double?, allKeyframes: Bool)] = [
            (.typeHigh, 320, 240, nil, false), (.typeMedium, 320, 240, 5_000_000, false),
            (.typeLow, 320, 240, 1_000_000, false), (.type640x480, 640, 480, 2_500_000, false),
            (.typeIFrame960x540, 720, 540, 30_000_000, true), (.typeIFrame1280x720, 960, 720, 40_000_000, true),
        ]
        var rates: [VideoQualityPreset: Double] = [:]
        for (preset, width, height, cap, allKeyframes) in expected {
            let output = work + "/\(preset.rawValue).mp4"
            let result = try Movie.transcode(path: source, to: output, preset: preset, mode: .aspectFit)
            let facts = try written(output)
            let label = preset.rawValue
            XCTAssertEqual(facts.videoCodec, "h264", label)
            XCTAssertEqual(facts.audioCodec, "aac", label)
            XCTAssertEqual(facts.profile, "High", label)
            XCTAssertEqual(facts.pixelFormat, "yuv420p", label)
            XCTAssertEqual([facts.width, facts.height], [width, height], label)
            XCTAssertEqual([result.width, result.height], [width, height], label)
            XCTAssertEqual(facts.frames, 50, label)
            XCTAssertEqual(result.videoFrames, 50, label)
            XCTAssertEqual(facts.duration, 2, accuracy: 0.05, label)
            XCTAssertEqual(result.bytes, try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int, label)
            XCTAssertEqual(facts.sampleRate, 44_100, label)
            XCTAssertEqual(facts.channels, 2, label)
            XCTAssertEqual(facts.audioBitRate, 128_000, accuracy: 16_000, label)
            XCTAssertEqual(facts.tags["title"], "Test Card", label)
            XCTAssertEqual(facts.tags["artist"], "Medley", label)
            XCTAssertEqual(facts.tags["comment"], "generated by lavfi", label)
            XCTAssertEqual(facts.tags["date"], "2024", label)
            if let cap {
                // The VBV bound: one second of buffer on top of the cap over the clip's 2 s.
                XCTAssertLessThanOrEqual(facts.videoBitRate, cap * (1 + 1 / 2.0), label)
            }
            XCTAssertGreaterThan(facts.videoBitRate, 0, label)
            rates[preset] = facts.videoBitRate
            let keys = try keyFrames(output)
            XCTAssertEqual(keys.count, 50, label)
            if allKeyframes {
                XCTAssertEqual(Set(keys), [1], "\(label): every frame a keyframe")
            } else {
                XCTAssertEqual(keys.filter { $0 == 1 }.count, 1, "\(label): one keyframe in 50 frames")
            }
            // The picture survives: the middle frame against the source's, scaled by ffmpeg alike.
            let ours = try Movie.frame(path: output, at: 1.0)
            let reference = try Peer.must("ffmpeg", ["-v", "error", "-ss", "1.0", "-i", source, "-frames:v", "1",
                                                     "-vf", "scale=\(width):\(height):flags=bicubic",
                                                     "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            XCTAssertGreaterThanOrEqual(try psnr(ours.rgb, [UInt8](reference.data)), 25, label)
        }
        // Same picture size, lower CRF: more bits.
        XCTAssertGreaterThan(rates[.typeHigh]!, rates[.typeMedium]!)
        XCTAssertGreaterThan(rates[.typeMedium]!, rates[.typeLow]!)
    }

    func testTranscodeKeepsRotationAndFitsTheDisplayedPicture() throws {
        // Displayed 240×320 fits the 640×480 box (as displayed) at scale 1.5: 360×480 on screen,
        // stored 480×360 with the same display matrix.
        let output = work + "/rotated.mp4"
        try Movie.transcode(path: clip("rotated-90.mp4"), to: output, preset: .type640x480)
        let facts = try written(output)
        XCTAssertEqual([facts.width, facts.height, facts.rotation], [480, 360, 90])
        XCTAssertEqual(facts.tags["title"], "Sideways")
        XCTAssertEqual(facts.channels, 2)  // mono source, stereo AAC
        XCTAssertEqual(facts.sampleRate, 48_000)
        XCTAssertEqual(try Movie.probe(path: output).rotation, 90)
        let shown = try Movie.frame(path: output, at: 0.5)
        XCTAssertEqual([shown.width, shown.height], [360, 480])
        XCTAssertGreaterThanOrEqual(try psnr(shown.rgb, try ffmpegFrame(output, at: 0.5)), 40)
    }

    func testAspectFillCropsTheCentre() throws {
        // 320×240 into 960×540 covering: scale by 3 to 960×720, keep the middle 540 rows — the
        // source rows 30…209. ffmpeg does the same with crop then scale.
        let source = clip("h264-aac.mp4")
        let output = work + "/fill.mp4"
        try Movie.transcode(path: source, to: output, preset: .typeIFrame960x540, mode: .aspectFill)
        let facts = try written(output)
        XCTAssertEqual([facts.width, facts.height], [960, 540])
        let ours = try Movie.frame(path: output, at: 1.0)
        let reference = try Peer.must("ffmpeg", ["-v", "error", "-ss", "1.0", "-i", source, "-frames:v", "1",
                                                 "-vf", "crop=320:180:0:30,scale=960:540:flags=bicubic",
                                                 "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        XCTAssertGreaterThanOrEqual(try psnr(ours.rgb, [UInt8](reference.data)), 28)
        // The uncropped picture squeezed into the box is a different picture.
        let squeezed = try Peer.must("ffmpeg", ["-v", "error", "-ss", "1.0", "-i", source, "-frames:v", "1",
                                                "-vf", "scale=960:540:flags=bicubic", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        XCTAssertLessThan(try psnr(ours.rgb, [UInt8](squeezed.data)), 20)
    }

    /// Non-square pixels: a box preset makes square ones at the displayed width, the source-size
    /// preset keeps the stored pixels and their aspect.
    func testAnamorphicSource() throws {
        let wide = work + "/wide.mp4"
        try Peer.must("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1,setsar=4/3",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", wide])
        let info = try Movie.probe(path: wide)
        XCTAssertEqual([info.pixelAspectNumerator, info.pixelAspectDenominator, info.displayWidth], [4, 3, 427])
        // 427×240 as displayed, inside 1280×720 without enlarging: 426×240 (even), square pixels.
        try Movie.transcode(path: wide, to: work + "/medium.mp4", preset: .typeMedium)
        let medium = try ffprobe(work + "/medium.mp4")
        let mediumVideo = try XCTUnwrap(streams(medium, "video").first)
        XCTAssertEqual([mediumVideo["width"] as? Int, mediumVideo["height"] as? Int], [426, 240])
        XCTAssertEqual(mediumVideo["sample_aspect_ratio"] as? String, "1:1")
        try Movie.transcode(path: wide, to: work + "/high.mp4", preset: .typeHigh)
        let high = try XCTUnwrap(streams(try ffprobe(work + "/high.mp4"), "video").first)
        XCTAssertEqual([high["width"] as? Int, high["height"] as? Int], [320, 240])
        XCTAssertEqual(high["sample_aspect_ratio"] as? String, "4:3")
    }

    /// Video frames ffprobe decodes from the first video stream (`-count_frames`).
    func decodedFrames(_ path: String) throws -> Int {
        let result = try Peer.must("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                               "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return try XCTUnwrap(Int(result.stdout.split(separator: ",").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""), path)
    }

    /// Every fixture is at most 320×240, inside typeLow's 640×360 box (360×640 for the portrait clip), which
    /// never enlarges: each keeps its stored size, every frame and its frame rate, all per ffprobe.
    func testEveryContainerTranscodes() throws {
        for name in Self.clips {
            let output = work + "/" + name + ".mp4"
            let source = try ffprobe(clip(name))
            let sourceVideo = try XCTUnwrap(streams(source, "video").first, name)
            let sourceTags = ((source["format"] as? [String: Any])?["tags"] as? [String: String]) ?? [:]
            let title = sourceTags.first { $0.key.lowercased() == "title" }?.value
            let result = try Movie.transcode(path: clip(name), to: output, preset: .typeLow)
            let facts = try written(output)
            XCTAssertEqual(facts.videoCodec, "h264", name)
            XCTAssertEqual(facts.audioCodec, streams(source, "audio").isEmpty ? nil : "aac", name)
            XCTAssertEqual([facts.width, facts.height], [sourceVideo["width"] as? Int, sourceVideo["height"] as? Int], name)
            XCTAssertLessThanOrEqual(facts.width, 640, name)
            XCTAssertEqual(facts.rotation, ffprobeRotation(sourceVideo), name)
            let frames = try decodedFrames(clip(name))
            XCTAssertEqual(try decodedFrames(output), frames, name)
            XCTAssertEqual(result.videoFrames, frames, name)
            // The video stream lasts the source's frames at the source's rate; 1 ms is the coarsest
            // time base among the sources (Matroska's).
            let video = try XCTUnwrap(streams(try ffprobe(output), "video").first, name)
            XCTAssertEqual(video["r_frame_rate"] as? String, sourceVideo["r_frame_rate"] as? String, name)
            XCTAssertEqual(try XCTUnwrap(number(video["duration"]), name), Double(frames) / fraction(sourceVideo["r_frame_rate"]),
                           accuracy: 0.001, name)
            XCTAssertEqual(result.duration, facts.duration, accuracy: 0.0005, "\(name): the duration the container states")
            XCTAssertEqual(result.skippedPackets, 0, name)
            XCTAssertEqual(facts.tags["title"], title, name)
        }
    }

    /// Noise costs far more than the cap at CRF 28: the VBV buffer must hold typeLow to 1 Mb/s.
    func testBitRateCapHoldsOnNoise() throws {
        let noise = work + "/noise.mp4", output = work + "/low.mp4"
        try Peer.must("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "nullsrc=s=640x360:r=25:d=3,geq=random(1)*255:128:128",
                                 "-c:v", "libx264", "-crf", "0", "-preset", "ultrafast", "-pix_fmt", "yuv420p", noise])
        try Movie.transcode(path: noise, to: output, preset: .typeLow)
        let facts = try written(output)
        XCTAssertEqual([facts.width, facts.height], [640, 360])
        XCTAssertLessThanOrEqual(facts.videoBitRate, 1_000_000 * (1 + 1 / 3.0))
        XCTAssertGreaterThan(facts.videoBitRate, 500_000)
    }

    // MARK: - geometry

    func testGeometryByHand() {
        func fit(_ w: Int, _ h: Int, _ bw: Int?, _ bh: Int?, _ mode: MovieScalingMode, upscale: Bool = true) -> [Int] {
            let g = MovieGeometry.fitting(sourceWidth: w, sourceHeight: h, boxWidth: bw, boxHeight: bh, mode: mode, upscale: upscale)
            return [g.width, g.height, g.cropX, g.cropY, g.cropWidth, g.cropHeight]
        }
        XCTAssertEqual(fit(1920, 1080, 1280, 720, .aspectFit), [1280, 720, 0, 0, 1920, 1080])
        XCTAssertEqual(fit(1440, 1080, 1280, 720, .aspectFit), [960, 720, 0, 0, 1440, 1080])
        XCTAssertEqual(fit(1440, 1080, 1280, 720, .fill), [1280, 720, 0, 0, 1440, 1080])
        // Cover 1280×720: scale 1280/1440, keep 1440×810 of 1080 rows from row 135 (even: 134).
        XCTAssertEqual(fit(1440, 1080, 1280, 720, .aspectFill), [1280, 720, 0, 134, 1440, 810])
        XCTAssertEqual(fit(1440, 1080, 1280, 720, .none), [1440, 1080, 0, 0, 1440, 1080])
        // 1001×1001 in 640×360: 360×360; odd sides become even.
        XCTAssertEqual(fit(1001, 1001, 640, 360, .aspectFit), [360, 360, 0, 0, 1001, 1001])
        XCTAssertEqual(fit(321, 241, nil, nil, .aspectFit), [320, 240, 0, 0, 320, 240])
        // Odd sides under a "max" box round down, never up past the source.
        XCTAssertEqual(fit(1001, 601, 1280, 720, .fill, upscale: false), [1000, 600, 0, 0, 1001, 601])
        // 16:9 in 640×480: 640×360.
        XCTAssertEqual(fit(1280, 720, 640, 480, .aspectFit), [640, 360, 0, 0, 1280, 720])
        // 854×480 fit in 640×360: 640 × 359.7 → 360.
        XCTAssertEqual(fit(854, 480, 640, 360, .aspectFit), [640, 360, 0, 0, 854, 480])
        // No enlarging: a small source stays, whatever the mode.
        for mode in MovieScalingMode.allCases {
            XCTAssertEqual(fit(320, 240, 1280, 720, mode, upscale: false), [320, 240, 0, 0, 320, 240], mode.rawValue)
        }
        // Partly larger: the box shrinks to the source's height first (1280×240), then covers it.
        XCTAssertEqual(fit(1600, 240, 1280, 720, .aspectFill, upscale: false), [1280, 240, 160, 0, 1280, 240])
        XCTAssertEqual(fit(1600, 240, 1280, 720, .aspectFit, upscale: false), [1280, 192, 0, 0, 1600, 240])
    }

    func testAudioSampleRates() {
        XCTAssertEqual(VideoEncoding.audioSampleRate(forSource: 44_100), 44_100)
        XCTAssertEqual(VideoEncoding.audioSampleRate(forSource: 48_000), 48_000)
        XCTAssertEqual(VideoEncoding.audioSampleRate(forSource: 22_050), 44_100)
        XCTAssertEqual(VideoEncoding.audioSampleRate(forSource: 96_000), 48_000)
        XCTAssertEqual(VideoEncoding.audioSampleRate(forSource: 8_000), 48_000)
    }
}
