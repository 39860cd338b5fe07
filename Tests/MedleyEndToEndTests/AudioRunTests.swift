import Foundation
import XCTest

/// Audio transcoding through `medley run`, checked with ffprobe and sox and with signal
/// measurements computed here (least-squares sine fit), never with Medley's own numbers.
final class AudioRunTests: EndToEndCase {
    let audio = Tool.fixtures + "/audio"

    func transcode(_ input: String, _ settings: String, name: String = "{stem}.{ext}", extra: String = "") throws -> Tool.Result {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: audio
                ingest: { from: [\(input)] }
                transcode: { \(settings) }
            \(extra)
                export: { to: out, name: "\(name)" }
            """)
        return try Tool.medley(["run", path, "--quiet", "--events", work + "/events.jsonl"])
    }

    /// ffprobe's view of a file's first stream: codec, rate, channels, duration, bits.
    func probe(_ path: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries",
                                              "stream=codec_name,sample_rate,channels,bits_per_sample,bits_per_raw_sample:format=duration,format_name",
                                              "-of", "default=noprint_wrappers=1", path])
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// Frames (samples per channel) the file holds according to soxi, from its header (sox reads
    /// PCM in WAV/AIFF/CAF, FLAC, µ-law and A-law).
    func soxiFrames(_ path: String) throws -> Int {
        let result = try Tool.run("soxi", ["-s", path])
        return try XCTUnwrap(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(path): \(result.stderr)")
    }

    /// Frames ffmpeg decodes from the file (32-bit floats: bytes ÷ 4 ÷ channels). FFmpeg's decoders
    /// drop what the container marks as encoder priming and padding.
    func decodedFrames(_ path: String) throws -> Int {
        let channels = try XCTUnwrap(Int(try probe(path)["channels"] ?? ""), path)
        let result = try Tool.run("ffmpeg", ["-v", "error", "-i", path, "-f", "f32le", "-acodec", "pcm_f32le", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.data.count % (4 * channels), 0, path)
        return result.data.count / (4 * channels)
    }

    /// Samples of channel 0 as 32-bit floats, decoded by sox.
    func samples(_ path: String) throws -> [Float] {
        let result = try Tool.run("sox", [path, "-t", "f32", "-e", "floating-point", "-"])
        let bytes = [UInt8](result.data)
        let channels = Int(try probe(path)["channels"] ?? "1") ?? 1
        var values: [Float] = []
        var i = 0
        while i + 4 <= bytes.count {
            values.append(Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24))
            i += 4 * channels
        }
        return values
    }

    /// Least-squares fit of A·sin + B·cos at `frequency`: amplitude and THD+N (residual ÷ fit) in dB.
    func sineFit(_ x: [Float], rate: Double, frequency: Double) -> (amplitude: Double, thdN: Double) {
        var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
        for (n, v) in x.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / rate
            let s = sin(phase), c = cos(phase)
            ss += s * s; cc += c * c; sc += s * c; xs += Double(v) * s; xc += Double(v) * c
        }
        let det = ss * cc - sc * sc
        let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
        var residual = 0.0, fitted = 0.0
        for (n, v) in x.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / rate
            let model = a * sin(phase) + b * cos(phase)
            residual += (Double(v) - model) * (Double(v) - model)
            fitted += model * model
        }
        return ((a * a + b * b).squareRoot(), 10 * log10(residual / fitted))
    }

    func testResampling44100To48000KeepsLevelAndIsClean() throws {
        let result = try transcode(audio + "/sine-1k-44100-stereo.wav",
                                   "AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48000, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, AVSampleRateConverterAudioQualityKey: AVAudioQuality.medium",
                                   name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/sine-1k-44100-stereo.wav"
        let info = try probe(output)
        XCTAssertEqual(info["sample_rate"], "48000")
        XCTAssertEqual(info["codec_name"], "pcm_f32le")
        let x = try samples(output)
        // Skip the converter's start-up and tail: fit the steady middle.
        let middle = Array(x[2400..<(x.count - 2400)])
        let (amplitude, thdN) = sineFit(middle, rate: 48000, frequency: 1000)
        XCTAssertEqual(20 * log10(amplitude), 0, accuracy: 0.1, "level kept within 0.1 dB")
        XCTAssertLessThanOrEqual(thdN, -90, "THD+N at medium quality")
        XCTAssertEqual(Double(try probe(output)["duration"] ?? "0") ?? 0, 0.5, accuracy: 1.0 / 48000 + 1e-6)
    }

    func testMeteringOfAFullScaleSine() throws {
        let result = try Tool.medley(["probe", audio + "/sine-1k-44100-stereo.wav", "--json", "--meter"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let item = try XCTUnwrap((try JSONSerialization.jsonObject(with: result.data) as? [[String: Any]])?.first)
        // A sine's RMS is its peak ÷ √2: 20·log10(1/√2) = −3.0103 dBFS; the fixture peaks at 32767/32768.
        XCTAssertEqual(item["peakPower.0"] as? Double ?? 99, 20 * log10(32767.0 / 32768), accuracy: 0.01)
        XCTAssertEqual(item["averagePower.1"] as? Double ?? 99, 20 * log10(32767.0 / 32768 / 2.0.squareRoot()), accuracy: 0.01)
        XCTAssertEqual(item["sampleRate"] as? Int, 44100)
        XCTAssertEqual(item["channels"] as? Int, 2)
    }

    func testAnalyzeMeteringLandsInTheEvents() throws {
        let result = try transcode(audio + "/sine-1k-44100-stereo.wav", "AVFormatIDKey: kAudioFormatLinearPCM, gain: -6dB",
                                   extra: "    analyze: [metering]")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try String(contentsOfFile: work + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        let finished = try XCTUnwrap(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["event"] as? String == "itemFinished" })
        // Metering is of the output: the full-scale sine after −6 dB.
        XCTAssertEqual(finished["peakPower.0"] as? Double ?? 99, -6, accuracy: 0.02)
        XCTAssertEqual(finished["averagePower.1"] as? Double ?? 99, -6 - 3.0103, accuracy: 0.02)
        XCTAssertEqual(finished["duration"] as? Double ?? 0, 0.5, accuracy: 0.001)
    }

    /// Every lossless format, once at the source rate and once resampled, keeps every frame: the
    /// count is exact. Unresampled, it is the source's (soxi). Resampled 48 → 44.1 kHz, it is not
    /// quite 24000 × 44100 / 48000 = 22050: libsamplerate ends its output within a frame of that,
    /// on a side that depends on the converter and the channel count (its mono sinc-fastest path
    /// makes 22049 of these 24000 frames, its stereo one 22050). So the expected count is what
    /// libsamplerate's own example program makes with the same converter on the same single
    /// channel: `sndfile-resample -c 2` (sinc fastest, which AVAudioQuality.medium picks, docs/pipelines.md, "transcode")
    /// on sox's mono mix of the source (Medley mixes down before it resamples).
    func testEveryAvailableFormatIsWhatFfprobeReads() throws {
        // (settings, export name, ffprobe's facts, whether sox reads it: not ALAC)
        let cases: [(String, String, [String: String], Bool)] = [
            // The 24-bit source keeps its depth when AVLinearPCMBitDepthKey does not set one.
            ("AVFormatIDKey: kAudioFormatLinearPCM", "{stem}.caf", ["codec_name": "pcm_s24be", "format_name": "caf"], true),
            ("AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16", "{stem}.caf", ["codec_name": "pcm_s16be", "format_name": "caf"], true),
            ("AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 24", "{stem}.wav", ["codec_name": "pcm_s24le", "format_name": "wav"], true),
            ("AVFormatIDKey: lpcm, AVLinearPCMIsBigEndianKey: true, AVLinearPCMBitDepthKey: 16", "{stem}.aif", ["codec_name": "pcm_s16be", "format_name": "aiff"], true),
            ("AVFormatIDKey: kAudioFormatFLAC, AVLinearPCMBitDepthKey: 24", "{stem}.flac", ["codec_name": "flac", "format_name": "flac"], true),
            ("AVFormatIDKey: kAudioFormatAppleLossless", "{stem}.caf", ["codec_name": "alac", "format_name": "caf"], false),
            ("AVFormatIDKey: kAudioFormatULaw", "{stem}.wav", ["codec_name": "pcm_mulaw"], true),
            ("AVFormatIDKey: kAudioFormatALaw", "{stem}.caf", ["codec_name": "pcm_alaw"], true),
        ]
        let sweep = audio + "/sweep-48000-stereo.aif"
        XCTAssertEqual(try probe(sweep)["sample_rate"], "48000")
        let sourceFrames = try soxiFrames(sweep)
        XCTAssertGreaterThan(sourceFrames, 4800)
        let mono = work + "/mono.wav", resampled = work + "/resampled.wav"
        XCTAssertEqual(try Tool.run("sox", [sweep, "-c", "1", mono]).status, 0)
        let reference = try Tool.run("sndfile-resample", ["-to", "44100", "-c", "2", mono, resampled])
        XCTAssertEqual(reference.status, 0, reference.stdout + reference.stderr)
        let resampledFrames = try soxiFrames(resampled)
        XCTAssertEqual(Double(resampledFrames), Double(sourceFrames) * 44100 / 48000, accuracy: 1, "within a frame of the ideal count")
        let rates: [(settings: String, rate: String, frames: Int)] = [
            ("", "48000", sourceFrames),
            (", AVSampleRateKey: 44100, AVSampleRateConverterAudioQualityKey: AVAudioQuality.medium", "44100", resampledFrames),
        ]
        for (format, name, expected, soxReads) in cases {
            for (rateSettings, rate, frames) in rates {
                let settings = format + rateSettings + ", AVNumberOfChannelsKey: 1"
                try? FileManager.default.removeItem(atPath: work + "/out")
                let result = try transcode(sweep, settings, name: name)
                XCTAssertEqual(result.status, 0, "\(settings): \(result.stderr)")
                let output = work + "/out/sweep-48000-stereo." + (name as NSString).pathExtension
                let info = try probe(output)
                for (key, value) in expected { XCTAssertEqual(info[key], value, "\(settings) \(key)") }
                XCTAssertEqual(info["sample_rate"], rate, settings)
                XCTAssertEqual(info["channels"], "1", settings)
                XCTAssertEqual(try decodedFrames(output), frames, "\(settings): frames ffmpeg decodes")
                if soxReads { XCTAssertEqual(try soxiFrames(output), frames, "\(settings): frames soxi reads") }
            }
        }
    }

    func testNormalizeAndGainSetTheLevel() throws {
        let result = try transcode(audio + "/sine-1k-44100-stereo.wav",
                                   "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, normalize: { peak: -6dBFS }",
                                   name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        let peak = try samples(work + "/out/sine-1k-44100-stereo.wav").map { abs($0) }.max() ?? 0
        XCTAssertEqual(20 * log10(Double(peak)), -6, accuracy: 0.01)
        try FileManager.default.removeItem(atPath: work + "/out")
        let gained = try transcode(audio + "/sine-1k-44100-mono-float.wav",
                                   "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, gain: -3dB", name: "{stem}.wav")
        XCTAssertEqual(gained.status, 0, gained.stderr)
        let gainedPeak = try samples(work + "/out/sine-1k-44100-mono-float.wav").map { abs($0) }.max() ?? 0
        XCTAssertEqual(20 * log10(Double(gainedPeak)), 20 * log10(0.5) - 3, accuracy: 0.01)
    }

    func testDownmixOfFivePointOneUsesStandardCoefficients() throws {
        let result = try transcode(audio + "/five-one-48000.wav",
                                   "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVNumberOfChannelsKey: 2",
                                   name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/five-one-48000.wav"
        XCTAssertEqual(try probe(output)["channels"], "2")
        // Left = (FL + 0.7071·FC + 0.7071·BL) / (1 + 2·0.7071): the FL tone (300 Hz) at −12 dBFS
        // keeps 1/2.4142 of its amplitude, the LFE (60 Hz) is dropped.
        let left = try samples(output)
        let input = 2 * 0.25118864  // −12 dBFS peak
        let (fl, _) = sineFit(left, rate: 48000, frequency: 300)
        XCTAssertEqual(fl, input / 2 / (1 + 2 * 0.70710678), accuracy: 0.002)
        let (lfe, _) = sineFit(left, rate: 48000, frequency: 60)
        XCTAssertLessThan(lfe, 0.001)
    }

    func testSystemSoundPresetAndItsThirtySecondLimit() throws {
        let result = try transcode(audio, "preset: systemSound")
        XCTAssertEqual(result.status, 1, "the 31 s file fails, the run goes on")
        XCTAssertTrue(result.stderr.contains("long-31s-8000-mono.wav: is 31.0 s long; system sounds must be at most 30 s"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/long-31s-8000-mono.caf"))
        let info = try probe(work + "/out/noise-22050-mono.caf")
        XCTAssertEqual(info["codec_name"], "pcm_s16be")
        XCTAssertEqual(info["sample_rate"], "22050", "system sounds keep the source rate")
    }

    func testBrokenAudioFailsPerItemWithoutPartialFiles() throws {
        let result = try transcode(audio + "/broken", "AVFormatIDKey: kAudioFormatFLAC")
        XCTAssertEqual(result.status, 1)
        for name in ["truncated.flac", "garbage.wav", "empty.wav", "text.m4a"] {
            XCTAssertTrue(result.stderr.contains("✗ \(audio)/broken/\(name):"), "\(name)\n\(result.stderr)")
        }
        XCTAssertEqual(Tool.files(under: work + "/out"), ["wrong-extension.flac"], "only the WAV named .mp3 succeeds")
    }

    func testCompressedFormatsThroughFFmpeg() throws {
        // Bit rates within ±10%; codecs, rates, channels and durations as asked.
        let cases: [(String, String, [String: String], Int?)] = [
            ("AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: 128000",
             "{stem}.{ext}", ["codec_name": "aac", "sample_rate": "44100", "channels": "2"], 128000),
            ("AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 48000, AVNumberOfChannelsKey: 1, AVEncoderBitRatePerChannelKey: 64000",
             "{stem}.{ext}", ["codec_name": "aac", "sample_rate": "48000", "channels": "1"], 64000),
            ("AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 44100", "{stem}.{ext}",
             ["codec_name": "alac", "sample_rate": "44100"], nil),
            ("AVFormatIDKey: kAudioFormatOpus, AVEncoderBitRateKey: 96000", "{stem}.{ext}",
             ["codec_name": "opus", "sample_rate": "48000"], 96000),
            ("AVFormatIDKey: kAudioFormatMPEGLayer3, AVEncoderBitRateKey: 192000", "{stem}.{ext}",
             ["codec_name": "mp3", "sample_rate": "44100"], 192000),
            ("AVFormatIDKey: kAudioFormatAppleIMA4", "{stem}.{ext}", ["codec_name": "adpcm_ima_qt"], nil),
        ]
        // Ten seconds of music-like noise (made here by sox), so container overhead is small.
        let input = work + "/music.flac"
        XCTAssertEqual(try Tool.run("sox", ["-R", "-n", "-r", "44100", "-c", "2", "-b", "16", input, "synth", "10",
                                            "pinknoise", "gain", "-6"]).status, 0)
        let source = try soxiFrames(input)
        XCTAssertEqual(source, 441_000)
        // Frames each output decodes to: ALAC is lossless at the source rate, so exactly the
        // source's. The lossy codecs are within one codec frame of the source's count (at 48 kHz:
        // 441000 × 48000 / 44100 = 480000): their containers record the encoder's priming and
        // padding, which decoders drop, to the packet (AAC 1024, Opus 960, MP3 1152, IMA4 64
        // frames a packet).
        let at48k = source * 48000 / 44100
        let frames: [(expected: Int, within: Int)] = [(source, 1024), (at48k, 1024), (source, 0), (at48k, 960),
                                                      (source, 1152), (source, 64)]
        XCTAssertEqual(frames.count, cases.count)
        for ((settings, name, expected, bitRate), count) in zip(cases, frames) {
            try? FileManager.default.removeItem(atPath: work + "/out")
            let result = try transcode(input, settings, name: name)
            XCTAssertEqual(result.status, 0, "\(settings): \(result.stderr)")
            guard let output = Tool.files(under: work + "/out").first.map({ work + "/out/" + $0 }) else {
                XCTFail("no output for \(settings)")
                continue
            }
            let info = try probe(output)
            for (key, value) in expected { XCTAssertEqual(info[key], value, "\(settings) \(key)") }
            let decoded = try decodedFrames(output)
            if count.within == 0 {
                XCTAssertEqual(decoded, count.expected, "\(settings): lossless, every frame")
            } else {
                XCTAssertLessThan(abs(decoded - count.expected), count.within, "\(settings): \(decoded) frames decoded")
            }
            if let bitRate {
                let measured = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=bit_rate", "-of", "csv=p=0", output])
                let rate = Double(measured.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                XCTAssertEqual(rate, Double(bitRate), accuracy: Double(bitRate) * 0.1, "\(settings): container overhead included")
            }
        }
        XCTAssertTrue(Tool.files(under: work + "/out").allSatisfy { $0.hasSuffix(".caf") }, "IMA4 defaults to .caf")
    }

    func testTagsGoIntoTheContainerTheEncoderWroteWhateverTheName() throws {
        // FFmpeg's ipod muxer writes MPEG-4 for AAC whether the name ends .m4a or .aac; the tag
        // writer follows the plan's container, not the name (before: "cannot write tags into .aac files").
        let input = work + "/tone.wav"
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", input, "synth", "1", "sine", "440"]).status, 0)
        let result = try transcode(input, "AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 96000", name: "{stem}.aac",
                                   extra: "    tag: { set: { title: Named by its container, artist: Medley Tests } }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/tone.aac"
        let format = try probe(output)["format_name"] ?? ""
        XCTAssertTrue(format.contains("mp4"), "ffprobe: \(format)")
        let tags = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=title,artist", "-of", "default=noprint_wrappers=1", output])
        XCTAssertTrue(tags.stdout.contains("TAG:title=Named by its container"), tags.stdout + tags.stderr)
        XCTAssertTrue(tags.stdout.contains("TAG:artist=Medley Tests"), tags.stdout + tags.stderr)
    }

    func testM4AInputsDecodeThroughFFmpeg() throws {
        let result = try transcode(audio + "/tone-alac.m4a", "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true",
                                   name: "{stem}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        // Apple Lossless decodes exactly: the ffmpeg CLI's decoding of the source equals Medley's output.
        let mine = try samples(work + "/out/tone-alac.wav")
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", audio + "/tone-alac.m4a", "-f", "f32le", "-acodec", "pcm_f32le", "-"])
        let bytes = [UInt8](decoded.data)
        let theirs = stride(from: 0, to: bytes.count - 7, by: 8).map { i in
            Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
        }
        XCTAssertEqual(mine.count, theirs.count)
        XCTAssertLessThan(zip(mine, theirs).map { abs($0 - $1) }.max() ?? 1, 1e-4)
    }

    func testInvalidSettingsFailValidation() throws {
        let path = try pipeline("""
            version: 1
            jobs:
              - name: aac
                ingest: { from: [\(audio)] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44000, AVNumberOfChannelsKey: 9 }
                export: { to: out }
              - name: typo
                ingest: { from: [\(audio)] }
                transcode: { AVFormatIDKey: kAudioFormatMPEG4ACC, AVEncoderAudioQualityKey: AVAudioQuality.best }
                export: { to: out2 }
            """)
        let result = try Tool.medley(["validate", path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:5:72: error: AAC cannot be encoded at 44000 Hz"), result.stderr)
        XCTAssertTrue(result.stderr.contains("AVNumberOfChannelsKey must be a whole number in 1…8, not '9'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("pipeline.yaml:9:33: error: unknown AVFormatIDKey 'kAudioFormatMPEG4ACC'; did you mean 'kAudioFormatMPEG4AAC'?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("AVEncoderAudioQualityKey takes an AVAudioQuality, not 'AVAudioQuality.best'"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
    }
}
