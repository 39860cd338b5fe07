import Foundation
import XCTest

/// `transcode.segment: {every: T}` through `medley run`, against the peers on the same files: sox's
/// `trim 0 T : newfile : restart` (PCM and FLAC: the same parts, sample for sample), ffmpeg's decode of a
/// real Vorbis file cut at the same sample positions (`atrim`), and the item keys, manifest and reruns.
final class SegmentRunTests: EndToEndCase {
    func run(_ settings: String, name: String? = nil, again: Bool = false) throws -> (result: Tool.Result, records: [[String: Any]]) {
        try runTranscode(settings, name: name, job: "parts", again: again)
    }

    func byItem(_ records: [[String: Any]]) -> [String: [String: Any]] {
        Dictionary(records.compactMap { record in (record["item"] as? String).map { ($0, record) } }, uniquingKeysWith: { first, _ in first })
    }

    func testPartsMatchSoxNewfileSampleForSampleOnPCMAndFLAC() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let wav = work + "/src/talk.wav"
        try makeSource(wav, seconds: 25)
        try sox([wav, work + "/src/lossless.flac"])
        // sox's own split: talk001.wav, talk002.wav, talk003.wav of 10, 10 and 5 s.
        try FileManager.default.createDirectory(atPath: work + "/sox", withIntermediateDirectories: true)
        try sox([wav, work + "/sox/talk.wav", "trim", "0", "10", ":", "newfile", ":", "restart"])
        let expected = try (1...3).map { try soxSamples(work + "/sox/talk00\($0).wav") }
        XCTAssertEqual(expected.map { $0.count / 2 }, [441_000, 441_000, 220_500])

        let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, segment: { every: 10s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records.count, 6)
        let items = byItem(records)
        for stem in ["talk", "lossless"] {
            let ext = stem == "talk" ? "wav" : "flac"
            for part in 1...3 {
                // The default name numbers the parts as ffmpeg's segment muxer does (%03d).
                let output = work + "/out/\(stem)-00\(part).caf"
                let samples = try soxSamples(output)
                XCTAssertEqual(samples.count, expected[part - 1].count, "\(stem) part \(part): samples against sox newfile")
                XCTAssertTrue(samples == expected[part - 1], "\(stem) part \(part): sample values against sox newfile")
                let record = try XCTUnwrap(items["\(stem).\(ext)#segment=\(part)"], "\(stem) part \(part) in the manifest")
                XCTAssertEqual(record["status"] as? String, "succeeded")
                XCTAssertEqual(record["segment"] as? Int, part)
                XCTAssertEqual(record["input"] as? String, work + "/src/\(stem).\(ext)")
                XCTAssertEqual(record["output"] as? String, output)
                XCTAssertEqual(record["duration"] as? Double, part == 3 ? 5 : 10)
            }
        }
        // A second run: every part is unchanged, none written again (the same file, not a new one put in its place).
        func identities() throws -> [String: [FileAttributeKey: Any]] {
            try Dictionary(uniqueKeysWithValues: ["talk", "lossless"].flatMap { stem in (1...3).map { "/out/\(stem)-00\($0).caf" } }.map { name in
                let attributes = try FileManager.default.attributesOfItem(atPath: work + name)
                return (name, attributes.filter { [.systemFileNumber, .modificationDate].contains($0.key) })
            })
        }
        let before = try identities()
        let (again, second) = try run("AVFormatIDKey: kAudioFormatLinearPCM, segment: { every: 10s }", again: true)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(second.count, 6)
        let after = try identities()
        for (name, attributes) in before {
            XCTAssertEqual(attributes[.systemFileNumber] as? Int, after[name]?[.systemFileNumber] as? Int, name)
            XCTAssertEqual(attributes[.modificationDate] as? Date, after[name]?[.modificationDate] as? Date, name)
        }
        // Another length is another split: written again, as the settings changed.
        let (other, third) = try run("AVFormatIDKey: kAudioFormatLinearPCM, segment: { every: 20s }", again: true)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(third.filter { $0["status"] as? String == "succeeded" }.count, 4)
        XCTAssertEqual(try soxSamples(work + "/out/talk-002.caf").count / 2, 5 * 44100)
    }

    func testPartsSplitTheCutAndTakeTheirOwnName() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let wav = work + "/src/talk.wav"
        try makeSource(wav, seconds: 30)
        // The cut 5 s … 27 s in parts of 10 s: 5–15, 15–25, 25–27, as sox trims them.
        let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, cut: { from: 5s, to: 27s }, segment: { every: 10s }",
                                        name: "{stem}/part {segment}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records.count, 3)
        for (part, (from, length)) in [(5, 10), (15, 10), (25, 2)].enumerated() {
            let reference = work + "/sox-\(part).wav"
            try sox([wav, reference, "trim", "\(from)", "\(length)"])
            XCTAssertTrue(try soxSamples(work + "/out/talk/part \(part + 1).wav") == soxSamples(reference), "part \(part + 1) against sox trim \(from) \(length)")
        }
    }

    /// A real file from another encoder (freedesktop's alarm, Vorbis in Ogg): each part holds the samples
    /// ffmpeg decodes at the same positions, and the parts together hold every sample ffmpeg decodes.
    func testARealVorbisFileIsSplitWhereFfmpegDecodesTheSameSamples() throws {
        let corpus = RealWorldAudioCorpusTests.corpus
        XCTAssertEqual(corpus.status, 0, corpus.stderr)
        let real = corpus.path + "/sound-theme-freedesktop/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga"
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: real, toPath: work + "/src/alarm.oga")
        let input = work + "/src/alarm.oga"
        let probe = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", input])
        let fields = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let (rate, channels) = (try XCTUnwrap(fields.first), try XCTUnwrap(fields.last))
        func ffmpegFloats(_ filter: [String]) throws -> [Float] {
            let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", input] + filter + ["-f", "f32le", "-"])
            XCTAssertEqual(decoded.status, 0, decoded.stderr)
            return decoded.data.withUnsafeBytes { bytes in (0..<bytes.count / 4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) } }
        }
        let whole = try ffmpegFloats([]).count / channels
        let every = 2 * rate
        let parts = (whole + every - 1) / every
        XCTAssertGreaterThanOrEqual(parts, 3, "a file of \(whole) frames")

        let (result, records) = try run("AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32, "
                                        + "segment: { every: 2s }", name: "{stem}-{segment}.wav")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(records.count, parts)
        var total = 0
        for part in 1...parts {
            let start = (part - 1) * every, end = min(part * every, whole)
            let expected = try ffmpegFloats(["-af", "atrim=start_sample=\(start):end_sample=\(end)"])
            let output = try soxSamples(work + "/out/alarm-\(part).wav")
            XCTAssertEqual(output.count, expected.count, "part \(part): samples against ffmpeg atrim \(start)…\(end)")
            let worst = zip(output, expected).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThan(worst, 1e-6, "part \(part): sample values against ffmpeg's decode")
            total += output.count / channels
        }
        XCTAssertEqual(total, whole, "the parts hold every frame ffmpeg decodes")
    }

    /// Resampled (44.1 → 48 kHz), the parts are the whole file's conversion cut at multiples of 10 s at
    /// the output rate: each 480,000 frames, and together as many frames as sox's conversion of the whole.
    func testResampledPartsJoinWithoutAGapOrOverlap() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        try makeSource(work + "/src/talk.wav", seconds: 25)
        let (whole, _) = try run("AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48000", name: "{stem}.wav")
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let samples = try soxSamples(work + "/out/talk.wav")
        // The whole conversion: 25 s at 48 kHz (libsamplerate's flush may add a frame).
        XCTAssertEqual(Double(samples.count / 2), 1_200_000, accuracy: 1)
        let (result, _) = try run("AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48000, segment: { every: 10s }")
        XCTAssertEqual(result.status, 0, result.stderr)
        let parts = try (1...3).map { try soxSamples(work + "/out/talk-00\($0).caf") }
        XCTAssertEqual(parts.map { $0.count / 2 }.prefix(2), [480_000, 480_000])
        // Joined, the parts are the whole conversion: no frame missing, none twice.
        XCTAssertTrue(parts.joined().elementsEqual(samples), "the parts joined against the whole file's conversion")
    }

    /// A movie's sound track (H.264 + AAC, made by ffmpeg) in parts of 3 s: 144,000 frames at 48 kHz each, and
    /// together every frame ffmpeg decodes from the movie (`-vn`).
    func testAMovieSoundTrackIsSplitIntoParts() throws {
        try FileManager.default.createDirectory(atPath: work + "/src", withIntermediateDirectories: true)
        let movie = work + "/src/clip.mp4"
        let made = try Tool.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-f", "lavfi",
                                           "-i", "sine=frequency=440:sample_rate=48000", "-t", "7", "-c:v", "libx264", "-c:a", "aac", movie])
        XCTAssertEqual(made.status, 0, made.stderr)
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", movie, "-vn", "-f", "s16le", "-"])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let whole = decoded.data.count / 2   // mono, 16-bit
        let path = try pipeline("""
            version: 1
            jobs:
              - name: sound
                ingest: { from: [src], media: [movie] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM, segment: { every: 3s } }
                export: { to: out, name: "{stem}-{segment}.wav" }
            """)
        let result = try Tool.medley(["run", path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let counts = try (1...3).map { try soxSamples(work + "/out/clip-\($0).wav").count }
        XCTAssertEqual(counts, [144_000, 144_000, whole - 288_000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out/clip-4.wav"))
    }

    func testMistakesAreReportedBeforeAnythingIsWritten() throws {
        let cases: [(settings: String, extra: String, message: String)] = [
            ("segment: { every: 0 }", "", "a segment length of 0 splits nothing"),
            ("segment: { every: 10% }", "", "segment.every is a length of time, not a share of the item"),
            ("segment: { evry: 10m }", "", "unknown key 'evry' in segment"),
            ("segment: { every: 10m }, cut: { from: 10%, to: 50% }", "", "segment splits a cut given in time"),
            ("AVFormatIDKey: copy, segment: { every: 10m }", "", "'segment' needs a re-encode"),
            ("AVFormatIDKey: copy, cut: { from: 10s }", "", "'cut' needs a re-encode"),
            ("AVFormatIDKey: kAudioFormatLinearPCM, segment: { every: 10m }", ", name: \"{stem}.wav\"", "export.name has no {segment}"),
        ]
        for (settings, extra, message) in cases {
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: parts
                    ingest: { from: [src] }
                    transcode: { \(settings) }
                    export: { to: out\(extra) }
                """)
            let result = try Tool.medley(["validate", path])
            XCTAssertEqual(result.status, 2, settings)
            XCTAssertTrue(result.stderr.contains(message), "\(settings): \(result.stderr)")
            XCTAssertNotNil(result.stderr.range(of: #"\.yaml:[0-9]+:[0-9]+: error"#, options: .regularExpression), result.stderr)
        }
    }
}
