import Foundation
import XCTest

/// `medley probe --loudness` (libebur128 behind `LoudnessMeter`) against the EBU's published
/// conformance cases — Tech 3341 (loudness, gating) and Tech 3342 (loudness range), their tone
/// sequences made here with sox — against a formula for the true peak, and against FFmpeg's own
/// `ebur128` filter (an implementation independent of libebur128) on the same files, generated
/// and real (the Debian audio corpus the RealWorldAudio tests use).
///
/// FFmpeg prints its summary to 0.1; Medley gives 0.01. A comparison with FFmpeg therefore allows
/// the stated tolerance plus 0.05 for FFmpeg's rounding.
final class LoudnessConformanceTests: EndToEndCase {
    /// What FFmpeg's `ebur128=peak=sample+true` says of a file (its Summary). Silence reads −70 LUFS
    /// (FFmpeg's floor) and −inf peaks.
    struct FFmpegLoudness {
        var integrated: Double
        var range: Double
        var samplePeak: Double
        var truePeak: Double
    }

    static func ffmpegLoudness(_ path: String) throws -> FFmpegLoudness {
        let result = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=sample+true",
                                             "-f", "null", "-"])
        guard result.status == 0, let start = result.stderr.range(of: "Summary:", options: .backwards) else {
            throw NSError(domain: "ffmpeg", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        var section = "", values: [String: Double] = [:]
        for line in result.stderr[start.upperBound...].split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasSuffix(":") { section = text; continue }
            let words = text.split(separator: " ")
            guard words.count >= 2, ["I:", "LRA:", "Peak:"].contains(String(words[0])),
                  let value = Double(words[1]) else { continue }
            values[section + String(words[0])] = value
        }
        guard let integrated = values["Integrated loudness:I:"], let range = values["Loudness range:LRA:"],
              let sample = values["Sample peak:Peak:"], let truePeak = values["True peak:Peak:"] else {
            throw NSError(domain: "ffmpeg", code: 0, userInfo: [NSLocalizedDescriptionKey: "no summary in: " + result.stderr])
        }
        return FFmpegLoudness(integrated: integrated, range: range, samplePeak: sample, truePeak: truePeak)
    }

    /// `medley probe --loudness --json` of files, in the order given; status and stderr beside.
    static func probe(_ paths: [String]) throws -> (objects: [[String: Any]], status: Int32, stderr: String) {
        let result = try Tool.medley(["probe", "--loudness", "--json"] + paths)
        let objects = (try? JSONSerialization.jsonObject(with: result.data)) as? [[String: Any]] ?? []
        return (objects, result.status, result.stderr)
    }

    static func probe(_ path: String) throws -> [String: Any] {
        let result = try probe([path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(result.objects.first, result.stderr)
    }

    /// A 1 kHz stereo sine (both channels) at 48 kHz, 24-bit, as a sequence of (seconds, dBFS peak)
    /// segments, as the EBU cases are written; sox's `vol -XdB` scales its full-scale sine.
    func toneSequence(_ name: String, _ segments: [(seconds: Double, level: Double)], rate: Int = 48000) throws -> String {
        var parts: [String] = []
        for (index, segment) in segments.enumerated() {
            let part = work + "/\(name)-\(index).wav"
            let made = try Tool.run("sox", ["-n", "-r", "\(rate)", "-c", "2", "-b", "24", part, "synth", "\(segment.seconds)",
                                            "sine", "1000", "vol", "\(segment.level)dB"])
            XCTAssertEqual(made.status, 0, made.stderr)
            parts.append(part)
        }
        let path = work + "/\(name).wav"
        if parts.count == 1 {
            try FileManager.default.moveItem(atPath: parts[0], toPath: path)
        } else {
            let joined = try Tool.run("sox", parts + [path])
            XCTAssertEqual(joined.status, 0, joined.stderr)
            for part in parts { try? FileManager.default.removeItem(atPath: part) }
        }
        return path
    }

    func number(_ object: [String: Any], _ key: String, _ context: String) throws -> Double {
        try XCTUnwrap(object[key] as? Double, "\(context): no \(key) in \(object)")
    }

    /// EBU Tech 3341 (v4) §2.9 cases 1–5: stationary tones and the absolute (−70 LUFS) and relative
    /// (−10 LU) gates. The spec's expected integrated loudness, ±0.1 LU as it allows; FFmpeg's filter
    /// within the same (plus its rounding).
    func testTech3341CasesOneToFiveReadThePublishedLoudness() throws {
        let cases: [(name: String, segments: [(Double, Double)], expected: Double)] = [
            ("3341-case1", [(20, -23)], -23),
            ("3341-case2", [(20, -33)], -33),
            ("3341-case3", [(10, -36), (60, -23), (10, -36)], -23),
            ("3341-case4", [(10, -72), (10, -36), (60, -23), (10, -36), (10, -72)], -23),
            ("3341-case5", [(20, -26), (20.1, -20), (20, -26)], -23),
        ]
        for test in cases {
            let path = try toneSequence(test.name, test.segments)
            let medley = try Self.probe(path), ffmpeg = try Self.ffmpegLoudness(path)
            let integrated = try number(medley, "integratedLoudness", test.name)
            XCTAssertEqual(integrated, test.expected, accuracy: 0.1, test.name)
            XCTAssertEqual(integrated, ffmpeg.integrated, accuracy: 0.15, "\(test.name) vs ffmpeg")
            // The loudest segment's peak is the sample peak: a 1 kHz sine at 48 kHz has a sample at
            // its crest (every 48th), so the sample peak is the level written, to 24-bit precision.
            let loudest = test.segments.map(\.1).max() ?? 0
            XCTAssertEqual(try number(medley, "samplePeak", test.name), loudest, accuracy: 0.01, test.name)
            XCTAssertEqual(try number(medley, "samplePeak", test.name), ffmpeg.samplePeak, accuracy: 0.06, "\(test.name) vs ffmpeg")
            // A 1 kHz tone has no inter-sample overs to speak of: true peak = sample peak ±0.1 dB.
            XCTAssertEqual(try number(medley, "truePeak", test.name), loudest, accuracy: 0.1, test.name)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// EBU Tech 3341 case 6: five channels (L, R −28 dBFS; C −24; Ls, Rs −30), surround weighted
    /// +1.5 dB (×1.41) by BS.1770: −23.0 LUFS. The expected value is also computed here from the
    /// formula: each channel's mean square of a sine (A²/2) through the K-weighting's gain at 1 kHz.
    func testTech3341CaseSixWeightsTheSurroundChannels() throws {
        let levels: [Double] = [-28, -28, -24, -30, -30]
        var monos: [String] = []
        for (index, level) in levels.enumerated() {
            let mono = work + "/ch\(index).wav"
            let made = try Tool.run("sox", ["-n", "-r", "48000", "-c", "1", "-b", "24", mono, "synth", "20", "sine", "1000",
                                            "vol", "\(level)dB"])
            XCTAssertEqual(made.status, 0, made.stderr)
            monos.append(mono)
        }
        let path = work + "/3341-case6.wav"
        let merged = try Tool.run("sox", ["-M"] + monos + [path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        // BS.1770: L = −0.691 + 10·log10 Σ Gᵢ·zᵢ; the K-weighting's gain at 1 kHz is +0.691 dB
        // (by design: a 1 kHz tone reads its RMS level), so each zᵢ = (A²/2)·10^(0.0691).
        let weights: [Double] = [1, 1, 1, 1.41, 1.41]
        let sum = zip(levels, weights).map { level, weight in weight * pow(10, level / 10) / 2 * pow(10, 0.0691) }.reduce(0, +)
        let formula = -0.691 + 10 * log10(sum)
        XCTAssertEqual(formula, -23, accuracy: 0.1, "the spec's case is −23 LUFS")
        let medley = try Self.probe(path)
        XCTAssertEqual(try number(medley, "integratedLoudness", "case 6"), formula, accuracy: 0.1)
        XCTAssertEqual(try number(medley, "integratedLoudness", "case 6"), try Self.ffmpegLoudness(path).integrated, accuracy: 0.15)
    }

    /// EBU Tech 3342 (v4) cases 1–4: tone sequences whose loudness range is published (10, 5, 20,
    /// 15 LU, ±1 LU as the spec allows). FFmpeg's filter implements the same short-term gating: the
    /// two agree within 0.1 LU (plus its rounding).
    func testTech3342CasesOneToFourReadThePublishedLoudnessRange() throws {
        let cases: [(name: String, segments: [(Double, Double)], expected: Double)] = [
            ("3342-case1", [(20, -20), (20, -30)], 10),
            ("3342-case2", [(20, -20), (20, -15)], 5),
            ("3342-case3", [(20, -40), (20, -20)], 20),
            ("3342-case4", [(20, -50), (20, -35), (20, -20), (20, -35), (20, -50)], 15),
        ]
        for test in cases {
            let path = try toneSequence(test.name, test.segments)
            let medley = try Self.probe(path), ffmpeg = try Self.ffmpegLoudness(path)
            let range = try number(medley, "loudnessRange", test.name)
            XCTAssertEqual(range, test.expected, accuracy: 1, test.name)
            XCTAssertEqual(range, ffmpeg.range, accuracy: 0.15, "\(test.name) vs ffmpeg")
            XCTAssertEqual(try number(medley, "integratedLoudness", test.name), ffmpeg.integrated, accuracy: 0.15, "\(test.name) vs ffmpeg")
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// True peak: a sine at a quarter of the sample rate starting at 45° is sampled only at ±A·cos 45°
    /// (every sample at 45°, 135°, 225°, 315°), so its sample peak is A·cos 45° (−3.01 dB below A)
    /// while the waveform between the samples reaches A. Made with numpy as 32-bit float (A = 1:
    /// the inter-sample over that clips a D/A converter). libebur128's 4× oversampling must find A
    /// within 0.2 dB. FFmpeg's filter (192 kHz through swresample) overshoots this signal: it reads
    /// A + 0.6 dB at both rates and both amplitudes, so here it is checked only to lie above the
    /// sample peak and within 0.7 dB of A — the formula, not FFmpeg, is the reference for this case.
    func testTruePeakFindsTheCrestBetweenSamplesOfAQuarterRateSine() throws {
        for (rate, amplitude) in [(48000, 1.0), (44100, 1.0), (48000, 0.5)] {
            let raw = work + "/quarter.f32", path = work + "/quarter-\(rate)-\(amplitude).wav"
            let script = """
                import numpy as np, sys
                rate, a = int(sys.argv[1]), float(sys.argv[2])
                n = np.arange(rate * 5)
                x = (a * np.sin(2 * np.pi * (rate / 4) * n / rate + np.pi / 4)).astype('<f4')
                np.repeat(x, 2).tofile(sys.argv[3])
                """
            let made = try Tool.run("/usr/bin/python3", ["-c", script, "\(rate)", "\(amplitude)", raw])
            XCTAssertEqual(made.status, 0, made.stderr)
            let wav = try Tool.run("sox", ["-t", "f32", "-r", "\(rate)", "-c", "2", raw, "-e", "floating-point", "-b", "32", path])
            XCTAssertEqual(wav.status, 0, wav.stderr)
            let crest = 20 * log10(amplitude), sampled = 20 * log10(amplitude * cos(Double.pi / 4))
            let medley = try Self.probe(path), ffmpeg = try Self.ffmpegLoudness(path)
            let context = "\(rate) Hz, A = \(amplitude)"
            XCTAssertEqual(try number(medley, "samplePeak", context), sampled, accuracy: 0.01, context)
            XCTAssertEqual(try number(medley, "truePeak", context), crest, accuracy: 0.2, context)
            XCTAssertEqual(ffmpeg.samplePeak, sampled, accuracy: 0.06, "ffmpeg, " + context)
            XCTAssertEqual(ffmpeg.truePeak, crest, accuracy: 0.7 + 0.05, "ffmpeg, " + context)
            XCTAssertGreaterThan(ffmpeg.truePeak, sampled + 2, "ffmpeg, " + context)
        }
    }

    /// What has no value is said, not made up: digital silence has no integrated loudness (FFmpeg
    /// prints its −70 floor) and no peak; a stream under one 400 ms gating block has no integrated
    /// loudness either. A file that cannot be decoded fails with its reason, and the others are
    /// still measured.
    func testSilenceShortFilesAndUndecodableFilesAreSaidNotMadeUp() throws {
        let silent = work + "/silent.wav", short = work + "/short.wav", broken = work + "/broken.wav"
        XCTAssertEqual(try Tool.run("sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", silent, "trim", "0", "3"]).status, 0)
        XCTAssertEqual(try Tool.run("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", short, "synth", "0.2", "sine", "1000",
                                            "vol", "-6dB"]).status, 0)
        // A RIFF/WAVE header whose format chunk says 0 channels.
        var bytes = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 0, 0]
        bytes += [0x80, 0xBB, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0] + Array("data".utf8) + [0, 0, 0, 0]
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        XCTAssertEqual(try Self.ffmpegLoudness(silent).integrated, -70, "ffmpeg's floor for silence")

        let result = try Self.probe([silent, broken, short])
        XCTAssertEqual(result.status, 1, "one file could not be read")
        XCTAssertTrue(result.stderr.contains("broken.wav: "), result.stderr)
        XCTAssertEqual(result.objects.count, 2, "the other files are still measured")
        let silence = try XCTUnwrap(result.objects.first)
        XCTAssertNil(silence["integratedLoudness"])
        XCTAssertNil(silence["samplePeak"])
        XCTAssertNil(silence["truePeak"])
        XCTAssertEqual(silence["loudnessRange"] as? Double, 0)
        let silenceNote = try XCTUnwrap(silence["loudnessNote"] as? String)
        XCTAssertTrue(silenceNote.contains("no integrated loudness") && silenceNote.contains("digital silence"), silenceNote)
        let brief = try XCTUnwrap(result.objects.last)
        XCTAssertNil(brief["integratedLoudness"])
        XCTAssertTrue((brief["loudnessNote"] as? String ?? "").contains("shorter than one 400 ms block"), "\(brief)")
        // Its peak is still measured: the sine's crest, −6 dBFS.
        XCTAssertEqual(try number(brief, "samplePeak", "short"), -6, accuracy: 0.01)
        XCTAssertEqual(try number(brief, "samplePeak", "short"), try Self.ffmpegLoudness(short).samplePeak, accuracy: 0.06)
    }

    /// The Debian audio corpus (other people's encoders: Vorbis .oga at 8–96 kHz, WAV), field by
    /// field against FFmpeg's filter on the same file (both decode through libavcodec here).
    /// Tolerances, each plus FFmpeg's 0.05 rounding:
    /// - integrated 0.1 LU (two implementations of one spec on one signal). Below 16 kHz 0.3 LU:
    ///   FFmpeg's filter runs only at 48 kHz (its K-weighting has fixed 48 kHz coefficients) and
    ///   resamples, and at an 8 kHz rate the K-weighting's +4 dB shelf sits at the band edge where
    ///   resamplers differ (sox's and swresample's 48 kHz copies of the corpus' 8 kHz file move
    ///   Medley's own reading by 0.27 LU).
    /// - loudness range 0.2 LU; 0.6 LU for files under 10 s, where FFmpeg also counts the 3 s
    ///   short-term windows still filling at the start (libebur128 only full ones): the corpus'
    ///   6.1 s `alarm-clock-elapsed.oga` reads 0.02 LU here and 0.5 LU there, five copies of it
    ///   end to end 0.3 and 0.4.
    /// - sample peak 0.01 dB (a maximum of the same samples); true peak 0.2 dB (libebur128
    ///   interpolates with a polyphase FIR, FFmpeg resamples to 192 kHz: two estimates of the crest).
    /// - a file under one 400 ms block: no integrated loudness here, FFmpeg's −70 floor there.
    func testDebianCorpusAgreesWithFFmpegFieldByField() throws {
        let corpus = RealWorldAudioCorpusTests.corpus
        XCTAssertEqual(corpus.status, 0, corpus.stderr)
        let files = Tool.files(under: corpus.path).filter { !$0.hasSuffix(".done") }.map { corpus.path + "/" + $0 }
        XCTAssertGreaterThanOrEqual(files.count, 60)
        let probed = try Self.probe(files)
        XCTAssertEqual(probed.status, 0, probed.stderr)
        XCTAssertEqual(probed.objects.count, files.count)
        var agree = 0, short = 0, rates = Set<Int>()
        var disagreements: [String] = []
        for (file, medley) in zip(files, probed.objects) {
            let name = (file as NSString).lastPathComponent
            let ffmpeg = try Self.ffmpegLoudness(file)
            let rate = try XCTUnwrap(medley["sampleRate"] as? Int, name)
            let duration = try XCTUnwrap(medley["playbackDuration"] as? Double, name)
            rates.insert(rate)
            var differs: [String] = []
            if let integrated = medley["integratedLoudness"] as? Double {
                if abs(integrated - ffmpeg.integrated) > (rate < 16000 ? 0.3 : 0.1) + 0.05 {
                    differs.append("integrated \(integrated) vs \(ffmpeg.integrated)")
                }
            } else {
                short += 1
                if duration >= 0.4 || ffmpeg.integrated != -70 { differs.append("no integrated loudness, ffmpeg \(ffmpeg.integrated)") }
            }
            let range = try number(medley, "loudnessRange", name)
            if abs(range - ffmpeg.range) > (duration < 10 ? 0.6 : 0.2) + 0.05 { differs.append("LRA \(range) vs \(ffmpeg.range)") }
            let sample = try number(medley, "samplePeak", name), truePeak = try number(medley, "truePeak", name)
            if abs(sample - ffmpeg.samplePeak) > 0.01 + 0.05 { differs.append("sample peak \(sample) vs \(ffmpeg.samplePeak)") }
            if abs(truePeak - ffmpeg.truePeak) > 0.2 + 0.05 { differs.append("true peak \(truePeak) vs \(ffmpeg.truePeak)") }
            if differs.isEmpty { agree += 1 } else { disagreements.append("\(name) (\(rate) Hz, \(duration) s): " + differs.joined(separator: ", ")) }
        }
        print("loudness vs ffmpeg ebur128: \(agree) of \(files.count) files agree (\(short) under 400 ms); rates \(rates.sorted())")
        XCTAssertEqual(agree, files.count, disagreements.joined(separator: "\n"))
        XCTAssertTrue(rates.isSuperset(of: [8000, 16000, 44100, 48000]), "the corpus' rates: \(rates.sorted())")
        XCTAssertGreaterThan(short, 0, "the corpus has clips under 400 ms")
    }
}
