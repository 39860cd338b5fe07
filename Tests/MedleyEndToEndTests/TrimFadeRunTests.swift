import Foundation
import XCTest

/// `trim:` and `fade:` through `medley run`, on signals sox generates with known sample counts
/// and on files from the Debian corpus. Every position is found here, by scanning the samples
/// sox (or numpy, through sox's raw output) decodes: the first and last frame where any channel's
/// |sample| exceeds the threshold. The expected output is then the formula: cut at
/// max(0, first − keep) and min(total, last + 1 + keep), fade-in gain g(n/N), fade-out gain
/// g((L − k)/M), with g as SoX's `fade` types define it — and `sox … fade` itself is compared.
final class TrimFadeRunTests: EndToEndCase {
    /// −50 dBFS as a linear level.
    let threshold = pow(10, -50.0 / 20)

    /// Runs one job over `input` (a folder or file) and returns the result and the manifest records.
    func run(_ input: String, _ settings: String, name: String = "{stem}.wav") throws -> (result: Tool.Result, records: [[String: Any]]) {
        try? FileManager.default.removeItem(atPath: work + "/out")
        let path = try pipeline("""
            version: 1
            jobs:
              - name: edit
                ingest: { from: [\(input)] }
                transcode: { \(settings) }
                export: { to: out, name: "\(name)" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        let manifest = (try? String(contentsOfFile: work + "/out/.medley/manifest-edit.jsonl", encoding: .utf8)) ?? ""
        let records = try manifest.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        return (result, records)
    }

    /// Every sample as sox decodes it (32-bit float, interleaved), with the channel count.
    func decode(_ path: String) throws -> (samples: [Float], channels: Int) {
        let channels = try XCTUnwrap(Int(try Tool.run("soxi", ["-c", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)), path)
        let result = try Tool.run("sox", [path, "-t", "f32", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let samples = result.data.withUnsafeBytes { bytes in
            (0..<bytes.count / 4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
        return (samples, channels)
    }

    /// The first and last frame where any channel's |sample| exceeds `threshold`.
    func loud(_ samples: [Float], channels: Int, above threshold: Double) -> (first: Int, last: Int)? {
        let frames = samples.count / channels
        func isLoud(_ frame: Int) -> Bool { (0..<channels).contains { Double(abs(samples[frame * channels + $0])) > threshold } }
        guard let first = (0..<frames).first(where: isLoud), let last = (0..<frames).reversed().first(where: isLoud) else { return nil }
        return (first, last)
    }

    /// Stereo, 24-bit, 44.1 kHz: the left channel a 1 kHz tone of 44100 frames after 30000 frames
    /// of silence, the right a 700 Hz tone of 30000 frames after 29000 — so sound starts in the
    /// right channel and ends in the left, both mid-block (4096-frame blocks) — and digital
    /// silence to 94100 frames.
    func makeStereoSource(_ path: String) throws {
        let left = work + "/left.wav", right = work + "/right.wav"
        try sox(["-r", "44100", "-c", "1", "-n", "-b", "24", left, "synth", "44100s", "sine", "1000", "vol", "0.5", "pad", "30000s", "20000s"])
        try sox(["-r", "44100", "-c", "1", "-n", "-b", "24", right, "synth", "30000s", "sine", "700", "vol", "0.3", "pad", "29000s", "35100s"])
        try sox(["-M", left, right, path])
        XCTAssertEqual(try Tool.run("soxi", ["-s", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "94100")
    }

    /// The slice of frames `start..<end`.
    func frames(_ samples: [Float], channels: Int, _ start: Int, _ end: Int) -> [Float] {
        Array(samples[(start * channels)..<(end * channels)])
    }

    // MARK: trims

    func testTrimCutsBothEndsAtTheFormulaSampleExact() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try makeStereoSource(work + "/src/tone.wav")
        // A second item whose silences are shorter than `keep`: both cuts clamp to the stream.
        try sox(["-r", "44100", "-c", "2", "-n", "-b", "24", work + "/src/short.wav", "synth", "20000s", "sine", "440", "vol", "0.5",
                 "pad", "5000s", "3000s"])
        let keep = 11025  // 0.25 s at 44.1 kHz
        for (trim, start, end) in [("{ silence: -50dB, keep: 0.25s }", true, true), ("{ keep: 250ms, start: false }", false, true),
                                   ("{ end: false }", true, false)] {
            let (result, records) = try run("src", "AVFormatIDKey: kAudioFormatLinearPCM, trim: \(trim)")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(records.count, 2)
            for stem in ["tone", "short"] {
                let source = try decode(work + "/src/\(stem).wav")
                let output = try decode(work + "/out/\(stem).wav")
                let total = source.samples.count / 2
                let sound = try XCTUnwrap(loud(source.samples, channels: 2, above: threshold))
                let cutStart = start ? max(0, sound.first - keep) : 0
                let cutEnd = end ? min(total, sound.last + 1 + keep) : total
                if stem == "tone" {
                    // The source's sound is where sox put it: the right channel's second frame (sine phase 0
                    // is a zero), the left channel's last; so the cuts fall inside blocks 4 and 20.
                    XCTAssertEqual(sound.first, 29001)
                    XCTAssertEqual(sound.last, 74099)
                }
                XCTAssertEqual(output.samples.count / 2, cutEnd - cutStart, "\(stem) \(trim)")
                // 24-bit in, 24-bit out, no level change: the kept frames are the source's, bit for bit.
                XCTAssertTrue(output.samples == frames(source.samples, channels: 2, cutStart, cutEnd), "\(stem) \(trim)")
                let kept = try XCTUnwrap(loud(output.samples, channels: 2, above: threshold))
                XCTAssertEqual(kept.first, sound.first - cutStart, "\(stem) \(trim)")
                XCTAssertEqual(kept.last, sound.last - cutStart, "\(stem) \(trim)")
            }
        }
    }

    func testTrimAtTheOutputRateAfterResampling() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try makeStereoSource(work + "/src/tone.wav")
        let (result, _) = try run("src", "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, "
                                  + "AVSampleRateKey: 48000, trim: { keep: 0.1s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-r", work + "/out/tone.wav"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "48000")
        let output = try decode(work + "/out/tone.wav")
        let length = output.samples.count / 2
        // Positions are at the output rate: 0.1 s is 4800 frames of 48 kHz (not 4410 of 44.1 kHz),
        // before the first frame above -50 dB and after the last, exactly.
        let kept = try XCTUnwrap(loud(output.samples, channels: 2, above: threshold))
        XCTAssertEqual(kept.first, 4800)
        XCTAssertEqual(kept.last, length - 1 - 4800)
        // The sound's span is the source's 45099 frames at 44.1 kHz, scaled to 48 kHz; the sinc
        // converter's ringing at the tone's abrupt edges crosses -50 dB up to a few dozen frames
        // beyond them, so within 64 frames.
        XCTAssertEqual(Double(kept.last - kept.first + 1), 45099 * 48000 / 44100, accuracy: 64)
    }

    func testASilentItemKeepsItsFirstKeepWithAWarning() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        // A 1 kHz sine at -60 dBFS: below the -50 dB threshold throughout.
        try sox(["-r", "44100", "-c", "1", "-n", "-b", "16", work + "/src/quiet.wav", "synth", "1", "sine", "1000", "vol", "0.001"])
        let (result, records) = try run("src", "AVFormatIDKey: kAudioFormatLinearPCM, trim: { keep: 0.25s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try Tool.run("soxi", ["-s", work + "/out/quiet.wav"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "11025")
        let warnings = (records.first?["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("silent throughout (no sample above -50 dB): trimmed to its first 0.25 s") }, "\(warnings)")
    }

    func testLossyAACKeepsTheTrimmedDurationWithinItsPadding() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try makeStereoSource(work + "/src/tone.wav")
        let source = try decode(work + "/src/tone.wav")
        let sound = try XCTUnwrap(loud(source.samples, channels: 2, above: threshold))
        let expected = min(94100, sound.last + 1 + 11025) - max(0, sound.first - 11025)
        let (result, _) = try run("src", "AVFormatIDKey: kAudioFormatMPEG4AAC, trim: { keep: 0.25s }", name: "{stem}.m4a")
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = work + "/out/tone.m4a"
        // The container's duration is the trimmed length (the edit list hides AAC's 1024-frame
        // priming): within half a millisecond.
        let probed = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", output])
        XCTAssertEqual(Double(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, Double(expected) / 44100, accuracy: 0.0005)
        // FFmpeg's decode drops the priming and keeps the last frame's padding: at least the trimmed
        // length and less than two 1024-frame AAC frames more.
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", output, "-f", "f32le", "-"])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let frames = decoded.data.count / 8
        XCTAssertGreaterThanOrEqual(frames, expected)
        XCTAssertLessThan(frames, expected + 2048)
    }

    // MARK: fades

    /// For each curve, every frame of the output is the input times the curve's gain (numpy, from
    /// sox's raw decode), and the output is what `sox … fade TYPE` makes of the same input.
    func testFadeGainsFollowEachCurveAndMatchSox() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        // 49234 frames of stereo noise at 48 kHz: fade-in 4800 frames (past the first 4096-frame
        // block), fade-out 12000 from frame 37234 (inside block 10).
        let input = work + "/src/noise.wav"
        try sox(["-r", "48000", "-c", "2", "-n", "-b", "24", input, "synth", "49234s", "whitenoise", "vol", "0.5"])
        let check = """
            import subprocess, sys, json, numpy as np
            def raw(p):
                data = subprocess.run(["sox", p, "-t", "s32", "-"], check=True, capture_output=True).stdout
                return np.frombuffer(data, dtype="<i4").astype(np.float64).reshape(-1, 2) / 2.0**31
            x, y = raw(sys.argv[1]), raw(sys.argv[2])
            N, M, curve = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
            g = {"linear": lambda t: t, "log": lambda t: 10 ** (-5 * (1 - t)), "sCurve": lambda t: (1 - np.cos(np.pi * t)) / 2}[curve]
            L = len(x); k = np.arange(L); gain = np.ones(L)
            gain[:N] *= g(k[:N] / N); gain[L - M:] *= g((L - k[L - M:]) / M)
            print(json.dumps({"frames": len(y), "maxError": float(np.abs(y - x * gain[:, None]).max()) if len(y) == L else 1.0}))
            """
        try check.write(toFile: work + "/check.py", atomically: true, encoding: .utf8)
        for (curve, soxType) in [("linear", "t"), ("log", "l"), ("sCurve", "h")] {
            let (result, records) = try run("src", "AVFormatIDKey: kAudioFormatLinearPCM, fade: { in: 0.1s, out: 250ms, curve: \(curve) }")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual((records.first?["warnings"] as? [String]) ?? [], [])
            let output = work + "/out/noise.wav"
            let measured = try Tool.run("/usr/bin/python3", [work + "/check.py", input, output, "4800", "12000", curve])
            XCTAssertEqual(measured.status, 0, measured.stderr)
            let numbers = try XCTUnwrap(try JSONSerialization.jsonObject(with: measured.data) as? [String: Double], measured.stdout)
            XCTAssertEqual(numbers["frames"], 49234)
            // 24-bit output, one step 2^-23: libsndfile converts a float to 24 bits through a 32-bit
            // integer and drops the low byte (a floor: under one step), and the gain and product
            // are Floats (each rounding under 2^-25 here): within 1.25 steps.
            XCTAssertLessThanOrEqual(numbers["maxError"] ?? 1, 1.25 * pow(2, -23), curve)

            let reference = work + "/sox-\(curve).wav"
            try sox(["-D", input, reference, "fade", soxType, "4800s", "49234s", "12000s"])
            let ours = try decode(output).samples, theirs = try decode(reference).samples
            XCTAssertEqual(ours.count, theirs.count)
            // The same product taken to 24 bits by libsndfile's floor (under one step) and by sox's
            // rounding (half a step), plus the Float roundings: within 1.5 steps.
            let worst = zip(ours, theirs).map { abs(Double($0) - Double($1)) }.max() ?? 1
            XCTAssertLessThanOrEqual(worst, 1.5 * pow(2, -23), curve)
        }
    }

    func testFadeWithResamplingIsPlacedAtTheOutputRate() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try sox(["-r", "44100", "-c", "1", "-n", "-b", "24", work + "/src/tone.wav", "synth", "1.5", "sine", "440", "vol", "0.5"])
        let settings = "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, AVSampleRateKey: 48000"
        XCTAssertEqual(try run("src", settings).result.status, 0)
        let plain = try decode(work + "/out/tone.wav").samples
        let (result, _) = try run("src", settings + ", fade: { in: 0.05s, out: 0.1s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let faded = try decode(work + "/out/tone.wav").samples
        XCTAssertEqual(faded.count, plain.count)
        // 0.05 s and 0.1 s are 2400 and 4800 frames of 48 kHz; the gain is the linear formula of
        // each frame's position at that rate, to Float precision.
        let length = plain.count, fadeIn = 2400, fadeOut = 4800
        for k in 0..<length {
            var gain = 1.0
            if k < fadeIn { gain *= Double(k) / Double(fadeIn) }
            if k >= length - fadeOut { gain *= Double(length - k) / Double(fadeOut) }
            XCTAssertEqual(Double(faded[k]), Double(plain[k]) * gain, accuracy: 1e-7, "frame \(k)")
        }
    }

    func testFadesLongerThanTheItemAreShortenedInProportionWithAWarning() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let input = work + "/src/noise.wav"
        try sox(["-r", "48000", "-c", "1", "-n", "-b", "24", input, "synth", "48000s", "whitenoise", "vol", "0.5"])
        let (result, records) = try run("src", "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, "
                                        + "fade: { in: 0.8s, out: 0.6s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = (records.first?["warnings"] as? [String]) ?? []
        // 38400 + 28800 frames asked of 48000: shortened by 48000/67200 to 27428 + 20572.
        let fadeIn = 38400 * 48000 / 67200, fadeOut = 48000 - fadeIn
        XCTAssertEqual(fadeIn, 27428)
        XCTAssertTrue(warnings.contains { $0 == "fade-in 0.8 s + fade-out 0.6 s is longer than the item (1 s): shortened to 0.571 s + 0.429 s, meeting without overlap" },
                      "\(warnings)")
        let x = try decode(input).samples, y = try decode(work + "/out/noise.wav").samples
        XCTAssertEqual(y.count, 48000)
        for k in stride(from: 0, to: 48000, by: 7) {
            let gain = k < fadeIn ? Double(k) / Double(fadeIn) : Double(48000 - k) / Double(fadeOut)
            XCTAssertEqual(Double(y[k]), Double(x[k]) * gain, accuracy: 1e-7, "frame \(k)")
        }
    }

    // MARK: real-world files

    /// Files other people's encoders made (Debian's alsa-utils WAV, the freedesktop sound theme's
    /// Vorbis): the trim lands where the formula puts it on sox's decode of the file.
    func testRealWorldFilesTrimWhereTheFormulaSays() throws {
        let corpus = RealWorldAudioCorpusTests.corpus
        XCTAssertEqual(corpus.status, 0, corpus.stderr)
        let wav = corpus.path + "/alsa-utils/usr/share/sounds/alsa/Front_Center.wav"
        let oga = corpus.path + "/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/complete.oga"
        for file in [wav, oga] {
            guard FileManager.default.fileExists(atPath: file) else { return XCTFail("missing \(file)") }
        }
        // 16-bit mono 48 kHz speech: bit-exact slice (keep 10 ms = 480 frames; the file's own
        // silences are 954 frames before the speech and 2933 after, so both ends are cut).
        var (result, _) = try run(wav, "AVFormatIDKey: kAudioFormatLinearPCM, trim: { keep: 10ms }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let source = try decode(wav), output = try decode(work + "/out/Front_Center.wav")
        let sound = try XCTUnwrap(loud(source.samples, channels: 1, above: threshold))
        let total = source.samples.count
        let cut = (max(0, sound.first - 480), min(total, sound.last + 1 + 480))
        XCTAssertTrue(cut.0 > 0 && cut.1 < total, "both ends cut: \(cut) of \(total)")
        XCTAssertTrue(output.samples == frames(source.samples, channels: 1, cut.0, cut.1),
                      "\(output.samples.count) frames, expected \(cut.1 - cut.0)")

        // Vorbis, stereo 44.1 kHz: Medley decodes it with FFmpeg, sox with libvorbis; the two float
        // decoders agree within one 16-bit step, so on sox's decode the first loud frame Medley sees
        // lies between the first above (threshold − step) and the first above (threshold + step),
        // and likewise the last. On Medley's own float output the edges are exact: the first
        // frame above -50 dB is frame `keep` (0.004 s = 176 frames), the last is `keep` from the end.
        (result, _) = try run(oga, "AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, trim: { keep: 4ms }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let vorbis = try decode(oga), trimmed = try decode(work + "/out/complete.wav")
        let step = 1.0 / 32768
        let loose = try XCTUnwrap(loud(vorbis.samples, channels: 2, above: threshold - step))
        let strict = try XCTUnwrap(loud(vorbis.samples, channels: 2, above: threshold + step))
        let length = trimmed.samples.count / 2
        XCTAssertTrue((strict.last - strict.first + 1 + 352)...(loose.last - loose.first + 1 + 352) ~= length,
                      "\(length) frames; sound from \(loose.first)…\(strict.first) to \(strict.last)…\(loose.last)")
        let edges = try XCTUnwrap(loud(trimmed.samples, channels: 2, above: threshold))
        XCTAssertEqual(edges.first, 176)
        XCTAssertEqual(edges.last, length - 1 - 176)
        // The kept frames are the file's audio from the cut on: libvorbis' samples within one 16-bit step.
        func matches(at offset: Int) -> Bool {
            guard offset >= 0, offset + length <= vorbis.samples.count / 2 else { return false }
            let slice = vorbis.samples[(2 * offset)...]
            return zip(trimmed.samples, slice).allSatisfy { (ours: Float, theirs: Float) -> Bool in Double(abs(ours - theirs)) <= step }
        }
        let first = loose.first - 176, last = strict.first - 176
        let start = (first...last).first(where: matches(at:))
        XCTAssertNotNil(start, "no cut within the decoders' tolerance matches sox's decode")
    }

    // MARK: movies

    /// A movie re-encoded by a job that trims and fades: its sound is re-encoded whole (the
    /// movie path does not edit audio), and the item says so rather than passing it silently.
    func testAMovieReencodeSaysTheTrimAndFadeWereNotApplied() throws {
        try FileManager.default.createDirectory(atPath: work + "/clips", withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100",
            "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", work + "/clips/clip.mp4"]).status, 0)
        let (result, records) = try run("clips", "videoQuality: typeLow, fade: { out: 0.5s }", name: "{stem}.mp4")
        XCTAssertEqual(result.status, 0, result.stderr)
        let warnings = (records.first?["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains("trim and fade apply to audio items; this movie's sound was re-encoded without them"), "\(warnings)")
    }
}
