import Foundation
import XCTest

/// Values from pipelines, headers and the file system that used to stop the process with a trap (an unchecked
/// conversion to an integer, a kernel precondition, recursion past the stack): each now gives a result or an
/// item failure with its reason, and the run ends normally.
final class HostileValueTests: EndToEndCase {
    /// Runs `medley run` and returns how it ended, with its standard error.
    func run(_ path: String, _ extra: [String] = []) throws -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let result = try Tool.run(Tool.medley, ["run", path, "--quiet"] + extra)
        return (result.reason, result.status, result.stderr)
    }

    func onePhoto() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images/landscape.jpg", toPath: work + "/in/photo.jpg")
    }

    func job(_ filters: String, name: String = "pipeline.yaml", out: String = "out") throws -> String {
        try pipeline("""
            version: 1
            jobs:
              - name: values
                ingest: { from: [in] }
                filters: [ \(filters) ]
                export: { to: \(out), format: png }
            """, name: name)
    }

    /// Issue 14, item 2: a CMYK JPEG in a blend graph stopped the run at the blend kernel's "compositing runs on
    /// RGBA" (its four bands were taken for RGB plus alpha). It is converted to sRGB like any other input now:
    /// the result is the graph's result for the sRGB copy libvips' own `vips colourspace` makes.
    func testACMYKImageInABlendGraphIsRenderedLikeItsSRGBCopy() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work + "/srgb", withIntermediateDirectories: true)
        XCTAssertEqual(try Tool.run("convert", ["-size", "64x48", "gradient:rgb(200,100,50)-rgb(20,160,220)",
                                                "-colorspace", "CMYK", work + "/in/cmyk.jpg"]).status, 0)
        XCTAssertTrue(try Tool.run("vipsheader", ["-f", "interpretation", work + "/in/cmyk.jpg"]).stdout.contains("CMYK"))
        // The sRGB copy as libvips makes it through a CMYK profile (the file has none: libvips' built-in one),
        // which is how Medley converts CMYK on load.
        XCTAssertEqual(try Tool.run("vips", ["icc_transform", work + "/in/cmyk.jpg", work + "/srgb/cmyk.png", "srgb",
                                             "--embedded", "--input-profile", "cmyk"]).status, 0)
        for (input, out) in [("in", "out"), ("srgb", "reference")] {
            let path = try pipeline("""
                version: 1
                jobs:
                  - name: blend
                    ingest: { from: [\(input)] }
                    graph:
                      toned:  { filter: CISepiaTone, inputImage: input, inputIntensity: 0.9 }
                      soft:   { filter: CIGaussianBlur, inputImage: toned, inputRadius: 2 }
                      output: { filter: CIScreenBlendMode, inputImage: toned, inputBackgroundImage: soft }
                    export: { to: \(out), format: png }
                """, name: input + ".yaml")
            let outcome = try run(path)
            XCTAssertEqual(outcome.reason, .exit)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
        }
        let rendered = try Tool.pixels(work + "/out/cmyk.png"), reference = try Tool.pixels(work + "/reference/cmyk.png")
        XCTAssertEqual(rendered.width, 64)
        XCTAssertEqual(rendered.height, 48)
        XCTAssertEqual(rendered.samples, reference.samples)
    }

    /// Parameters past any sensible range (`inputEV: 200` is 2²⁰⁰, beyond Float) saturate the pixels instead of
    /// trapping in the fixed-point tables or the float-to-integer conversions; the exact results follow from
    /// the formulas: 2²⁰⁰·x is white for x > 0 and black for x = 0.
    func testExtremeParametersSaturateInsteadOfStoppingTheRun() throws {
        try onePhoto()
        let input = try Tool.pixels(work + "/in/photo.jpg")
        let samples = input.samples
        let exposed: [Int] = samples.map { $0 > 0 ? 255 : 0 }
        // R = 10³⁸·(r + g): white unless both are 0; G and B pass unchanged.
        var matrixed = samples
        for i in stride(from: 0, to: samples.count, by: 3) where samples[i] > 0 || samples[i + 1] > 0 { matrixed[i] = 255 }
        for i in stride(from: 0, to: samples.count, by: 3) where samples[i] == 0 && samples[i + 1] == 0 { matrixed[i] = 0 }
        let cases: [(filters: String, expected: [Int])] = [
            ("CIExposureAdjust: { inputEV: 200 }", exposed),
            ("CIColorMatrix: { inputRVector: [1e38, 1e38, 0, 0] }", matrixed),
            // A rectangle that holds the whole image crops nothing.
            ("CICrop: { inputRectangle: [0, 0, 1e300, 1e300] }", input.samples),
        ]
        for (index, test) in cases.enumerated() {
            let out = "out\(index)"
            let outcome = try run(try job(test.filters, name: "case\(index).yaml", out: out))
            XCTAssertEqual(outcome.reason, .exit, test.filters)
            XCTAssertEqual(outcome.status, 0, "\(test.filters): \(outcome.stderr)")
            let pixels = try Tool.pixels(work + "/\(out)/photo.png")
            XCTAssertEqual([pixels.width, pixels.height], [200, 150], test.filters)
            XCTAssertTrue(pixels.samples == test.expected, test.filters)
        }
        // Contrast 10³⁰ leaves only black and white.
        let contrast = try run(try job("CIColorControls: { inputContrast: 1e30 }", name: "contrast.yaml", out: "contrast"))
        XCTAssertEqual(contrast.status, 0, contrast.stderr)
        XCTAssertEqual(Set(try Tool.pixels(work + "/contrast/photo.png").samples), [0, 255])
        // A pixellate grid moved by 10³⁰⁰ pixels, a whole number of 4-pixel cells, is the grid at 0.
        // (1e300 itself is a validation error now: beyond 32-bit floats; 1e30 is a whole number of cells too.)
        for (center, out) in [("[1e30, 5]", "far"), ("[0, 5]", "near")] {
            let outcome = try run(try job("CIPixellate: { inputCenter: \(center), inputScale: 4 }", name: out + ".yaml", out: out))
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
        }
        XCTAssertEqual(try Tool.pixels(work + "/far/photo.png").samples, try Tool.pixels(work + "/near/photo.png").samples)
        // A box of 10,000,000 (the most a side may be) × 10 fits the photo at 10 rows, as vipsthumbnail fits it
        // to "no width limit × 10".
        let resized = try run(try job("resize: { width: 10000000, height: 10 }", name: "resize.yaml", out: "resized"))
        XCTAssertEqual(resized.status, 0, resized.stderr)
        XCTAssertEqual(try Tool.run("vipsthumbnail", [work + "/in/photo.jpg", "--size", "x10", "-o", work + "/peer.png"]).status, 0)
        let small = try Tool.pixels(work + "/resized/photo.png"), peer = try Tool.pixels(work + "/peer.png")
        XCTAssertEqual([small.width, small.height], [peer.width, 10])
    }

    /// Parameters whose result could not be rendered are refused before anything runs: beyond 32-bit floats,
    /// or past Medley's own limits (`MedleyAttributeLimit`); exit 2, nothing written. (The run-time size
    /// checks behind them are HostilePipelineTests'.)
    func testParametersBeyondWhatCanBeRenderedAreValidationErrors() throws {
        try onePhoto()
        let cases = [
            ("CIAffineTransform: { inputTransform: [1e300, 0, 0, 1, 0, 0] }", "CIAffineTransform.inputTransform"),
            ("CIPixellate: { inputScale: 1e300 }", "CIPixellate.inputScale"),
            ("CIGaussianBlur: { inputRadius: 1e12 }", "CIGaussianBlur.inputRadius"),
            ("CIUnsharpMask: { inputRadius: 1e30 }", "CIUnsharpMask.inputRadius"),
        ]
        for (index, (filters, parameter)) in cases.enumerated() {
            let out = "out\(index)"
            let outcome = try run(try job(filters, name: "case\(index).yaml", out: out))
            XCTAssertEqual(outcome.reason, .exit, filters)
            XCTAssertEqual(outcome.status, 2, "\(filters): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("case\(index).yaml:5:") && outcome.stderr.contains(" error: \(parameter)"),
                          "\(filters): \(outcome.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/\(out)"), filters)
        }
    }

    /// A chain longer than a job takes, and YAML nested deeper than the reader takes, are pipeline errors
    /// (exit 2, nothing run) — the recipe, its optimiser, the renderer and the YAML reader all recurse.
    func testChainsAndNestingTooDeepForTheStackAreValidationErrors() throws {
        try onePhoto()
        let chain = try job(Array(repeating: "CISepiaTone", count: 1001).joined(separator: ", "), name: "chain.yaml")
        let long = try Tool.medley(["run", chain])
        XCTAssertEqual(long.status, 2, long.stderr)
        // The exact column of the 1,001st step is PipelineLimitsTests' business; here: this line, this reason.
        XCTAssertTrue(long.stderr.hasPrefix(chain + ":5:") && long.stderr.contains(" error: 'filters' has 1001 filters, more than the 1000 a chain may have"),
                      long.stderr)
        let nested = try pipeline("""
            version: 1
            jobs:
              - name: values
                ingest: { from: [in] }
                filters: [ CISepiaTone ]
                export: { to: out, format: png }
                deep: \(String(repeating: "[", count: 300) + String(repeating: "]", count: 300))
            """, name: "nested.yaml")
        let deep = try Tool.medley(["validate", nested])
        XCTAssertEqual(deep.status, 2, deep.stderr)
        XCTAssertTrue(deep.stderr.hasPrefix(nested + ":7:") && deep.stderr.contains(" error: lists and mappings nest more than 64 levels deep here"),
                      deep.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "/out"))
    }

    /// A file dated after 2262 (beyond Int64 nanoseconds since 1970) is converted, remembered, and skipped as
    /// unchanged on the next run.
    func testAFileDatedAfter2262IsConvertedAndThenSkippedAsUnchanged() throws {
        try onePhoto()
        let future = Date(timeIntervalSince1970: 10_413_792_000)  // 2300-01-01
        try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: work + "/in/photo.jpg")
        let path = try job("CISepiaTone")
        let first = try run(path)
        XCTAssertEqual(first.reason, .exit)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["photo.png"])
        let events = work + "/events.jsonl"
        let second = try run(path, ["--events", events])
        XCTAssertEqual(second.status, 0, second.stderr)
        let skipped = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "itemSkipped" }
        XCTAssertEqual(skipped.map { $0["reason"] as? String }, ["unchanged since the last run"])
    }

    /// A WAV whose header says 1 Hz asks the resampler for 44100:1; it fails with libsamplerate's limit before
    /// any buffer is sized by that ratio.
    func testASoundAtOneHertzFailsWithTheResamplersLimit() throws {
        try FileManager.default.createDirectory(atPath: work + "/in", withIntermediateDirectories: true)
        var wav = Data("RIFF".utf8)
        func le(_ value: Int, _ bytes: Int) { for i in 0..<bytes { wav.append(UInt8((value >> (8 * i)) & 0xFF)) } }
        le(36 + 40, 4); wav.append(contentsOf: Array("WAVEfmt ".utf8))
        le(16, 4); le(1, 2); le(1, 2); le(1, 4); le(2, 4); le(2, 2); le(16, 2)  // PCM, mono, 1 Hz, 16-bit
        wav.append(contentsOf: Array("data".utf8)); le(40, 4)
        for n in 0..<20 { le(n % 2 == 0 ? 1000 : 64536, 2) }
        try wav.write(to: URL(fileURLWithPath: work + "/in/slow.wav"))
        let path = try pipeline("""
            version: 1
            jobs:
              - name: sound
                ingest: { from: [in] }
                transcode: { AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44100 }
                export: { to: out, name: "{stem}.wav" }
            """)
        let outcome = try run(path)
        XCTAssertEqual(outcome.reason, .exit)
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("slow.wav: cannot resample 1 Hz to 44100 Hz: libsamplerate converts at most 256:1\n"),
                      outcome.stderr)
        XCTAssertEqual(Tool.files(under: work + "/out"), [])
    }

    /// Standard error closed (`2>&-`): the failure line for the broken file cannot be shown, which is no reason
    /// to stop (FileHandle.write used to trap on it); the good file is converted and the exit code tells.
    func testARunWithStandardErrorClosedFinishes() throws {
        try onePhoto()
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: work + "/in/broken.jpg"))
        let path = try job("CISepiaTone")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec \"$0\" run \"$1\" 2>&-", Tool.medley, path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertEqual(Tool.files(under: work + "/out"), ["photo.png"])
    }
}
