import Foundation
import XCTest

/// `tag: {replayGain: track | album}` through `medley run`. Expected values come from peer tools
/// on the files Medley wrote: the gain is −18 LUFS (ReplayGain 2.0's reference) minus the
/// integrated loudness ffmpeg's own `ebur128` filter measures, the peak is the sample peak
/// ffmpeg's `astats` filter reports, Opus gains are round(256 · (−23 − that loudness)) (RFC
/// 7845, Q7.8), and the tags are read back with mutagen and opusinfo — never Medley's numbers.
///
/// Tolerances: 0.1 dB for gains (the issue's: two BS.1770 implementations, ffmpeg's filter and
/// libebur128, agree to a few hundredths; the tag is rounded to 0.01), 26 Q7.8 steps for Opus
/// (the same 0.1 dB), and 0.000002 for a peak measured on the very samples Medley measured (both
/// decode with FFmpeg; the tag has 6 decimals).
final class ReplayGainRunTests: EndToEndCase {
    // MARK: peer tools

    /// Integrated loudness by ffmpeg's `ebur128` filter (its per-frame metadata, to 0.001 LU).
    func ffmpegLoudness(_ path: String) throws -> Double {
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner", "-i", path, "-map", "0:a",
                                             "-af", "ebur128=metadata=1,ametadata=print:key=lavfi.r128.I:file=-", "-f", "null", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").last { $0.hasPrefix("lavfi.r128.I=") }, path)
        return try XCTUnwrap(Double(line.dropFirst("lavfi.r128.I=".count)), String(line))
    }

    /// The sample peak (linear) by ffmpeg's `astats` filter (its overall peak level, in dB to
    /// 0.000001), of the samples as floats (integer samples ÷ 2^(bits−1), as FFmpeg converts them;
    /// on integer samples astats itself divides by 2^(bits−1) − 1).
    func ffmpegPeak(_ path: String) throws -> Double {
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner", "-i", path, "-map", "0:a",
                                             "-af", "aformat=sample_fmts=flt,astats=measure_perchannel=none:measure_overall=Peak_level", "-f", "null", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stderr.split(separator: "\n").last { $0.contains("Peak level dB: ") }, result.stderr)
        let decibels = try XCTUnwrap(Double(line.components(separatedBy: "Peak level dB: ").last ?? ""), String(line))
        return pow(10, decibels / 20)
    }

    /// The MD5 of the decoded audio (ffmpeg): equal for two files whose audio is the same stream.
    func decodedMD5(_ path: String) throws -> String {
        let result = try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "md5", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every tag mutagen reads, by name in upper case: ID3 TXXX frames by their description, MP4
    /// freeform atoms by their name, Vorbis comments by their field name.
    func mutagenTags(_ path: String) throws -> [String: [String]] {
        let script = """
            import json, sys, mutagen
            f = mutagen.File(sys.argv[1])
            out = {}
            for key in (f.tags.keys() if f is not None and f.tags is not None else []):
                value = f.tags[key]
                if key.startswith('TXXX:'):
                    out[key[5:].upper()] = [str(t) for t in value.text]
                elif key.startswith('----:com.apple.iTunes:'):
                    out[key[len('----:com.apple.iTunes:'):].upper()] = [bytes(v).decode('utf-8') for v in value]
                elif hasattr(value, 'text'):
                    out[key.upper()] = [str(t) for t in value.text]
                elif isinstance(value, list):
                    out[key.upper()] = [str(v) for v in value]
                else:
                    out[key.upper()] = [str(value)]
            print(json.dumps(out))
            """
        let result = try Tool.run("/usr/bin/python3", ["-c", script, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: [String]], result.stdout)
    }

    /// "-6.54 dB" → −6.54.
    func decibels(_ text: String?) -> Double? {
        guard let text, text.hasSuffix(" dB") else { return nil }
        return Double(text.dropLast(3))
    }

    func manifest(_ job: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: work + "/out/.medley/manifest-\(job).jsonl", encoding: .utf8)
        return try text.split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func warnings(_ job: String) throws -> [String] {
        try manifest(job).flatMap { $0["warnings"] as? [String] ?? [] }
    }

    func run(_ stages: String, job: String = "rg", input: String = "in", name: String = "{stem}.{ext}") throws -> Tool.Result {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: \(job)
                ingest: { from: [\(input)] }
            \(stages)
                export: { to: out, name: "\(name)" }
            """)
        return try Tool.medley(["run", path, "--quiet"])
    }

    /// Pink noise plus a tone (sox), 4 s stereo, into `in/NAME` through ffmpeg's encoder for the extension.
    @discardableResult
    func source(_ name: String, volume: Double = 0.3, title: String = "Pink", extra: [String] = []) throws -> String {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let wav = work + "/src-\(UUID().uuidString).wav"
        let made = try Tool.run("sox", ["-R", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "4", "pinknoise", "sine", "440",
                                        "remix", "1,2", "1,2", "vol", String(volume)])
        XCTAssertEqual(made.status, 0, made.stderr)
        let codecs = ["mp3": "libmp3lame", "m4a": "aac", "flac": "flac", "ogg": "libvorbis", "opus": "libopus", "wav": "pcm_s16le"]
        let ext = (name as NSString).pathExtension
        let path = work + "/in/" + name
        let encoded = try Tool.run("ffmpeg", ["-v", "error", "-y", "-i", wav, "-c:a", codecs[ext] ?? "copy", "-metadata", "title=\(title)"]
                                   + extra + [path])
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        try? FileManager.default.removeItem(atPath: wav)
        return path
    }

    /// Checks one output's ReplayGain (or Opus R128) track values against the peers.
    /// `peakTolerance`: 0.000002 for values measured on the samples of the file (6 decimals);
    /// half a 16-bit step for a 16-bit output, whose values are measured before rounding.
    func assertTrackValues(_ output: String, opus: Bool, peakTolerance: Double = 0.000002,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let tags = try mutagenTags(output)
        let loudness = try ffmpegLoudness(output)
        if opus {
            let r128 = try XCTUnwrap(Int(tags["R128_TRACK_GAIN"]?.first ?? ""), "\(output): \(tags)", file: file, line: line)
            XCTAssertEqual(Double(r128), (256 * (-23 - loudness)).rounded(), accuracy: 26, output, file: file, line: line)
            XCTAssertFalse(tags.keys.contains { $0.hasPrefix("REPLAYGAIN_") }, "Opus takes no REPLAYGAIN_* (RFC 7845): \(tags)",
                           file: file, line: line)
            let info = try Tool.run("opusinfo", [output])
            XCTAssertTrue(info.stdout.contains("R128_TRACK_GAIN=\(r128)\n"), info.stdout, file: file, line: line)
        } else {
            let gain = try XCTUnwrap(decibels(tags["REPLAYGAIN_TRACK_GAIN"]?.first), "\(output): \(tags)", file: file, line: line)
            XCTAssertEqual(gain, -18 - loudness, accuracy: 0.1, output, file: file, line: line)
            let peak = try XCTUnwrap(Double(tags["REPLAYGAIN_TRACK_PEAK"]?.first ?? ""), "\(output): \(tags)", file: file, line: line)
            XCTAssertEqual(peak, try ffmpegPeak(output), accuracy: peakTolerance, output, file: file, line: line)
            XCTAssertEqual(tags["REPLAYGAIN_REFERENCE_LOUDNESS"], ["-18.00 LUFS"], output, file: file, line: line)
            XCTAssertNil(tags["R128_TRACK_GAIN"], output, file: file, line: line)
        }
    }

    // MARK: tag-only jobs: the stream copied, the tags added

    func testTagOnlyJobWritesTrackValuesInEveryContainerAndKeepsTheAudio() throws {
        let names = ["noise.mp3", "noise.m4a", "noise.flac", "noise.ogg", "noise.opus"]
        for name in names { try source(name) }
        let result = try run("    tag: { replayGain: track }")
        XCTAssertEqual(result.status, 0, result.stderr)
        for name in names {
            let output = work + "/out/" + name
            try assertTrackValues(output, opus: name.hasSuffix(".opus"))
            XCTAssertEqual(try decodedMD5(output), try decodedMD5(work + "/in/" + name), "\(name): the audio is the input's, not re-encoded")
            let tags = try mutagenTags(output)
            XCTAssertEqual(tags["TITLE"] ?? tags["TIT2"] ?? tags["©NAM"], ["Pink"], name)
        }
        XCTAssertEqual(try warnings("rg"), [])
    }

    /// An OpusHead output gain of +3 dB (768 in Q7.8, patched into the header here) plays the
    /// stream 3 dB louder, so R128_TRACK_GAIN, which players add on top of it, is 768 lower.
    func testOpusR128GainIsRelativeToTheHeadersOutputGain() throws {
        let plain = try source("plain.opus")
        let patched = work + "/in/gained.opus"
        let patch = """
            import io, struct, sys
            from mutagen.ogg import OggPage
            data = open(sys.argv[1], 'rb').read()
            stream = io.BytesIO(data)
            pages = []
            while stream.tell() < len(data):
                pages.append(OggPage(stream))
            head = pages[0].packets[0]
            assert head.startswith(b'OpusHead')
            pages[0].packets[0] = head[:16] + struct.pack('<h', 768) + head[18:]
            open(sys.argv[2], 'wb').write(b''.join(page.write() for page in pages))
            """
        let patching = try Tool.run("/usr/bin/python3", ["-c", patch, plain, patched])
        XCTAssertEqual(patching.status, 0, patching.stderr)
        XCTAssertTrue(try Tool.run("opusinfo", [patched]).stdout.contains("Playback gain: 3 dB"))
        let result = try run("    tag: { replayGain: track }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let plainGain = try XCTUnwrap(Int(try mutagenTags(work + "/out/plain.opus")["R128_TRACK_GAIN"]?.first ?? ""))
        let gainedGain = try XCTUnwrap(Int(try mutagenTags(work + "/out/gained.opus")["R128_TRACK_GAIN"]?.first ?? ""))
        // Each value is rounded to a step; the decoders apply the gain in floating point.
        XCTAssertEqual(gainedGain, plainGain - 768, accuracy: 3)
        try assertTrackValues(work + "/out/gained.opus", opus: true)
        XCTAssertTrue(try Tool.run("opusinfo", [work + "/out/gained.opus"]).stdout.contains("Playback gain: 3 dB"), "the header is kept")
    }

    func testRealWorldDebianFilesGetTheirValuesAndKeepTheirAudio() throws {
        // The subset RealWorldAudioCorpusTests reads (fixtures/realworld/make-audio.sh, Debian
        // packages, fetched into the test data cache by scripts/test-data.sh).
        let made = RealWorldAudioCorpusTests.corpus
        XCTAssertEqual(made.status, 0, made.stderr)
        let corpus = (made.path as NSString).deletingLastPathComponent
        let picks = ["sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga",
                     "sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/service-login.oga",
                     "sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/phone-outgoing-busy.oga",
                     "alsa-utils/usr/share/sounds/alsa/Noise.wav", "alsa-utils/usr/share/sounds/alsa/Front_Center.wav"]
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        for pick in picks {
            try FileManager.default.copyItem(atPath: corpus + "/audio/" + pick, toPath: work + "/in/" + (pick as NSString).lastPathComponent)
        }
        let result = try run("    tag: { replayGain: track }")
        XCTAssertEqual(result.status, 0, result.stderr)
        for pick in picks {
            let name = (pick as NSString).lastPathComponent
            try assertTrackValues(work + "/out/" + name, opus: false)
            XCTAssertEqual(try decodedMD5(work + "/out/" + name), try decodedMD5(work + "/in/" + name), name)
        }
    }

    /// Without `replayGain`, a tag-only job only retags: the stream as it was, the input's level
    /// tags (ffmpeg wrote them, the level is unchanged) carried, none added.
    func testATagOnlyJobWithoutReplayGainOnlyRetags() throws {
        try source("song.mp3", extra: ["-metadata", "REPLAYGAIN_TRACK_GAIN=-3.21 dB"])
        let result = try run("    tag: { set: { title: \"New {title}\" } }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let tags = try mutagenTags(work + "/out/song.mp3")
        XCTAssertEqual(tags["TIT2"], ["New Pink"])
        XCTAssertEqual(tags["REPLAYGAIN_TRACK_GAIN"], ["-3.21 dB"])
        XCTAssertNil(tags["REPLAYGAIN_TRACK_PEAK"])
        XCTAssertEqual(try decodedMD5(work + "/out/song.mp3"), try decodedMD5(work + "/in/song.mp3"))
        XCTAssertEqual(try warnings("rg"), [])
    }

    func testATagOnlyJobCannotRenameTheContainer() throws {
        try source("noise.flac")
        let result = try run("    tag: { replayGain: track }", name: "{stem}.mp3")
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("cannot become .mp3"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/noise.mp3"))
    }

    func testSilenceHasNoGainAndSaysSo() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let made = try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", work + "/in/quiet.flac", "trim", "0", "2"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let result = try run("    tag: { replayGain: track }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertNil(try mutagenTags(work + "/out/quiet.flac")["REPLAYGAIN_TRACK_GAIN"])
        let warned = try warnings("rg")
        XCTAssertTrue(warned.contains { $0.contains("silent") }, warned.description)
    }

    /// Album mode: one album gain for both tracks, from their loudness measured as one stream —
    /// ffmpeg's loudness of the two concatenated.
    func testAlbumModeWritesOneAlbumGain() throws {
        try source("a.flac", volume: 0.1, extra: ["-metadata", "album=Record", "-metadata", "album_artist=Band"])
        try source("b.flac", volume: 0.4, extra: ["-metadata", "album=Record", "-metadata", "album_artist=Band"])
        let result = try run("    tag: { replayGain: album }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let a = try mutagenTags(work + "/out/a.flac"), b = try mutagenTags(work + "/out/b.flac")
        try assertTrackValues(work + "/out/a.flac", opus: false)
        try assertTrackValues(work + "/out/b.flac", opus: false)
        let albumGain = try XCTUnwrap(decibels(a["REPLAYGAIN_ALBUM_GAIN"]?.first), "\(a)")
        XCTAssertEqual(b["REPLAYGAIN_ALBUM_GAIN"], a["REPLAYGAIN_ALBUM_GAIN"])
        let joined = work + "/joined.wav"
        let concat = try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/out/a.flac", "-i", work + "/out/b.flac",
                                             "-filter_complex", "[0:a][1:a]concat=n=2:v=0:a=1", joined])
        XCTAssertEqual(concat.status, 0, concat.stderr)
        XCTAssertEqual(albumGain, -18 - (try ffmpegLoudness(joined)), accuracy: 0.1)
        let peak = max(try ffmpegPeak(work + "/out/a.flac"), try ffmpegPeak(work + "/out/b.flac"))
        XCTAssertEqual(Double(a["REPLAYGAIN_ALBUM_PEAK"]?.first ?? "") ?? -1, peak, accuracy: 0.000002)
        // The quieter track's album gain is not its track gain: the album keeps its levels.
        XCTAssertGreaterThan(abs(albumGain - (decibels(a["REPLAYGAIN_TRACK_GAIN"]?.first) ?? albumGain)), 3)
    }

    // MARK: with a transcode: the values of the output as written

    func testTranscodedOutputsGetTheValuesOfWhatWasWritten() throws {
        // The input's own (wrong) values must not survive.
        try source("loud.flac", volume: 0.5, extra: ["-metadata", "REPLAYGAIN_TRACK_GAIN=+9.00 dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.1"])
        var result = try run("""
                transcode: { AVFormatIDKey: kAudioFormatFLAC, gain: -6dB }
                tag: { replayGain: track }
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTrackValues(work + "/out/loud.flac", opus: false, peakTolerance: 0.5 / 32768 + 0.000001)
        XCTAssertEqual(try warnings("rg"), [])

        // Lossy outputs: the values are measured on the file as encoded (LAME at 192 kb/s makes
        // this noise 0.27 LU quieter than the samples it was given, by sox's RMS too).
        try? FileManager.default.removeItem(atPath: work + "/out")
        result = try run("""
                transcode: { AVFormatIDKey: kAudioFormatMPEGLayer3 }
                tag: { replayGain: track }
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTrackValues(work + "/out/loud.mp3", opus: false)

        try? FileManager.default.removeItem(atPath: work + "/out")
        result = try run("""
                transcode: { AVFormatIDKey: kAudioFormatOpus }
                tag: { replayGain: track }
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertTrackValues(work + "/out/loud.ogg", opus: true)
    }

    func testStaleLevelTagsAreDroppedWithAWarning() throws {
        try source("tagged.flac")
        // metaflac (not Medley) puts the old values in.
        let tagged = try Tool.run("metaflac", ["--set-tag=REPLAYGAIN_TRACK_GAIN=-1.00 dB", "--set-tag=REPLAYGAIN_TRACK_PEAK=0.500000",
                                               work + "/in/tagged.flac"])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)

        // The level unchanged: the values still hold and are carried.
        var result = try run("    transcode: { AVFormatIDKey: kAudioFormatFLAC }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try mutagenTags(work + "/out/tagged.flac")["REPLAYGAIN_TRACK_GAIN"], ["-1.00 dB"])
        XCTAssertEqual(try warnings("rg"), [])

        // A gain: they would be 6 dB wrong, so they go, and the item says so.
        try? FileManager.default.removeItem(atPath: work + "/out")
        result = try run("    transcode: { AVFormatIDKey: kAudioFormatFLAC, gain: -6dB }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(try mutagenTags(work + "/out/tagged.flac").keys.contains { $0.hasPrefix("REPLAYGAIN_") })
        let warned = try warnings("rg")
        XCTAssertEqual(warned.count, 1, warned.description)
        XCTAssertTrue(warned.first?.contains("REPLAYGAIN_TRACK_GAIN, REPLAYGAIN_TRACK_PEAK not carried") == true, warned.description)
        XCTAssertTrue(warned.first?.contains("gain") == true, warned.description)

        // A downmix to mono changes the loudness too.
        try? FileManager.default.removeItem(atPath: work + "/out")
        result = try run("    transcode: { AVFormatIDKey: kAudioFormatFLAC, AVNumberOfChannelsKey: 1 }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(try mutagenTags(work + "/out/tagged.flac").keys.contains { $0.hasPrefix("REPLAYGAIN_") })
        let mixed = try warnings("rg")
        XCTAssertTrue(mixed.contains { $0.contains("not carried") && $0.contains("mixed from 2 to 1 channel") }, mixed.description)
    }
}
