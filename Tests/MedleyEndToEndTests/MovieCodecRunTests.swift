import Foundation
import XCTest

/// Movie transcodes of one's own (issue 31, docs/movies.md): each codec's output as ffprobe reads
/// it, remuxes and soundtracks byte-equal to `ffmpeg -c copy`'s packets, broken timing re-timed
/// with picture and sound in step, and container/codec mismatches refused at validation. The clips
/// are made here by ffmpeg from a real photo (the test data cache's coffee.jpg, panned) and a real
/// sound (freedesktop's alarm-clock-elapsed.oga); every expected value comes from ffprobe/ffmpeg.
final class MovieCodecRunTests: EndToEndCase {
    var photo: String { Tool.testData + "/photos/photos/coffee.jpg" }
    var sound: String {
        Tool.testData + "/realworld-audio-subset/audio/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"
    }

    /// `seconds` of the photo panning at 90 px/s, 640×360 at 30 fps, H.264 (keyframe every 2 s) +
    /// AAC stereo at 48 kHz, tagged, as a slideshow maker writes it.
    func makeClip(_ path: String, seconds: Double = 3, rate: Int = 30, extra: [String] = []) throws {
        for input in [photo, sound] where !FileManager.default.fileExists(atPath: input) {
            throw XCTSkip("test data missing (scripts/setup.sh --test): \(input)")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-i", photo, "-i", sound, "-filter_complex",
                                           "[0:v]scale=1200:-2,crop=640:360:x='t*90':y=20,format=yuv420p[v]",
                                           "-map", "[v]", "-map", "1:a", "-t", String(seconds), "-r", String(rate),
                                           "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", String(2 * rate),
                                           "-c:a", "aac", "-b:a", "96k", "-metadata", "title=Coffee",
                                           "-metadata", "artist=Photographer"] + extra + [path])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// ffprobe's entries of the first stream of `kind` ("v" or "a"), and the container's.
    func probe(_ path: String, _ kind: String, _ entries: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "\(kind):0", "-show_entries", entries,
                                              "-of", "default=noprint_wrappers=1", path])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// The presentation times of the keyframes (`ffprobe -show_frames` key_frame) of the video.
    func keyframeTimes(_ path: String) throws -> [Double] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                              "frame=key_frame,pts_time", "-of", "csv=p=0", path])
        return result.stdout.split(separator: "\n").compactMap { line -> Double? in
            let parts = line.split(separator: ",")
            guard parts.count >= 2, parts[0] == "1" else { return nil }
            return Double(parts[1])
        }
    }

    /// The md5 of every packet's data of the stream `kind`, in order (`ffprobe -show_data_hash`).
    func packetHashes(_ path: String, _ kind: String) throws -> [String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "\(kind):0", "-show_entries", "packet=data_hash",
                                              "-show_data_hash", "md5", "-of", "csv=p=0", path])
        // A line may carry other fields (side data) before the hash: the MD5:… field is the packet's.
        return result.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: ",").first { $0.hasPrefix("MD5:") }.map(String.init)
        }
    }

    func frame(_ path: String, at seconds: Double) throws -> [UInt8] { try MovieComparison.frame(path, at: seconds) }

    func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double { MovieComparison.psnr(a, b) }

    // MARK: - codecs

    /// H.264, HEVC, AV1 and VP9, each at most 240 px high, 25 fps, a keyframe every second: ffprobe
    /// reads the codec, its profile, 426×240 (640×360 scaled, width even), 25/1, and keyframes at
    /// 0, 1, 2 s exactly.
    func testEachCodecAsFfprobeReadsIt() throws {
        try makeClip(work + "/in/clip.mp4")
        let common = "maxHeight: 240, fps: 25, keyframeEvery: 1s"
        let jobs: [(name: String, settings: String, ext: String, codec: String, profile: String, audio: String)] = [
            ("h264", "videoCodec: h264, speed: veryfast, crf: 26", "mkv", "h264", "High", "aac"),
            ("hevc", "videoCodec: hevc, speed: ultrafast, crf: 30", "mp4", "hevc", "Main", "aac"),
            ("av1", "videoCodec: av1, speed: 12, audio: {AVFormatIDKey: kAudioFormatOpus, AVEncoderBitRateKey: 64000}", "webm", "av1", "Main", "opus"),
            ("vp9", "videoCodec: vp9, speed: ultrafast, audio: copy", "mkv", "vp9", "Profile 0", "aac"),
        ]
        let text = "version: 1\njobs:\n" + jobs.map { job in
            """
              - name: \(job.name)
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { \(job.settings), \(common) }
                export: { to: \(work!)/out/\(job.name), name: "{stem}.\(job.ext)" }

            """
        }.joined()
        let result = try Tool.medley(["run", try pipeline(text), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for job in jobs {
            let out = work + "/out/\(job.name)/clip.\(job.ext)"
            let video = try probe(out, "v", "stream=codec_name,profile,width,height,avg_frame_rate,r_frame_rate")
            XCTAssertEqual(video["codec_name"], job.codec, job.name)
            XCTAssertEqual(video["profile"], job.profile, job.name)
            XCTAssertEqual(video["width"], "426", job.name)
            XCTAssertEqual(video["height"], "240", job.name)
            XCTAssertEqual(video["r_frame_rate"], "25/1", job.name)
            XCTAssertEqual(try probe(out, "a", "stream=codec_name")["codec_name"], job.audio, job.name)
            // Matroska starts the pictures after the B-frame delay (as ffmpeg's own Matroska output
            // does): the keyframes are a second apart from the first picture.
            let keys = try keyframeTimes(out)
            XCTAssertEqual(keys.count, 3, "\(job.name): keyframes at \(keys)")
            for (index, time) in keys.enumerated() {
                XCTAssertEqual(time - (keys.first ?? 0), Double(index), accuracy: 0.002, "\(job.name): keyframes at \(keys)")
            }
        }
        // `audio: copy` keeps the source's AAC packets as they were.
        XCTAssertEqual(try packetHashes(work + "/out/vp9/clip.mkv", "a"), try packetHashes(work + "/in/clip.mp4", "a"))
    }

    // MARK: - stream copy

    /// `videoCodec: copy` into Matroska and soundtracks (`AVFormatIDKey: copy`, and AAC into .m4a,
    /// which copies too) hold the packets `ffmpeg -c copy` and `ffmpeg -vn -acodec copy` write, and
    /// the container tags; a movie without sound fails alone, writing nothing.
    func testRemuxAndSoundtracksAreFfmpegsPackets() throws {
        try makeClip(work + "/in/clip.mp4")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/movies/silent.m4v", toPath: work + "/in/silent.m4v")
        let text = """
            version: 1
            jobs:
              - name: remux
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: copy, audio: copy }
                export: { to: \(work!)/out/remux, name: "{stem}.mkv" }
              - name: soundtrack
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { AVFormatIDKey: copy }
                export: { to: \(work!)/out/copy, name: "{stem}.{ext}" }
              - name: aac
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC }
                export: { to: \(work!)/out/aac, name: "{stem}.m4a" }
            """
        let result = try Tool.medley(["run", try pipeline(text), "--quiet"])
        XCTAssertEqual(result.status, 1, "the silent movie fails its soundtrack jobs: " + result.stderr)
        XCTAssertTrue(result.stderr.contains("silent.m4v") && result.stderr.contains("no sound track"), result.stderr)
        let peerRemux = work + "/peer.mkv", peerSound = work + "/peer.m4a"
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/in/clip.mp4", "-c", "copy", peerRemux]).status, 0)
        XCTAssertEqual(try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/in/clip.mp4", "-vn", "-acodec", "copy", peerSound]).status, 0)
        let remux = work + "/out/remux/clip.mkv"
        XCTAssertEqual(try packetHashes(remux, "v"), try packetHashes(peerRemux, "v"))
        XCTAssertEqual(try packetHashes(remux, "a"), try packetHashes(peerRemux, "a"))
        XCTAssertFalse(try packetHashes(peerSound, "a").isEmpty)
        for out in [work + "/out/copy/clip.m4a", work + "/out/aac/clip.m4a"] {
            XCTAssertEqual(try packetHashes(out, "a"), try packetHashes(peerSound, "a"), out)
            XCTAssertTrue(try packetHashes(out, "v").isEmpty, "no picture in \(out)")
            let tags = try probe(out, "a", "format_tags=title,artist")
            XCTAssertEqual(tags["TAG:title"], "Coffee", out)
            XCTAssertEqual(tags["TAG:artist"], "Photographer", out)
        }
        XCTAssertEqual(try probe(remux, "v", "format_tags=title")["TAG:title"], "Coffee")
        // The silent movie: remuxed (it has a picture), no soundtrack written.
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/out/remux/silent.mkv"))
        XCTAssertEqual(Tool.files(under: work + "/out/copy"), ["clip.m4a"])
        XCTAssertEqual(Tool.files(under: work + "/out/aac"), ["clip.m4a"])
    }

    /// A soundtrack re-encoded (AAC → MP3) goes through the audio stage: ffprobe reads MP3 at the
    /// source's rate and about the movie's duration, with the container's title.
    func testSoundtrackReencodedAsMP3() throws {
        try makeClip(work + "/in/clip.mp4")
        let text = """
            version: 1
            jobs:
              - name: mp3
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { AVFormatIDKey: kAudioFormatMPEGLayer3, AVEncoderBitRateKey: 128000 }
                export: { to: \(work!)/out, name: "{stem}.mp3" }
            """
        let result = try Tool.medley(["run", try pipeline(text), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let out = work + "/out/clip.mp3"
        let stream = try probe(out, "a", "stream=codec_name,sample_rate:format=duration:format_tags=title")
        XCTAssertEqual(stream["codec_name"], "mp3")
        XCTAssertEqual(stream["sample_rate"], "48000")
        XCTAssertEqual(Double(stream["duration"] ?? "") ?? 0, 3, accuracy: 0.1)
        XCTAssertEqual(stream["TAG:title"], "Coffee")
    }

    // MARK: - broken timing

    /// A Matroska file whose pictures 30…74 all carry the timestamp of picture 30, the later ones
    /// continuing from it (made with ffmpeg's setts bitstream filter). The re-encode gives the
    /// repeated pictures one frame each, so picture and sound end within a frame of each other
    /// and each picture is where the unbroken clip has it (PSNR ≥ 35 dB at 2.0 s, inside the run,
    /// and at 2.8 s, after it), with the repair as an item warning.
    func testRepeatedTimestampsAreRetimedInStep() throws {
        let clean = work + "/clean.mkv", broken = work + "/in/broken.mkv"
        // No B-frames: packets in presentation order, so the filter's N is the picture's number.
        try makeClip(clean, seconds: 3, rate: 25, extra: ["-bf", "0"])
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let setts = "setts=ts='if(lt(N,30),PTS,if(lte(N,74),PTS-(N-30)*DURATION,PTS-44*DURATION))'"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-i", clean, "-c", "copy", "-bsf:v", setts, broken])
        XCTAssertEqual(made.status, 0, made.stderr)
        let text = """
            version: 1
            jobs:
              - name: fix
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, speed: veryfast, crf: 18 }
                export: { to: \(work!)/out, name: "{stem}.mp4" }
            """
        let result = try Tool.medley(["run", try pipeline(text)])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("44 picture(s) with repeated or backward timestamps re-timed"), result.stderr)
        let out = work + "/out/broken.mp4"
        let video = Double(try probe(out, "v", "stream=duration")["duration"] ?? "") ?? 0
        let audio = Double(try probe(out, "a", "stream=duration")["duration"] ?? "") ?? 0
        XCTAssertEqual(video, audio, accuracy: 1.0 / 25, "picture \(video) s, sound \(audio) s")
        for time in [2.0, 2.8] {
            XCTAssertGreaterThanOrEqual(psnr(try frame(out, at: time), try frame(clean, at: time)), 35, "at \(time) s")
        }
    }

    // MARK: - validation

    /// Settings a container cannot hold, or that contradict each other, are refused before anything
    /// runs, at their place, with what to do instead.
    func testMismatchesAreRefusedAtValidation() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let text = """
            version: 1
            jobs:
              - name: hevc-in-webm
                ingest: { from: [in], media: [movie] }
                transcode: { videoCodec: hevc }
                export: { to: out, name: "{stem}.webm" }
              - name: copy-with-crf
                ingest: { from: [in], media: [movie] }
                transcode: { videoCodec: copy, crf: 20 }
                export: { to: out2, name: "{stem}.mkv" }
              - name: bad-speed
                ingest: { from: [in], media: [movie] }
                transcode: { videoCodec: av1, speed: medum, keyframeEvery: 0s }
                export: { to: out3, name: "{stem}.mkv" }
            """
        let result = try Tool.medley(["run", try pipeline(text), "--dry-run"], environment: [:])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:6:30: error: .webm cannot hold hevc"), result.stderr)
        XCTAssertTrue(result.stderr.contains("name the output .mkv or .mov or .mp4, or use videoCodec: av1 or vp9"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:9:41: error: videoCodec: copy keeps the pictures as they are"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown speed 'medum' for av1"), result.stderr)
        XCTAssertTrue(result.stderr.contains("did you mean 'medium'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("keyframeEvery is seconds"), result.stderr)
    }
}
