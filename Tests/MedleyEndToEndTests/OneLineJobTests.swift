import Foundation
import XCTest

/// One-line jobs (`medley run -i … -o … --filter … --resize … --format …`, `--transcode aac --bit-rate 128k`):
/// outputs checked against peers (vipsthumbnail for sizes and resampling, the sepia formula of
/// `Reference` for the tone, ffprobe for the AAC stream), `--print-pipeline` run as a file giving the
/// same bytes, and a bad flag value named at its flag before anything is written.
final class OneLineJobTests: EndToEndCase {
    /// A smooth 1200×900 landscape and a 500×700 portrait (ImageMagick's plasma, blurred so that two
    /// good resamplers agree closely), in `work/photos`.
    func makePhotos() throws {
        try FileManager.default.createDirectory(atPath: work + "/photos", withIntermediateDirectories: true)
        for (name, size, seed) in [("wide.png", "1200x900", "7"), ("tall.png", "500x700", "11")] {
            let made = try Tool.run("convert", ["-size", size, "-seed", seed, "plasma:", "-blur", "0x6", "-depth", "8",
                                                "PNG24:" + work + "/photos/" + name])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
    }

    /// Two WAVs of different rates in `work/wavs`.
    func makeWavs() throws {
        try FileManager.default.createDirectory(atPath: work + "/wavs", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/audio/sine-1k-44100-stereo.wav", toPath: work + "/wavs/sine.wav")
        let made = try Tool.run("sox", ["-n", "-r", "48000", "-c", "2", "-b", "16", work + "/wavs/chirp.wav",
                                        "synth", "3", "sine", "200-4000", "gain", "-6"])
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    /// `medley ARGUMENTS` run in the scratch folder, so relative paths are as a user types them.
    func medley(_ arguments: [String]) throws -> Tool.Result {
        try Tool.run(Tool.medley, arguments, in: work)
    }

    static let sepiaLine = ["run", "-i", "photos/", "-o", "web/", "--filter", "CISepiaTone inputIntensity=0.8",
                            "--resize", "800", "--format", "webp"]
    static let aacLine = ["run", "-i", "wavs/", "-o", "aac/", "--transcode", "aac", "--bit-rate", "128k"]

    // MARK: outputs against peers

    func testSepiaResizeWebPMatchesVipsthumbnailAndTheSepiaFormula() throws {
        try makePhotos()
        let result = try medley(Self.sepiaLine + ["--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for name in ["wide", "tall"] {
            let output = work + "/web/\(name).webp"
            XCTAssertEqual(try Tool.vipsHeader(output, "vips-loader"), "webpload", "\(name): written as WebP")
            // The peer: vipsthumbnail to a width of 800 (its "800x"; sharp's resize(800), mogrify -resize 800),
            // saved losslessly, then toned by the formula.
            let reference = work + "/\(name)-ref.png"
            let thumbnail = try Tool.run("vipsthumbnail", [work + "/photos/\(name).png", "-s", "800x", "-o", reference])
            XCTAssertEqual(thumbnail.status, 0, thumbnail.stderr)
            let peer = try Tool.pixels(reference)
            let ours = try Tool.pixels(output)
            XCTAssertEqual([ours.width, ours.height], [peer.width, peer.height], "\(name): the size vipsthumbnail -s 800x makes")
            XCTAssertEqual(ours.width, 800)
            guard ours.samples.count == peer.samples.count else { return }
            var total = 0.0, worst = 0.0, count = 0
            // Every 5th pixel (a debug build's loop over all of them is slow; the picture is smooth).
            for p in stride(from: 0, to: peer.samples.count, by: 3 * 5) {
                count += 3
                let expected = Reference.sepia(Array(peer.samples[p..<p + 3]), intensity: 0.8)
                for c in 0..<3 {
                    let difference = abs(Double(ours.samples[p + c]) - expected[c])
                    total += difference
                    worst = max(worst, difference)
                }
            }
            // Lossy WebP (quality 75 by default, 4:2:0 chroma) against a lossless reference: about 1 on average,
            // 7 at most. Toning at 0.6 instead of 0.8 measured a mean of 3.4 and a largest difference of 19.
            let mean = total / Double(count)
            print("\(name): mean difference \(mean), largest \(worst) (8-bit steps)")
            XCTAssertLessThan(mean, 2.0, "\(name): mean difference from vipsthumbnail + the sepia formula, in 8-bit steps")
            XCTAssertLessThan(worst, 12, "\(name): largest difference")
        }
    }

    func testResizeFormsMatchVipsthumbnailSizes() throws {
        try makePhotos()
        // (one-line --resize, vipsthumbnail arguments): each mode of the resize stage against the peer's own geometry.
        let cases: [(String, [String])] = [
            ("300x300", ["-s", "300x300"]),           // aspectFit: inside the box
            ("x300", ["-s", "x300"]),                 // a height, the width follows
            ("2000x2000>", ["-s", "2000x2000>"]),     // shrink only: stays as it is
            ("300x200^", ["-s", "300x200", "-m", "centre"]),  // cover the box, crop the centre
            ("300x200!", ["-s", "300x200!"]),         // stretch to the box
        ]
        for (index, (size, peerArguments)) in cases.enumerated() {
            let folder = "out\(index)"
            let result = try medley(["run", "-i", "photos/", "-o", folder, "--resize", size, "--format", "png", "--quiet"])
            XCTAssertEqual(result.status, 0, "--resize \(size): \(result.stderr)")
            for name in ["wide", "tall"] {
                let reference = work + "/\(name)-\(index)-ref.png"
                let peer = try Tool.run("vipsthumbnail", [work + "/photos/\(name).png"] + peerArguments + ["-o", reference])
                XCTAssertEqual(peer.status, 0, peer.stderr)
                let ours = try ["width", "height"].map { try Tool.vipsHeader(work + "/\(folder)/\(name).png", $0) }
                let theirs = try ["width", "height"].map { try Tool.vipsHeader(reference, $0) }
                XCTAssertEqual(ours, theirs, "--resize \(size) on \(name) against vipsthumbnail \(peerArguments.joined(separator: " "))")
            }
        }
    }

    func testAACOneLinerIsAACAtTheBitRateWithTheSourceRateAndChannels() throws {
        try makeWavs()
        let result = try medley(Self.aacLine + ["--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for (name, rate) in [("sine", 44100), ("chirp", 48000)] {
            let stream = try probe(work + "/aac/\(name).m4a")
            XCTAssertEqual(stream["codec_name"], "aac", name)
            XCTAssertEqual(stream["sample_rate"], String(rate), "\(name): the source's rate is kept")
            XCTAssertEqual(stream["channels"], "2", "\(name): the source's channels are kept")
            let bitRate = Double(stream["bit_rate"] ?? "") ?? 0
            XCTAssertEqual(bitRate, 128_000, accuracy: 128_000 * 0.1, "\(name): 128k within 10 %")
        }
    }

    func testAudioFlagsSetRateChannelsAndBitRate() throws {
        try makeWavs()
        let result = try medley(["run", "-i", "wavs/sine.wav", "-o", "out", "--transcode", "aac", "--bit-rate", "96k",
                                 "--sample-rate", "48k", "--channels", "mono", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let stream = try probe(work + "/out/sine.m4a")
        XCTAssertEqual(stream["codec_name"], "aac")
        XCTAssertEqual(stream["sample_rate"], "48000")
        XCTAssertEqual(stream["channels"], "1")
        XCTAssertEqual(Double(stream["bit_rate"] ?? "") ?? 0, 96_000, accuracy: 9_600)
        // --normalize: the integrated loudness ffmpeg's EBU R128 meter measures in the output.
        let loud = try medley(["run", "-i", "wavs/chirp.wav", "-o", "loud", "--transcode", "aac", "--normalize", "-20LUFS", "--quiet"])
        XCTAssertEqual(loud.status, 0, loud.stderr)
        let meter = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", work + "/loud/chirp.m4a", "-af", "ebur128", "-f", "null", "-"])
        let integrated = meter.stderr.components(separatedBy: "\n").last { $0.contains(" I: ") }?
            .split(separator: " ").compactMap { Double($0) }.first
        XCTAssertEqual(integrated ?? 0, -20, accuracy: 0.5, "ffmpeg ebur128: \(meter.stderr.suffix(400))")
        // --transcode wav: linear PCM in a WAV container, as sox reads it.
        let wav = try medley(["run", "-i", "wavs/chirp.wav", "-o", "pcm", "--transcode", "wav", "--sample-rate", "44100", "--quiet"])
        XCTAssertEqual(wav.status, 0, wav.stderr)
        let type = try Tool.run("soxi", ["-t", work + "/pcm/chirp.wav"])
        XCTAssertEqual(type.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "wav", type.stderr)
        let rate = try Tool.run("soxi", ["-r", work + "/pcm/chirp.wav"])
        XCTAssertEqual(rate.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "44100", rate.stderr)
    }

    // MARK: graduating to a file

    func testPrintedPipelineRunsToTheSameBytesAndManifest() throws {
        try makePhotos()
        try makeWavs()
        for (line, folder) in [(Self.sepiaLine, "web"), (Self.aacLine, "aac")] {
            let first = try medley(line + ["--quiet"])
            XCTAssertEqual(first.status, 0, first.stderr)
            let outputs = try snapshot(folder)
            XCTAssertFalse(outputs.files.isEmpty)
            try FileManager.default.removeItem(atPath: work + "/" + folder)

            let printed = try medley(line + ["--print-pipeline"])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/" + folder), "--print-pipeline runs nothing")
            let file = try pipeline(printed.stdout, name: "mine-\(folder).yaml")
            let valid = try medley(["validate", file])
            XCTAssertEqual(valid.status, 0, valid.stderr)
            let second = try medley(["run", file, "--quiet"])
            XCTAssertEqual(second.status, 0, second.stderr)
            let again = try snapshot(folder)
            XCTAssertEqual(Array(again.files.keys).sorted(), Array(outputs.files.keys).sorted(), "\(folder): the same files")
            for (name, bytes) in outputs.files { XCTAssertEqual(again.files[name], bytes, "\(folder)/\(name): the same bytes") }
            XCTAssertEqual(again.manifest, outputs.manifest, "\(folder): the same manifest lines, less their times")

            // The same run state too: the one-liner after the file finds every item unchanged.
            let third = try medley(line)
            XCTAssertEqual(third.status, 0, third.stderr)
            XCTAssertTrue(third.stderr.contains("0 succeeded, 0 failed, \(outputs.files.count) skipped"), third.stderr)
        }
    }

    func testValuesWithYAMLCharactersReachTheReaderAsTyped() throws {
        try makePhotos()
        // A file name full of what YAML reads as syntax ('#' comments, ': ' keys, quotes, braces), as a glob:
        // only that file is taken if the glob reached the reader unchanged.
        let odd = #"it's a "test": {1} #2.png"#
        try FileManager.default.copyItem(atPath: work + "/photos/tall.png", toPath: work + "/photos/" + odd)
        let result = try medley(["run", "-i", "photos/", "-o", "out", "--include", odd, "--name", "{stem} #copy.{ext}",
                                 "--format", "png", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), [#"it's a "test": {1} #2 #copy.png"#])
        // And the same file printed and read back.
        let printed = try medley(["run", "-i", "photos/", "-o", "out", "--include", odd, "--name", "{stem} #copy.{ext}",
                                  "--format", "png", "--print-pipeline"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let file = try pipeline(printed.stdout, name: "odd.yaml")
        let dry = try medley(["run", file, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("1 skipped") || dry.stderr.contains("unchanged 1"), dry.stderr)
    }

    // MARK: problems at their flags

    func testBadFlagValuesAreNamedAtTheFlagAndNothingIsWritten() throws {
        try makePhotos()
        try makeWavs()
        let cases: [(extra: [String], input: String, flag: String, words: String)] = [
            (["--filter", "CISepiaTone inputIntensity=abc"], "photos/", "--filter 'CISepiaTone inputIntensity=abc'", "inputIntensity"),
            (["--filter", "CISepiaTon inputIntensity=0.8"], "photos/", "--filter 'CISepiaTon inputIntensity=0.8'", "CISepiaTone"),
            (["--quality", "150", "--format", "jpeg"], "photos/", "--quality 150", "1…100"),
            (["--format", "webpp"], "photos/", "--format webpp", "webp"),
            (["--resize", "wide"], "photos/", "--resize wide", "WIDTH"),
            (["--name", "{stemm}.{ext}"], "photos/", "--name '{stemm}.{ext}'", "stem"),
            (["--transcode", "aac", "--bit-rate", "fast"], "wavs/", "--bit-rate fast", "AVEncoderBitRateKey"),
            (["--transcode", "aac", "--sample-rate", "44.2k"], "wavs/", "--sample-rate 44.2k", "AAC cannot be encoded at 44200 Hz"),
            (["--transcode", "aacc"], "wavs/", "--transcode aacc", "aac"),
            (["--transcode", "aac", "--normalize", "-99LUFS"], "wavs/", "--normalize -99LUFS", "LUFS"),
        ]
        for (extra, input, flag, words) in cases {
            let result = try medley(["run", "-i", input, "-o", "never"] + extra)
            XCTAssertEqual(result.status, 2, "\(flag): the validation exit code; \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("medley run: \(flag): "), "\(flag) named: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(flag): says what is wrong: \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("(one-line job):"), "no place in generated YAML: \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/never"), "\(flag): nothing written")
        }
    }

    func testAPipelineFileAndOneLineFlagsTogetherIsAUsageError() throws {
        try makePhotos()
        let file = try pipeline("""
            version: 1
            jobs:
              - name: copy
                ingest: { from: [photos] }
                export: { to: out }
            """)
        let result = try medley(["run", file, "-i", "photos/", "-o", "web/"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("give a pipeline file or one-line flags"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not both"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/web"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
        let missing = try medley(["run", "--resize", "800"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("needs -i INPUT"), missing.stderr)
    }

    func testRunOptionsKeepWorkingWithOneLineJobs() throws {
        try makePhotos()
        let base = ["run", "-i", "photos/", "-o", "web/", "--resize", "200", "--format", "jpeg"]
        let dry = try medley(base + ["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("would write"), dry.stderr)
        XCTAssertTrue(Tool.files(under: work + "/web").isEmpty, "a dry run writes no output")
        let wrongJob = try medley(base + ["--only", "other"])
        XCTAssertEqual(wrongJob.status, 2)
        XCTAssertTrue(wrongJob.stderr.contains("'web'"), wrongJob.stderr)
        // --set changes the flags' pipeline as it changes a file's; --job-name names the job (and its manifest).
        let run = try medley(base + ["--job-name", "small", "--only", "small", "-j", "1", "--set", "small.export.quality=40", "--quiet"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/web/.medley/manifest-small.jsonl"))
        // ImageMagick's estimate of the JPEG quality the file was written at.
        let quality = try Tool.run("identify", ["-format", "%Q", work + "/web/wide.jpg"]).stdout
        XCTAssertEqual(quality, "40")
        XCTAssertEqual(try Tool.vipsHeader(work + "/web/wide.jpg", "width"), "200")
    }

    // MARK: helpers

    /// ffprobe's fields of the first audio stream.
    func probe(_ path: String) throws -> [String: String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                              "stream=codec_name,sample_rate,channels,bit_rate", "-of", "default=noprint_wrappers=1", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    /// The outputs under a folder by relative path, and its manifest's lines without their `finished` times.
    func snapshot(_ folder: String) throws -> (files: [String: Data], manifest: [String]) {
        var files: [String: Data] = [:]
        for name in Tool.files(under: work + "/" + folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: work + "/" + folder + "/" + name))
        }
        let medleyFolder = work + "/" + folder + "/.medley"
        var manifest: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: medleyFolder).sorted() where name.hasPrefix("manifest-") {
            let text = try String(contentsOfFile: medleyFolder + "/" + name, encoding: .utf8)
            manifest += text.split(separator: "\n").map { line in
                line.replacingOccurrences(of: #","finished":"[^"]*""#, with: "", options: .regularExpression)
            }.sorted()
        }
        return (files, manifest)
    }
}
