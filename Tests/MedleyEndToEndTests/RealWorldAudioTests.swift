import Foundation
import XCTest

/// Audio as it arrives from the field (tracker issue 14): deep sources, samples beyond full
/// scale, damaged headers and streams, files whose container is not what their brand says.
/// Every file is made here by sox, ffmpeg or by hand, and every expected value comes from
/// ffprobe, soxi, ffmpeg's own decode or a count done in the test.
final class RealWorldAudioTests: EndToEndCase {
    /// Runs one job over `input` and returns the result with the job's manifest records.
    func run(_ input: String, _ settings: String, name: String = "{stem}.{ext}", media: String? = nil) throws
        -> (result: Tool.Result, records: [[String: Any]]) {
        try? FileManager.default.removeItem(atPath: work + "/out")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: audio
                ingest: { from: [\(input)]\(media.map { ", media: [\($0)]" } ?? "") }
                transcode: { \(settings) }
                export: { to: out, name: "\(name)" }
            """)
        let result = try Tool.medley(["run", path])
        let manifest = (try? String(contentsOfFile: work + "/out/.medley/manifest-audio.jsonl", encoding: .utf8)) ?? ""
        let records = try manifest.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (result, records)
    }

    /// One field of ffprobe's first audio stream.
    func ffprobe(_ path: String, _ entry: String) throws -> String {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", entry,
                                              "-of", "default=noprint_wrappers=1:nokey=1", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The samples ffmpeg decodes, as 32-bit signed integers (exact for every depth up to 32).
    func decodedS32(_ path: String) throws -> Data {
        let result = try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-f", "s32le", "-acodec", "pcm_s32le", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.data
    }

    /// "1,234": the grouping SoX prints, done here by NumberFormatter.
    func grouped(_ count: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        formatter.usesGroupingSeparator = true
        return formatter.string(from: NSNumber(value: count)) ?? ""
    }

    /// A mono 32-bit float WAV (format tag 3) holding exactly `samples`.
    func writeFloatWAV(_ samples: [Float], rate: Int, to path: String) throws {
        var data = Data()
        func u32(_ v: Int) { var x = UInt32(v).littleEndian; data.append(Data(bytes: &x, count: 4)) }
        func u16(_ v: Int) { var x = UInt16(v).littleEndian; data.append(Data(bytes: &x, count: 2)) }
        data.append(contentsOf: Array("RIFF".utf8)); u32(4 + 24 + 8 + samples.count * 4)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16)
        u16(3); u16(1); u32(rate); u32(rate * 4); u16(4); u16(32)
        data.append(contentsOf: Array("data".utf8)); u32(samples.count * 4)
        for sample in samples { u32(Int(sample.bitPattern)) }
        try data.write(to: URL(fileURLWithPath: path))
    }

    // MARK: 1. quality lost silently

    func testLosslessOutputsKeepA24BitSourceSampleForSample() throws {
        let source = work + "/deep.flac"
        // Noise uses all 24 bits; sox writes it as 24-bit FLAC.
        let made = try Tool.run("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "24", source, "synth", "0.5", "whitenoise", "vol", "0.7"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-b", source]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "24")
        let expected = try decodedS32(source)
        XCTAssertEqual(expected.count, 24000 * 2 * 4)
        let cases: [(settings: String, ext: String)] = [
            ("AVFormatIDKey: kAudioFormatFLAC", "flac"),
            ("AVFormatIDKey: kAudioFormatAppleLossless", "m4a"),
            ("AVFormatIDKey: kAudioFormatAppleLossless", "caf"),
            ("AVFormatIDKey: kAudioFormatLinearPCM", "wav"),
            ("AVFormatIDKey: kAudioFormatLinearPCM", "aif"),
        ]
        for (settings, ext) in cases {
            let (result, records) = try run(source, settings, name: "{stem}.\(ext)")
            XCTAssertEqual(result.status, 0, "\(ext): \(result.stderr)")
            let output = work + "/out/deep." + ext
            let bits = ["wav", "aif"].contains(ext) ? try ffprobe(output, "stream=bits_per_sample")
                                                   : try ffprobe(output, "stream=bits_per_raw_sample")
            XCTAssertEqual(bits, "24", ext)
            if ext != "m4a", ext != "caf" {
                XCTAssertEqual(try Tool.run("soxi", ["-b", output]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "24", ext)
            }
            XCTAssertTrue(try decodedS32(output) == expected, "\(ext): every sample as the source's")
            XCTAssertEqual(records.first?["warnings"] as? [String] ?? [], [], ext)
        }
        // AVLinearPCMBitDepthKey still decides when it is given.
        let (result, _) = try run(source, "AVFormatIDKey: kAudioFormatFLAC, AVLinearPCMBitDepthKey: 16")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try ffprobe(work + "/out/deep.flac", "stream=bits_per_raw_sample"), "16")
    }

    func testADepthTheContainerCannotHoldIsTheNearestWithAWarning() throws {
        let source = work + "/wide.wav"
        let made = try Tool.run("sox", ["-n", "-r", "44100", "-c", "1", "-b", "32", "-e", "signed-integer", source, "synth", "0.2", "sine", "440"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatFLAC")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-b", work + "/out/wide.flac"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "24")
        let warning = "FLAC cannot hold 32-bit samples; written as 24-bit"
        XCTAssertEqual(records.first?["warnings"] as? [String], [warning])
        XCTAssertTrue(result.stderr.contains("warn  \(source): \(warning)"), result.stderr)
    }

    func testSamplesBeyondFullScaleAreClippedAndCounted() throws {
        // A 200 Hz sine at amplitude 2 (float WAV): the samples beyond ±1 are counted here.
        let rate = 8000
        let samples = (0..<(rate * 3)).map { Float(2 * sin(2 * Double.pi * 200 * Double($0) / Double(rate))) }
        let clipped = samples.filter { $0 > 1 || $0 < -1 }.count
        XCTAssertGreaterThan(clipped, 1000)
        let source = work + "/hot.wav"
        try writeFloatWAV(samples, rate: rate, to: source)
        let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16", name: "{stem}-16.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warning = "clipped \(grouped(clipped)) samples"
        XCTAssertEqual(records.first?["warnings"] as? [String], [warning])
        XCTAssertTrue(result.stderr.contains("warn  \(source): \(warning)"), result.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-b", work + "/out/hot-16.wav"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "16")
        // Clipped, not wrapped: sox's peak is full scale.
        let stats = try Tool.run("sox", [work + "/out/hot-16.wav", "-n", "stats"])
        let peak = stats.stderr.split(separator: "\n").first { $0.hasPrefix("Pk lev dB") }
        XCTAssertEqual(peak.map { $0.split(separator: " ").last.map(String.init) ?? "" }, "0.00", stats.stderr)
        // A float output holds them: no clipping, no warning.
        let (float, floatRecords) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true", name: "{stem}-f.wav")
        XCTAssertEqual(float.status, 0, float.stderr)
        XCTAssertEqual(floatRecords.first?["warnings"] as? [String] ?? [], [])
    }

    // MARK: 2. damaged audio

    /// Frames ffmpeg decodes from `path` (16-bit: bytes ÷ 2 ÷ channels).
    func ffmpegFrames(_ path: String, channels: Int) throws -> Int {
        let result = try Tool.run("ffmpeg", ["-v", "quiet", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"])
        return result.data.count / (2 * channels)
    }

    func soxiFrames(_ path: String) throws -> Int {
        let result = try Tool.run("soxi", ["-s", path])
        return try XCTUnwrap(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), result.stderr)
    }

    /// Patches `bytes` into the file at `offset`.
    func patch(_ path: String, at offset: Int, _ bytes: [UInt8]) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        try data.write(to: URL(fileURLWithPath: path))
    }

    func testAWAVWhoseDataSizeIsZeroDecodesToTheEndOrFails() throws {
        let source = work + "/unpatched.wav"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "44100", "-c", "1", "-b", "16", source, "synth", "1", "sine", "440"]).status, 0)
        // A plain 44-byte header: the data chunk's size is at 40.
        let header = try Data(contentsOf: URL(fileURLWithPath: source)).prefix(44)
        XCTAssertEqual(Array(header[36..<40]), Array("data".utf8))
        try patch(source, at: 40, [0, 0, 0, 0])
        let recovered = try ffmpegFrames(source, channels: 1)
        XCTAssertEqual(recovered, 44100, "ffmpeg reads the samples to the end of the file")
        let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try soxiFrames(work + "/out/unpatched.wav"), recovered)
        XCTAssertEqual(records.first?["status"] as? String, "succeeded")

        // Nothing after the header: no samples anywhere, so no output and a failure.
        let empty = work + "/empty-data.wav"
        try header.write(to: URL(fileURLWithPath: empty))
        try patch(empty, at: 40, [0, 0, 0, 0])
        XCTAssertEqual(try ffmpegFrames(empty, channels: 1), 0)
        let (failed, failedRecords) = try run(empty, "AVFormatIDKey: kAudioFormatMPEG4AAC")
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertEqual(failedRecords.first?["status"] as? String, "failed")
        XCTAssertEqual(failedRecords.first?["error"] as? String, "no audio: the stream decodes to 0 frames")
        XCTAssertEqual(Tool.files(under: work + "/out").filter { !$0.hasPrefix(".medley") }, [])
    }

    /// The 4 (or 8, `wide`) bytes after the first `id` in `data`: a chunk's size field.
    func sizeField(after id: String, in data: Data, wide: Bool = false) throws -> [UInt8] {
        let at = try XCTUnwrap(data.range(of: Data(id.utf8)), "no \(id) chunk").upperBound
        return Array(data[at..<(at + (wide ? 8 : 4))])
    }

    /// FFmpeg writing to a pipe cannot seek back to its header: a WAV's RIFF and data sizes stay 0xFFFFFFFF, an
    /// AIFF's FORM and SSND sizes 0, a CAF's data size −1 — "to the end of the file". Every sample decodes, the tags
    /// in front of the audio are read without a warning, and a copy that only retags gets the true sizes.
    func testFilesFFmpegWroteToAPipeDecodeToTheEndWithTheirTags() throws {
        let unknown: [String: [(id: String, wide: Bool, bytes: [UInt8])]] = [
            "wav": [("RIFF", false, [0xFF, 0xFF, 0xFF, 0xFF]), ("data", false, [0xFF, 0xFF, 0xFF, 0xFF])],
            "aiff": [("FORM", false, [0, 0, 0, 0]), ("SSND", false, [0, 0, 0, 0])],
            "caf": [("data", true, [UInt8](repeating: 0xFF, count: 8))],
        ]
        for (format, fields) in unknown.sorted(by: { $0.key < $1.key }) {
            let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=1:r=44100", "-metadata", "title=Streamed \(format)",
                                               "-metadata", "artist=Pipe", "-f", format, "pipe:1"])
            XCTAssertEqual(made.status, 0, made.stderr)
            let source = work + "/piped.\(format)"
            try made.data.write(to: URL(fileURLWithPath: source))
            for field in fields {
                XCTAssertEqual(try sizeField(after: field.id, in: made.data, wide: field.wide), field.bytes, "\(format) \(field.id)")
            }
            // FFmpeg cannot read back its own AIFF (FORM size 0: "Invalid data found"); SoX and exiftool read it.
            let samples: Data
            let title: String
            if format == "aiff" {
                let sox = try Tool.run("sox", ["-V1", source, "-t", "s32", "-L", "-"])
                XCTAssertEqual(sox.status, 0, sox.stderr)
                samples = sox.data
                title = try Tool.run("exiftool", ["-s3", "-Name", source]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                samples = try decodedS32(source)
                title = try ffprobe(source, "format_tags=title")
            }
            XCTAssertEqual(samples.count, 44100 * 4, "\(format): 1 s at 44.1 kHz decodes")
            XCTAssertEqual(title, "Streamed \(format)", "\(format): the peers read the title")

            let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}-\(format).wav")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(records.first?["status"] as? String, "succeeded", format)
            XCTAssertEqual(records.first?["warnings"] as? [String] ?? [], [], format)
            let output = work + "/out/piped-\(format).wav"
            XCTAssertEqual(try soxiFrames(output), 44100, format)
            XCTAssertEqual(try decodedS32(output), samples, "\(format): the samples the peers decode from the source")
            XCTAssertEqual(try ffprobe(output, "format_tags=title"), title, format)
            guard format != "caf" else { continue }

            // Retagged without re-encoding: the stream copied, the sizes now what they are.
            try? FileManager.default.removeItem(atPath: work + "/out")
            let retag = try pipeline("""
                version: 1
                jobs:
                  - name: retag
                    ingest: { from: [\(source)] }
                    tag: { set: { artist: Retagged } }
                    export: { to: out, name: "{stem}.{ext}" }
                """, name: "retag-\(format).yaml")
            let retagged = try Tool.medley(["run", retag])
            XCTAssertEqual(retagged.status, 0, retagged.stderr)
            let copy = work + "/out/piped.\(format)"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
            let form = try sizeField(after: format == "wav" ? "RIFF" : "FORM", in: bytes)
            let formSize = format == "wav" ? form.reversed().reduce(0) { $0 << 8 | Int($1) } : form.reduce(0) { $0 << 8 | Int($1) }
            XCTAssertEqual(formSize, bytes.count - 8, "\(format): the form's size is the file's length less its 8-byte header")
            let audio = try sizeField(after: format == "wav" ? "data" : "SSND", in: bytes)
            let audioSize = format == "wav" ? audio.reversed().reduce(0) { $0 << 8 | Int($1) } : audio.reduce(0) { $0 << 8 | Int($1) }
            // 44,100 16-bit mono samples; AIFF's SSND adds its 8-byte offset and block size.
            XCTAssertEqual(audioSize, 44100 * 2 + (format == "aiff" ? 8 : 0), format)
            XCTAssertEqual(try soxiFrames(copy), 44100, format)
            XCTAssertEqual(try decodedS32(copy), samples, "\(format): the stream copied sample for sample")
            XCTAssertEqual(try ffprobe(copy, "format_tags=artist"), "Retagged", format)
            XCTAssertEqual(try ffprobe(copy, "format_tags=title"), title, format)
        }
    }

    /// Opus and IMA4 ADPCM in CAF (FFmpeg's muxer; Apple's afconvert writes both): encodings libsndfile refuses,
    /// decoded through FFmpeg.
    func testCAFsInEncodingsLibsndfileRefusesDecodeThroughFFmpeg() throws {
        for (codec, options) in [("opus", ["-c:a", "libopus", "-b:a", "32k"]), ("adpcm_ima_qt", ["-c:a", "adpcm_ima_qt"])] {
            let source = work + "/\(codec).caf"
            let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=1:r=48000"] + options + [source])
            XCTAssertEqual(made.status, 0, made.stderr)
            let sox = try Tool.run("soxi", ["-s", source])
            XCTAssertNotEqual(sox.status, 0, "SoX (libsndfile) cannot read it: \(sox.stdout)")
            XCTAssertEqual(try ffprobe(source, "stream=codec_name"), codec)
            let expected = try ffmpegFrames(source, channels: 1)
            XCTAssertGreaterThanOrEqual(expected, 48000, "ffmpeg decodes the second")
            let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(records.first?["status"] as? String, "succeeded", codec)
            XCTAssertEqual(try soxiFrames(work + "/out/\(codec).wav"), expected, codec)
        }
    }

    func testAFLACWhoseTotalSamplesIsWrongDecodesToTheEnd() throws {
        // 1: a wrong count; 0: "unknown", which the FLAC format allows.
        for total: UInt8 in [1, 0] {
            let source = work + "/hinted-\(total).flac"
            XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", source, "synth", "2", "sine", "440"]).status, 0)
            // STREAMINFO starts at 8; its 36-bit total-samples field is the low 4 bits of byte 21 and bytes 22…25.
            var data = try Data(contentsOf: URL(fileURLWithPath: source))
            XCTAssertEqual(Array(data[0..<4]), Array("fLaC".utf8))
            data[21] &= 0xF0
            data.replaceSubrange(22..<26, with: [0, 0, 0, total])
            try data.write(to: URL(fileURLWithPath: source))
            XCTAssertEqual(try soxiFrames(source), Int(total), "the header says \(total)")
            let recovered = try ffmpegFrames(source, channels: 1)
            XCTAssertEqual(recovered, 96000)
            let (result, _) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try soxiFrames(work + "/out/hinted-\(total).wav"), recovered)
        }
    }

    func testASystemSoundWhoseHeaderUnderstatesItsLengthStillFails() throws {
        let source = work + "/long.flac"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", source, "synth", "31", "sine", "440"]).status, 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        data[21] &= 0xF0
        data.replaceSubrange(22..<26, with: [0, 0, 0, 1])
        try data.write(to: URL(fileURLWithPath: source))
        XCTAssertEqual(try ffmpegFrames(source, channels: 1), 31 * 8000, "31 s decode")
        let (result, records) = try run(source, "preset: systemSound")
        XCTAssertEqual(result.status, 1, result.stderr)
        // 1 frame at 8 kHz: the header says 0.0 s.
        XCTAssertEqual(records.first?["error"] as? String,
                       "is longer than 30 s (its header says 0.0 s); system sounds must be at most 30 s")
        XCTAssertEqual(Tool.files(under: work + "/out").filter { !$0.hasPrefix(".medley") }, [])
    }

    func testABitFlippedMP3DecodesAsFarAsFFmpegRecovers() throws {
        let clean = work + "/clean.mp3", source = work + "/flipped.mp3"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=1.5:r=44100", "-c:a", "libmp3lame",
                                           "-b:a", "128k", "-write_xing", "0", clean])
        XCTAssertEqual(made.status, 0, made.stderr)
        // One flipped bit every 97 bytes after the first two frames (a fixed pattern).
        var data = try Data(contentsOf: URL(fileURLWithPath: clean))
        for (step, index) in stride(from: 900, to: data.count, by: 97).enumerated() { data[index] ^= UInt8(1 << (step % 8)) }
        try data.write(to: URL(fileURLWithPath: source))
        let recovered = try ffmpegFrames(source, channels: 1)
        XCTAssertGreaterThan(recovered, 44100, "ffmpeg recovers more than a second")
        let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try soxiFrames(work + "/out/flipped.wav"), recovered)
        XCTAssertEqual(records.first?["status"] as? String, "succeeded")
        // ffmpeg says "Error while decoding stream" once per frame it skips; so does the warning.
        let errors = try Tool.run("ffmpeg", ["-v", "error", "-i", source, "-f", "null", "-"]).stderr
            .components(separatedBy: "Error while decoding stream").count - 1
        XCTAssertGreaterThan(errors, 0)
        let warning = "skipped \(errors) damaged frame\(errors == 1 ? "" : "s"); decoding resumed after each"
        XCTAssertEqual(records.first?["warnings"] as? [String], [warning])
        XCTAssertTrue(result.stderr.contains("warn  \(source): \(warning)"), result.stderr)
        // Nothing reaches stderr without the file's name (libsndfile's mpg123 printed its notes bare).
        for line in result.stderr.split(separator: "\n") {
            XCTAssertTrue(line.contains(source) || line.hasPrefix("audio: "), "unnamed: \(line)")
        }
    }

    // MARK: 3. properties of real files

    /// `medley probe --json` of one file.
    func probe(_ path: String) throws -> [String: Any] {
        let result = try Tool.medley(["probe", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return try XCTUnwrap(list.first)
    }

    func testPlaybackDurationOfAnMP3WithoutAXingHeaderIsCountedFromItsFrames() throws {
        for (seconds, extra) in [(0.5, [String]()), (2.3, ["-id3v2_version", "3", "-metadata", "title=Tagged", "-write_id3v1", "1"])] {
            let path = work + "/clip-\(seconds).mp3"
            let made = try Tool.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds):r=44100", "-c:a", "libmp3lame",
                                               "-b:a", "128k", "-write_xing", "0"] + extra + [path])
            XCTAssertEqual(made.status, 0, made.stderr)
            // What ffmpeg decodes from the frames, per second.
            let expected = Double(try ffmpegFrames(path, channels: 1)) / 44100
            let properties = try probe(path)
            let duration = try XCTUnwrap(properties["playbackDuration"] as? Double)
            XCTAssertEqual(duration, (expected * 1000).rounded() / 1000, accuracy: 0.0005, "\(seconds) s clip")
            XCTAssertEqual(properties["codec"] as? String, "mp3")
        }
    }

    func testFLACReportsItsCodecAndOpusItsDecodeRate() throws {
        let flac = work + "/deep.flac"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "48000", "-c", "1", "-b", "24", flac, "synth", "0.2", "sine", "440"]).status, 0)
        XCTAssertEqual(try probe(flac)["codec"] as? String, try ffprobe(flac, "stream=codec_name"))
        // An Opus file made from a 12 kHz source: the OpusHead says 12000, Opus decodes at 48000.
        let opus = work + "/voice.opus"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=300:d=1:r=12000", "-c:a", "libopus", "-b:a", "24k", opus])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(try ffprobe(opus, "stream=sample_rate"), "48000")
        let properties = try probe(opus)
        XCTAssertEqual(properties["sampleRate"] as? Int, 48000)
        XCTAssertEqual(properties["codec"] as? String, "opus")
        // Keeping the rate keeps 48 kHz.
        let (result, _) = try run(opus, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-r", work + "/out/voice.wav"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "48000")
        XCTAssertEqual(try soxiFrames(work + "/out/voice.wav"), try ffmpegFrames(opus, channels: 1))
    }

    /// Ogg's page checksum (CRC-32, polynomial 0x04C11DB7, not reflected, initial 0).
    func oggCRC(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    func testAnOggVorbisFileWithAStartOffsetIsComplete() throws {
        let clean = work + "/clean.ogg", source = work + "/offset.ogg"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=3:r=44100", "-c:a", "libvorbis", clean])
        XCTAssertEqual(made.status, 0, made.stderr)
        // Every audio page's granule position 104 lower: the stream starts 104 samples "before" zero,
        // a start offset (Vorbis I §A.2), as files cut from a longer stream have.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: clean)))
        var offset = 0, pages = 0
        while offset + 27 <= bytes.count, bytes[offset..<(offset + 4)].elementsEqual(Array("OggS".utf8)) {
            let segments = Int(bytes[offset + 26])
            let length = 27 + segments + (0..<segments).reduce(0) { $0 + Int(bytes[offset + 27 + $1]) }
            var granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 6 + $1]) << (8 * UInt64($1)) }
            if granule != 0, granule != UInt64.max {
                granule -= 104
                for index in 0..<8 { bytes[offset + 6 + index] = UInt8(truncatingIfNeeded: granule >> (8 * UInt64(index))) }
                for index in 22..<26 { bytes[offset + index] = 0 }
                let crc = oggCRC(bytes[offset..<(offset + length)])
                for index in 0..<4 { bytes[offset + 22 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
                pages += 1
            }
            offset += length
        }
        XCTAssertEqual(offset, bytes.count)
        XCTAssertGreaterThan(pages, 1)
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        // The 104 samples before zero are not played: libvorbisfile (soxi) counts the stream from
        // zero, FFmpeg decodes them too.
        let decoded = try ffmpegFrames(source, channels: 1)
        XCTAssertGreaterThan(decoded, 3 * 44100 - 1000)
        let expected = try soxiFrames(source)
        XCTAssertEqual(expected, decoded - 104)
        let (result, records) = try run(source, "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records.first?["status"] as? String, "succeeded")
        XCTAssertEqual(try soxiFrames(work + "/out/offset.wav"), expected)
        // The dropped samples are the first 104 FFmpeg decodes, not the last.
        let reference = try Tool.run("ffmpeg", ["-v", "error", "-i", source, "-f", "s16le", "-"])
        let output = try Tool.run("ffmpeg", ["-v", "error", "-i", work + "/out/offset.wav", "-f", "s16le", "-"])
        let theirs = reference.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.dropFirst(104)
        let mine = output.data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        XCTAssertEqual(mine.count, theirs.count)
        XCTAssertLessThanOrEqual(zip(mine, theirs).map { abs(Int($0) - Int($1)) }.max() ?? Int.max, 1)
    }

    // MARK: 4. files taken for something else

    /// Makes `name` with ffmpeg from a 1 s 440 Hz tone (and a test picture when `video`).
    func make(_ name: String, _ options: [String], video: Bool = false) throws -> String {
        let path = work + "/in/" + name
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        let inputs = ["-f", "lavfi", "-i", "sine=f=440:d=1:r=44100"] + (video ? ["-f", "lavfi", "-i", "testsrc=d=1:s=64x48:r=10"] : [])
        let made = try Tool.run("ffmpeg", ["-v", "error", "-y"] + inputs + options + [path])
        XCTAssertEqual(made.status, 0, "\(name): \(made.stderr)")
        return path
    }

    /// A QuickTime file as old tools wrote it: the same atoms with the `ftyp` taken out and the
    /// `moov` first (chunk offsets moved by what was removed).
    func stripFtyp(_ source: String, to path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        var atoms: [(type: String, range: Range<Int>)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = u32(offset)
            atoms.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), offset..<(offset + size)))
            offset += size
        }
        XCTAssertEqual(atoms.first?.type, "ftyp")
        XCTAssertEqual(atoms.map(\.type).filter { $0 != "free" && $0 != "wide" }, ["ftyp", "moov", "mdat"], "-movflags faststart puts moov first")
        var out = bytes
        out.removeSubrange(atoms[0].range)
        // stco offsets are absolute: every one moves back by the ftyp's size.
        let shift = atoms[0].range.count
        var index = 0
        while index + 16 <= out.count {
            if out[index..<(index + 4)].elementsEqual(Array("stco".utf8)) {
                let count = (0..<4).reduce(0) { $0 << 8 | Int(out[index + 8 + $1]) }
                for entry in 0..<count {
                    let at = index + 12 + entry * 4
                    let value = (0..<4).reduce(0) { $0 << 8 | Int(out[at + $1]) } - shift
                    for byte in 0..<4 { out[at + byte] = UInt8(truncatingIfNeeded: value >> (8 * (3 - byte))) }
                }
            }
            index += 1
        }
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    func testAudioOnlyContainersAreAudioAndMoviesAreMovies() throws {
        let audioOnly = [
            try make("song.m4a", ["-c:a", "aac", "-f", "mp4"]),
            try make("book.m4b", ["-c:a", "aac", "-f", "mp4", "-brand", "M4B "]),
            try make("voice.mp4", ["-c:a", "aac"]),
            try make("phone.3g2", ["-c:a", "aac", "-ar", "16000", "-f", "3g2"]),
            try make("track.mkv", ["-c:a", "flac"]),
            try make("stream.webm", ["-c:a", "libopus"]),
        ]
        // Brands no table knows: the ftyp's major and compatible brands all overwritten with "xyz1".
        let vendor = try make("vendor.mp4", ["-c:a", "aac"])
        var vendorBytes = try Data(contentsOf: URL(fileURLWithPath: vendor))
        XCTAssertEqual(Array(vendorBytes[4..<8]), Array("ftyp".utf8))
        let ftypSize = Int(vendorBytes[3])
        for brand in stride(from: 8, to: ftypSize, by: 4) where brand != 12 {
            vendorBytes.replaceSubrange(brand..<(brand + 4), with: Array("xyz1".utf8))
        }
        try vendorBytes.write(to: URL(fileURLWithPath: vendor))
        XCTAssertEqual(try ffmpegFrames(vendor, channels: 1) > 40000, true, "ffmpeg reads it")
        let faststart = try make("old-source.mov", ["-c:a", "aac", "-movflags", "faststart"])
        let old = work + "/in/old.mov"
        try stripFtyp(faststart, to: old)
        try FileManager.default.removeItem(atPath: faststart)
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: old))[4..<8], as: UTF8.self), "moov")
        XCTAssertEqual(try ffmpegFrames(old, channels: 1) > 40000, true, "ffmpeg reads the ftyp-less file")
        let movies = [
            try make("clip.ogv", ["-map", "1:v", "-map", "0:a", "-c:v", "libtheora", "-c:a", "libvorbis"], video: true),
            try make("clip.mkv", ["-map", "1:v", "-map", "0:a", "-c:v", "mpeg4", "-c:a", "aac"], video: true),
        ]
        // Every audio-only file is audio: transcoded, with ffmpeg's frame count.
        let (result, records) = try run(work + "/in", "AVFormatIDKey: kAudioFormatLinearPCM", name: "{stem}.wav", media: "anyAudio")
        XCTAssertEqual(result.status, 0, result.stderr)
        var byItem: [String: [String: Any]] = [:]
        for record in records { byItem[record["item"] as? String ?? ""] = record }
        for path in audioOnly + [old, vendor] {
            let name = (path as NSString).lastPathComponent
            let record = try XCTUnwrap(byItem[name], name)
            XCTAssertEqual(record["status"] as? String, "succeeded", "\(name): \(record)")
            let stem = (name as NSString).deletingPathExtension
            let channels = Int(try ffprobe(path, "stream=channels")) ?? 1
            XCTAssertEqual(try soxiFrames(work + "/out/\(stem).wav"), try ffmpegFrames(path, channels: channels), name)
        }
        XCTAssertEqual(byItem["book.m4b"]?["mediaType"] as? String, "audioBook")
        XCTAssertEqual(byItem["song.m4a"]?["mediaType"] as? String, "music")
        // The movies are named as ignored, with the reason.
        for path in movies {
            let name = (path as NSString).lastPathComponent
            let record = try XCTUnwrap(byItem[name], name)
            XCTAssertEqual(record["status"] as? String, "ignored", name)
            XCTAssertEqual(record["error"] as? String,
                           "\((name as NSString).pathExtension) movie, not of the job's media types (anyAudio)", name)
        }
        XCTAssertEqual(records.count, audioOnly.count + 2 + movies.count)

        // In a movie job, the audio files are the ignored ones and the movies are movies.
        let movieJob = try run(work + "/in", "AVFormatIDKey: kAudioFormatLinearPCM", media: "movie")
        let statuses = Dictionary(movieJob.records.map { ($0["item"] as? String ?? "", $0["status"] as? String ?? "") }) { $1 }
        for path in audioOnly + [old, vendor] { XCTAssertEqual(statuses[(path as NSString).lastPathComponent], "ignored") }
        for path in movies { XCTAssertNotEqual(statuses[(path as NSString).lastPathComponent], "ignored") }
    }

    func testIgnoredFilesPassThroughMergePlaylistReportAndTheNextRun() throws {
        let input = work + "/mixed"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for name in ["a.wav", "b.wav"] {
            XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", input + "/" + name, "synth", "0.1", "sine", "440"]).status, 0)
        }
        try "not media\n".write(toFile: input + "/notes.txt", atomically: true, encoding: .utf8)
        XCTAssertEqual(try Tool.run("convert", ["-size", "4x4", "xc:red", input + "/cover.png"]).status, 0)
        let ignored = ["cover.png": "png image, not of the job's media types (anyAudio)",
                       "notes.txt": "not an image, audio or movie file"]
        let path = try pipeline("""
            version: 1
            jobs:
              - name: mix
                ingest: { from: [\(input)], media: [anyAudio] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM }
                export: { to: out, name: "{stem}.wav" }
                playlist: { to: out/mix.m3u8 }
                report: true
            """)
        func manifest(_ name: String) throws -> [String: [String: Any]] {
            let text = try String(contentsOfFile: work + "/out/.medley/" + name, encoding: .utf8)
            var byItem: [String: [String: Any]] = [:]
            for line in text.split(separator: "\n") {
                let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                XCTAssertNil(byItem[record["item"] as? String ?? ""], "listed once: \(record)")
                byItem[record["item"] as? String ?? ""] = record
            }
            return byItem
        }
        let first = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        var records = try manifest("manifest-mix.jsonl")
        XCTAssertEqual(Set(records.keys), ["a.wav", "b.wav", "cover.png", "notes.txt"])
        for (item, reason) in ignored {
            XCTAssertEqual(records[item]?["status"] as? String, "ignored", item)
            XCTAssertEqual(records[item]?["error"] as? String, reason, item)
            XCTAssertNil(records[item]?["output"], item)
        }
        // The playlist holds the two outputs only.
        let playlist = try String(contentsOfFile: work + "/out/mix.m3u8", encoding: .utf8)
        XCTAssertEqual(playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }, ["a.wav", "b.wav"], playlist)
        // The report counts and names them.
        // The page's script lists the items: read them as Chromium renders the page.
        let rendered = try chromium(["--dump-dom", "file://" + work + "/out/.medley/report-mix/index.html"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let page = rendered.stdout
        XCTAssertTrue(page.contains("<td data-count=\"ignored\">2</td>"), page)
        for item in ignored.keys { XCTAssertTrue(page.contains("<article class=\"item ignored\" data-item=\"\(item)\""), item) }
        // The next run skips the unchanged items (listed with their last record) and lists the
        // ignored files again, once each.
        let second = try Tool.medley(["run", path])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("skip  \(input)/a.wav → \(work!)/out/a.wav (unchanged since the last run)"), second.stderr)
        records = try manifest("manifest-mix.jsonl")
        XCTAssertEqual(Set(records.keys), ["a.wav", "b.wav", "cover.png", "notes.txt"])
        XCTAssertEqual(records["notes.txt"]?["status"] as? String, "ignored")

        // Sharded: each shard lists its own ignored files; merge takes them as items, once each.
        try FileManager.default.removeItem(atPath: work + "/out")
        for shard in ["1/2", "2/2"] {
            let run = try Tool.medley(["run", path, "--quiet", "--shard", shard])
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let merged = try Tool.medley(["merge", path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        records = try manifest("manifest-mix.jsonl")
        XCTAssertEqual(Set(records.keys), ["a.wav", "b.wav", "cover.png", "notes.txt"])
        XCTAssertEqual(records["cover.png"]?["status"] as? String, "ignored")
    }
}
