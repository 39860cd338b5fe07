import Foundation
import XCTest

/// Movies kept whole (issue 50, docs/movies.md#tracks): a DVD-style rip made here by ffmpeg — two
/// audio languages with titles, an SRT and an ASS subtitle (the ASS one forced), a font attachment,
/// chapters from an ffmetadata file — re-encoded and remuxed by Medley. Every expected value is
/// ffprobe's reading of the source, or ffmpeg's own extraction of the same subtitle or attachment.
final class MovieTracksRunTests: EndToEndCase {
    let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The rip: 640×360 H.264 at 25 fps, `seconds` long; audio eng ("Main", default) at 48 kHz and
    /// fra ("Commentaire") at 44.1 kHz; subtitles eng (SRT) and fre (ASS, forced); DejaVuSans.ttf
    /// attached; chapters Opening (0–1.5 s) and The End (1.5 s–`chapterEnd`).
    func makeRip(_ path: String, seconds: Double = 4, chapterEnd: Int = 4000, extraChapter: String = "") throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let srt = work + "/en.srt", ass = work + "/fr.ass", meta = work + "/chapters.txt"
        try "1\n00:00:00,500 --> 00:00:01,500\nHello there\n\n2\n00:00:02,000 --> 00:00:03,200\nGeneral Kenobi\n"
            .write(toFile: srt, atomically: true, encoding: .utf8)
        try """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 384
            PlayResY: 288

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,DejaVu Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Bonjour
            Dialogue: 0,0:00:02.00,0:00:03.20,Default,,0,0,0,,{\\i1}Général{\\i0} Kenobi

            """.write(toFile: ass, atomically: true, encoding: .utf8)
        try """
            ;FFMETADATA1
            title=Rip
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=1500
            title=Opening
            [CHAPTER]
            TIMEBASE=1/1000
            START=1500
            END=\(chapterEnd)
            title=The End
            \(extraChapter)
            """.write(toFile: meta, atomically: true, encoding: .utf8)
        let made = try Tool.run("ffmpeg", [
            // Input durations, not -t on the output: ffmpeg drops chapters past an output's -t.
            "-v", "error", "-y", "-f", "lavfi", "-t", String(seconds), "-i", "testsrc2=size=640x360:rate=25",
            "-f", "lavfi", "-t", String(seconds), "-i", "sine=frequency=440:sample_rate=48000",
            "-f", "lavfi", "-t", String(seconds), "-i", "sine=frequency=660:sample_rate=44100",
            "-i", srt, "-i", ass, "-i", meta,
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3", "-map", "4", "-map_metadata", "5", "-map_chapters", "5",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-c:s", "copy",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:0", "title=Main",
            "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Commentaire",
            "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fre",
            "-disposition:a:0", "default", "-disposition:s:1", "forced",
            "-attach", font, "-metadata:s:t", "mimetype=application/x-truetype-font", path])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// ffprobe's streams as "type codec language title default forced" lines, and its chapters as
    /// "start end title" lines.
    func streams(_ path: String) throws -> [String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries",
                                              "stream=codec_type,codec_name:stream_tags=language,title,filename:stream_disposition=default,forced",
                                              "-of", "json", path])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (json?["streams"] as? [[String: Any]] ?? []).map { stream in
            let tags = stream["tags"] as? [String: Any] ?? [:]
            let disposition = stream["disposition"] as? [String: Any] ?? [:]
            return [stream["codec_type"] as? String ?? "", stream["codec_name"] as? String ?? "",
                    tags["language"] as? String ?? "-", tags["title"] as? String ?? tags["filename"] as? String ?? "-",
                    "default=\(disposition["default"] as? Int ?? -1)", "forced=\(disposition["forced"] as? Int ?? -1)"]
                .joined(separator: " ")
        }
    }

    func chapters(_ path: String) throws -> [String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title",
                                              "-of", "csv=p=0", path])
        return result.stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3, let start = Double(parts[0]), let end = Double(parts[1]) else { return String(line) }
            return String(format: "%.3f %.3f %@", start, end, parts[2])
        }
    }

    /// The text `ffmpeg -i path -map 0:s:N out.<ext>` writes.
    func subtitleText(_ path: String, _ n: Int, ext: String = "srt") throws -> String {
        let out = work + "/sub-\(UUID().uuidString).\(ext)"
        let result = try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-map", "0:s:\(n)", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    }

    /// A subtitle file's lines but its timings (SRT's `-->` lines; ASS's Dialogue times).
    func withoutTimes(_ text: String) -> [String] {
        // ASS files end their lines in CRLF, one Character to Swift: split on any line break.
        text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            if line.contains("-->") { return nil }
            if line.hasPrefix("Dialogue:") {
                var fields = line.split(separator: ",", omittingEmptySubsequences: false)
                if fields.count > 3 { fields.removeSubrange(1...2) }
                return fields.joined(separator: ",")
            }
            return String(line)
        }
    }

    /// The packets' presentation times of stream `spec`, seconds.
    func cueTimes(_ path: String, _ spec: String) throws -> [Double] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", spec, "-show_entries", "packet=pts_time",
                                              "-of", "csv=p=0", path])
        return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// ffprobe's start_time of stream `spec`.
    func startTime(_ path: String, _ spec: String) throws -> Double {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", spec, "-show_entries", "stream=start_time",
                                              "-of", "csv=p=0", path])
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    /// The packets' md5s of stream `spec` (`v:0`, `a:1`).
    func packetHashes(_ path: String, _ spec: String) throws -> [String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", spec, "-show_entries", "packet=data_hash",
                                              "-show_data_hash", "md5", "-of", "csv=p=0", path])
        return result.stdout.split(separator: "\n").compactMap { line in line.split(separator: ",").first { $0.hasPrefix("MD5:") }.map(String.init) }
    }

    func run(_ settings: String, ext: String, extra: String = "") throws -> (out: String, stderr: String) {
        let text = """
            version: 1
            jobs:
              - name: movies
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { \(settings) }
                export: { to: \(work!)/out, name: "{stem}.\(ext)" }
            \(extra)
            """
        let result = try Tool.medley(["run", try pipeline(text)])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        return (work + "/out/rip.\(ext)", result.stdout + result.stderr)
    }

    /// A re-encode into Matroska keeps both audio tracks (re-encoded), both subtitles, the font and
    /// the chapters, each stream's language, title and flags as ffprobe reads them in the source;
    /// the subtitles' text is what ffmpeg extracts from the source, and the font's bytes are the file's.
    func testAReencodeIntoMatroskaKeepsEveryTrack() throws {
        try makeRip(work + "/in/rip.mkv")
        let (out, log) = try run("videoCodec: h264, speed: ultrafast, maxHeight: 240", ext: "mkv")
        XCTAssertFalse(log.contains("warn"), log)
        let source = try streams(work + "/in/rip.mkv"), written = try streams(out)
        XCTAssertEqual(written.count, 6, "\(written)")
        XCTAssertEqual(written, source, "streams as ffprobe reads them")
        XCTAssertEqual(try chapters(out), ["0.000 1.500 Opening", "1.500 4.000 The End"])
        XCTAssertEqual(try chapters(out), try chapters(work + "/in/rip.mkv"))
        // The cues' text is ffmpeg's extraction of the source's; their times keep their distance
        // from the first picture (the Matroska muxer moves every stream on by the AAC encoder's
        // priming, as it does for ffmpeg's own re-encode).
        for n in 0..<2 {
            let ext = n == 0 ? "srt" : "ass"
            let text = try subtitleText(out, n, ext: ext), original = try subtitleText(work + "/in/rip.mkv", n, ext: ext)
            XCTAssertFalse(text.isEmpty)
            XCTAssertEqual(withoutTimes(text), withoutTimes(original), "subtitle \(n)")
            let cues = try cueTimes(out, "s:\(n)").map { $0 - (try startTime(out, "v:0")) }
            let sourceCues = try cueTimes(work + "/in/rip.mkv", "s:\(n)").map { $0 - (try startTime(work + "/in/rip.mkv", "v:0")) }
            XCTAssertEqual(cues.count, 2)
            for (a, b) in zip(cues, sourceCues) { XCTAssertEqual(a, b, accuracy: 0.0015, "subtitle \(n): \(cues) vs \(sourceCues)") }
        }
        // The attachment as ffmpeg dumps it is the font file, byte for byte.
        let dumped = work + "/dumped.ttf"
        _ = try Tool.run("ffmpeg", ["-v", "error", "-dump_attachment:t:0", dumped, "-i", out])
        XCTAssertEqual(FileManager.default.contents(atPath: dumped), FileManager.default.contents(atPath: font))
        // Each audio track is the source's sound: the second one is 660 Hz, the first 440 Hz
        // (zero crossings over one second of the decoded sound, counted here).
        for (n, hertz) in [(0, 440.0), (1, 660.0)] {
            let pcm = try Tool.run("ffmpeg", ["-v", "error", "-i", out, "-map", "0:a:\(n)", "-ss", "1", "-t", "1", "-ac", "1",
                                              "-ar", "48000", "-f", "f32le", "-"]).data
            let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            var crossings = 0
            for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
            XCTAssertEqual(Double(crossings) / 2, hertz, accuracy: 3, "audio track \(n)")
        }
    }

    /// HandBrake's language list: `audioTracks: [fr]` keeps the French track (tagged `fra`, asked
    /// as `fr`), `subtitles: [eng, deu]` the English one, and the missing German is a warning.
    /// `first` keeps the default track; `none` none.
    func testTracksChosenByLanguage() throws {
        try makeRip(work + "/in/rip.mkv")
        let (out, log) = try run("videoCodec: h264, speed: ultrafast, maxHeight: 240, audioTracks: [fr], subtitles: [eng, deu]", ext: "mkv")
        XCTAssertEqual(try streams(out), [
            "video h264 - - default=0 forced=0",
            "audio aac fra Commentaire default=0 forced=0",
            "subtitle subrip eng - default=0 forced=0",
            "attachment ttf - DejaVuSans.ttf default=0 forced=0",
        ])
        XCTAssertTrue(log.contains("no subtitle track in deu (the movie has eng, fre)"), log)

        try FileManager.default.removeItem(atPath: work + "/out")
        let (first, _) = try run("videoCodec: h264, speed: ultrafast, maxHeight: 240, audioTracks: first, subtitles: none, chapters: false", ext: "mkv")
        XCTAssertEqual(try streams(first).filter { !$0.hasPrefix("attachment") }, [
            "video h264 - - default=0 forced=0",
            "audio aac eng Main default=1 forced=0",
        ])
        XCTAssertEqual(try chapters(first), [])
    }

    /// `videoCodec: copy` with a re-encoded sound (the last item of the old "not handled" list):
    /// the picture's packets are ffmpeg's `-c:v copy` packets, both audio tracks are Opus, and the
    /// subtitles, font and chapters come along as with `ffmpeg -map 0 -c copy`.
    func testPictureCopiedWithTheSoundReencoded() throws {
        try makeRip(work + "/in/rip.mkv")
        let (out, log) = try run("videoCodec: copy, audio: { AVFormatIDKey: kAudioFormatOpus, AVEncoderBitRateKey: 96000 }", ext: "mkv")
        XCTAssertFalse(log.contains("warn"), log)
        let peer = work + "/peer.mkv"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/in/rip.mkv", "-map", "0", "-c", "copy", peer])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try packetHashes(out, "v:0"), try packetHashes(peer, "v:0"))
        // Each stream's tags and flags are the source's (ffmpeg's CLI marks the first subtitle
        // default when none is; Medley keeps the flags as they were).
        XCTAssertEqual(try streams(out), try streams(work + "/in/rip.mkv").map { $0.replacingOccurrences(of: "audio aac", with: "audio opus") })
        XCTAssertEqual(try chapters(out), try chapters(peer))
    }

    /// A chapter that starts past the movie's end is left out with a warning naming it; the
    /// others are kept.
    func testAChapterPastTheEndIsAWarning() throws {
        try makeRip(work + "/in/rip.mkv", extraChapter: "[CHAPTER]\nTIMEBASE=1/1000\nSTART=9000\nEND=12000\ntitle=Ghost\n")
        let (out, log) = try run("videoCodec: copy, audio: copy", ext: "mkv")
        XCTAssertTrue(log.contains("chapter 3 (\"Ghost\") starts at 9.000 s, at or past the movie's end"), log)
        XCTAssertEqual(try chapters(out), ["0.000 1.500 Opening", "1.500 4.000 The End"])
    }

    /// Into MP4 the SRT and ASS tracks become mov_text, as ffmpeg's `-c:s mov_text` makes them
    /// (the cues read back equal, languages and the forced flag kept); what MP4 cannot hold at all
    /// (the font; a track's title) is an item warning naming it, never a silent drop; both audio
    /// tracks and the chapters are there.
    func testWhatMP4CannotHoldIsConvertedOrNamed() throws {
        try makeRip(work + "/in/rip.mkv")
        let (out, log) = try run("videoCodec: h264, speed: ultrafast, maxHeight: 240", ext: "mp4")
        XCTAssertTrue(log.contains("attachment DejaVuSans.ttf: only .mkv holds attachments; not kept"), log)
        XCTAssertTrue(log.contains("audio stream 2 (aac, fra): .mp4 does not hold its title \"Commentaire\""), log)
        let written = try streams(out)
        XCTAssertEqual(written.filter { $0.hasPrefix("audio") }.map { $0.split(separator: " ")[2] }, ["eng", "fra"])
        // MP4 enables the first track of each kind when none is default (libavformat's mov muxer),
        // which ffprobe reads as default.
        XCTAssertEqual(written.filter { $0.hasPrefix("subtitle") }, ["subtitle mov_text eng - default=1 forced=0",
                                                                   "subtitle mov_text fre - default=0 forced=1"])
        XCTAssertEqual(try chapters(out), ["0.000 1.500 Opening", "1.500 4.000 The End"])
        let peer = work + "/peer.mp4"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/in/rip.mkv", "-map", "0:v", "-map", "0:a", "-map", "0:s",
                                           "-c:v", "copy", "-c:a", "copy", "-c:s", "mov_text", peer])
        XCTAssertEqual(made.status, 0, made.stderr)
        for n in 0..<2 {
            XCTAssertEqual(withoutTimes(try subtitleText(out, n)), withoutTimes(try subtitleText(peer, n)), "subtitle \(n)")
        }
    }

    /// Rate control beyond a constant quality: two passes spend an average bit rate (ffprobe's
    /// video bit rate within 10 % of it), a target size fills the file (within 3 % of the bytes
    /// asked, the font it carries counted), and 10 bits come out as HEVC Main 10 and VP9 profile 2
    /// (ffprobe's profile and pixel format).
    func testTwoPassesTargetSizeAndTenBits() throws {
        try makeRip(work + "/in/rip.mkv", seconds: 6)
        let text = """
            version: 1
            jobs:
              - name: twopass
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, speed: veryfast, bitRate: 400k, passes: 2, audioTracks: none }
                export: { to: \(work!)/out/twopass, name: "{stem}.mp4" }
              - name: size
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: hevc, speed: ultrafast, targetSize: 1.2MB }
                export: { to: \(work!)/out/size, name: "{stem}.mkv" }
              - name: hevc10
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: hevc, speed: ultrafast, bitDepth: 10, subtitles: none }
                export: { to: \(work!)/out/hevc10, name: "{stem}.mp4" }
              - name: vp910
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: vp9, speed: ultrafast, bitDepth: 10, bitRate: 300k, passes: 2, subtitles: none, audio: { AVFormatIDKey: kAudioFormatOpus } }
                export: { to: \(work!)/out/vp910, name: "{stem}.webm" }
            """
        let result = try Tool.medley(["run", try pipeline(text), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        func probe(_ path: String, _ entries: String) throws -> [String: String] {
            let out = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "default=noprint_wrappers=1", path])
            var fields: [String: String] = [:]
            for line in out.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, fields[parts[0]] == nil { fields[parts[0]] = parts[1] }
            }
            return fields
        }
        let twopass = try probe(work + "/out/twopass/rip.mp4", "stream=bit_rate")
        XCTAssertEqual(Double(twopass["bit_rate"] ?? "") ?? 0, 400_000, accuracy: 40_000)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: work + "/out/size/rip.mkv")[.size] as? Int)
        XCTAssertEqual(Double(size), 1_200_000, accuracy: 36_000)
        let hevc = try probe(work + "/out/hevc10/rip.mp4", "stream=profile,pix_fmt")
        XCTAssertEqual(hevc["profile"], "Main 10")
        XCTAssertEqual(hevc["pix_fmt"], "yuv420p10le")
        let vp9 = try probe(work + "/out/vp910/rip.webm", "stream=profile,pix_fmt")
        XCTAssertEqual(vp9["profile"], "Profile 2")
        XCTAssertEqual(vp9["pix_fmt"], "yuv420p10le")
        // No statistics file of the first passes is left anywhere under the export roots.
        let left = FileManager.default.enumerator(atPath: work + "/out")?.compactMap { $0 as? String }.filter { $0.contains(".pass") } ?? []
        XCTAssertEqual(left, [])
    }

    /// `extract` writes each kept text subtitle beside the output, byte for byte what
    /// `ffmpeg -i rip.mkv -map 0:s:N` writes as SRT and WebVTT, named by language and flags.
    func testSubtitlesExtractedBesideTheOutput() throws {
        try makeRip(work + "/in/rip.mkv")
        let (_, log) = try run("videoCodec: copy, audio: copy, subtitles: { extract: [srt, vtt] }", ext: "mkv")
        XCTAssertFalse(log.contains("warn"), log)
        let names = try FileManager.default.contentsOfDirectory(atPath: work + "/out").filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(names, ["rip.eng.srt", "rip.eng.vtt", "rip.fre.forced.srt", "rip.fre.forced.vtt", "rip.mkv"])
        for (n, language) in [(0, "eng"), (1, "fre.forced")] {
            for ext in ["srt", "vtt"] {
                let peer = work + "/peer-\(n).\(ext)"
                let made = try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/in/rip.mkv", "-map", "0:s:\(n)", peer])
                XCTAssertEqual(made.status, 0, made.stderr)
                let ours = FileManager.default.contents(atPath: work + "/out/rip.\(language).\(ext)")
                XCTAssertNotNil(ours)
                XCTAssertEqual(ours, FileManager.default.contents(atPath: peer), "rip.\(language).\(ext)")
            }
        }
    }

    /// SRT and WebVTT files beside the movie are muxed in as tracks, their language (as ISO 639-2)
    /// and forced flag from the name; their cues read back as ffmpeg reads the files themselves.
    /// A file beside the movie that is a link is not followed.
    func testSubtitleFilesBesideTheMovieBecomeTracks() throws {
        try makeRip(work + "/in/rip.mkv")
        try "1\n00:00:01,000 --> 00:00:02,000\nGuten Tag\n\n".write(toFile: work + "/in/rip.de.srt", atomically: true, encoding: .utf8)
        try "WEBVTT\n\n00:00.800 --> 00:02.000\nGoedendag\n".write(toFile: work + "/in/rip.nl.forced.vtt", atomically: true, encoding: .utf8)
        try "1\n00:00:01,000 --> 00:00:02,000\nsecret\n\n".write(toFile: work + "/outside.srt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: work + "/in/rip.es.srt", withDestinationPath: work + "/outside.srt")
        let (out, _) = try run("videoCodec: copy, audio: copy, subtitles: { beside: true }", ext: "mkv")
        let subtitles = try streams(out).filter { $0.hasPrefix("subtitle") }
        XCTAssertEqual(subtitles, ["subtitle subrip eng - default=0 forced=0", "subtitle ass fre - default=0 forced=1",
                                   "subtitle subrip deu - default=0 forced=0", "subtitle webvtt nld - default=0 forced=1"])
        XCTAssertEqual(withoutTimes(try subtitleText(out, 2)), ["1", "Guten Tag"])
        XCTAssertEqual(try cueTimes(out, "s:2"), [1.0])
        XCTAssertTrue(withoutTimes(try subtitleText(out, 3)).contains("Goedendag"))
    }

    /// `burn: eng` draws the English SRT onto the picture through libass: the frame at 1 s is
    /// within reach of ffmpeg's `subtitles=` filter on the same frame (≥ 30 dB PSNR, far closer
    /// than the frame without the text), and the burned track is no longer a track.
    func testASubtitleBurnedIn() throws {
        try makeRip(work + "/in/rip.mkv")
        let (out, _) = try run("videoCodec: h264, speed: veryfast, crf: 16, subtitles: { burn: eng }, audioTracks: first", ext: "mkv")
        XCTAssertEqual(try streams(out).filter { $0.hasPrefix("subtitle") }, ["subtitle ass fre - default=0 forced=1"])
        // Picture 25 of each (1 s in; picked by number, as Matroska may start the two files'
        // timestamps apart by the AAC encoder's priming).
        func frame(_ path: String, filter: String? = nil) throws -> [UInt8] {
            let chain = ["select=eq(n\\,25)", filter].compactMap { $0 }.joined(separator: ",")
            return [UInt8](try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-vf", chain, "-frames:v", "1",
                                                   "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).data)
        }
        let psnr = MovieComparison.psnr
        let source = work + "/in/rip.mkv"
        let burned = try frame(source, filter: "subtitles=\(source):si=0"), plain = try frame(source)
        let ours = try frame(out)
        XCTAssertGreaterThanOrEqual(psnr(ours, burned), 30)
        XCTAssertGreaterThan(psnr(ours, burned), psnr(ours, plain) + 3, "the text is there")
    }

    /// Damaged subtitle packets (an ASS event whose text is not UTF-8) are skipped with a warning;
    /// the other cues and every other track are written.
    func testDamagedSubtitlePacketsAreSkipped() throws {
        try makeRip(work + "/in/rip.mkv")
        // Replace "Bonjour" in the file's bytes with bytes that are not UTF-8 (the packet itself).
        var bytes = try Data(contentsOf: URL(fileURLWithPath: work + "/in/rip.mkv"))
        let word = Data("Bonjour".utf8)
        let at = try XCTUnwrap(bytes.range(of: word))
        bytes.replaceSubrange(at, with: Data([0xFF, 0xFE, 0xC3, 0x28, 0xA0, 0xA1, 0xE2]))
        try bytes.write(to: URL(fileURLWithPath: work + "/in/rip.mkv"))
        let (out, log) = try run("videoCodec: copy, audio: copy", ext: "mp4")
        XCTAssertTrue(log.contains("1 subtitle cue(s) could not be read or converted and were skipped"), log)
        XCTAssertEqual(try streams(out).filter { $0.hasPrefix("audio") }.count, 2)
        XCTAssertEqual(withoutTimes(try subtitleText(out, 1)).filter { $0.contains("Kenobi") }.count, 1)
    }

    /// The tracks as properties: `medley probe --json` counts what ffprobe lists, and `where` picks
    /// the movies with French subtitles.
    func testTracksAsProperties() throws {
        try makeRip(work + "/in/rip.mkv")
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-t", "1", "-i", "testsrc2=size=320x240:rate=25",
                                           "-c:v", "libx264", "-preset", "ultrafast", work + "/in/plain.mp4"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let probe = try Tool.medley(["probe", "--json", work + "/in/rip.mkv"])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let ffprobe = try streams(work + "/in/rip.mkv")
        for (key, expected) in [("\"audioTracks\":\(ffprobe.filter { $0.hasPrefix("audio") }.count)", true),
                                ("\"subtitleTracks\":\(ffprobe.filter { $0.hasPrefix("subtitle") }.count)", true),
                                ("\"chapters\":\(try chapters(work + "/in/rip.mkv").count)", true),
                                ("\"audioLanguages\":\"eng, fra\"", true), ("\"subtitleLanguages\":\"eng, fre\"", true)] {
            XCTAssertEqual(probe.stdout.replacingOccurrences(of: " ", with: "").contains(key.replacingOccurrences(of: " ", with: "")), expected,
                           "\(key) in \(probe.stdout)")
        }
        let text = """
            version: 1
            jobs:
              - name: french
                ingest: { from: [\(work!)/in], media: [movie] }
                where: { subtitleLanguages: { contains: fre } }
                transcode: { videoCodec: copy, audio: copy }
                export: { to: \(work!)/french, name: "{stem}.mkv" }
            """
        let result = try Tool.medley(["run", try pipeline(text, name: "french.yaml"), "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: work + "/french").filter { !$0.hasPrefix(".") }
        XCTAssertEqual(written, ["rip.mkv"])
    }

    /// Settings that name no language are refused at validation with FILE:LINE:COL.
    func testBadTrackSettingsAreRefused() throws {
        let text = """
            version: 1
            jobs:
              - name: movies
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, audioTracks: [english!], subtitles: { burn: [x], kept: all } }
                export: { to: \(work!)/out, name: "{stem}.mkv" }
            """
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let result = try Tool.medley(["validate", try pipeline(text)])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:50: error: audioTracks names languages by their ISO 639 code"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:80: error: subtitles.burn takes first, forced or one language"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:85: error: unknown key 'kept' in subtitles; did you mean 'keep'"), result.stderr)
        // Rate controls that contradict each other or the codec.
        let rates = """
            version: 1
            jobs:
              - name: movies
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: av1, crf: 30, bitRate: 2M, passes: 2, bitDepth: 12 }
                export: { to: \(work!)/out, name: "{stem}.mkv" }
              - name: more
                ingest: { from: [\(work!)/in], media: [movie] }
                transcode: { videoCodec: h264, passes: 2, bitDepth: 10, targetSize: 700 }
                export: { to: \(work!)/out, name: "{stem}.mkv" }
            """
        let refused = try Tool.medley(["validate", try pipeline(rates, name: "rates.yaml")])
        XCTAssertNotEqual(refused.status, 0)
        for message in ["crf is a constant quality; bitRate and targetSize spend a rate instead",
                        "FFmpeg 5.1's SVT-AV1 encoder has no two-pass mode", "bitDepth must be a whole number in 8…10, not '12'",
                        "two passes spend a bit rate", "10-bit H.264 (High 10) plays almost nowhere",
                        "targetSize is the whole file's size with its unit"] {
            XCTAssertTrue(refused.stderr.contains(message), "\(message): \(refused.stderr)")
        }
    }
}
