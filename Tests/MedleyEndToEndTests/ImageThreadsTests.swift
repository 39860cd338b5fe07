import Foundation
@testable import MedleyCore
import MedleyMedia
import XCTest

/// One image gets every core (issue 18, goal 3): every image's libvips pool has a worker per core
/// whatever `--jobs` is (`--jobs` bounds the items in flight), and what the workers compute does
/// not depend on how many there are, which strips each takes, or how many items run beside it.
final class ImageThreadsTests: EndToEndCase {
    let cores = ProcessInfo.processInfo.activeProcessorCount

    /// The landscape fixture enlarged six times by vips (1200 × 900), as PNG: some sixty strips of
    /// libvips' sink, shared among the workers in whatever order they come.
    func bigPhoto(_ name: String = "big", crop: (Int, Int)? = nil) throws -> String {
        let path = work + "/\(name).png"
        if let (left, top) = crop {
            let whole = try bigPhoto()
            try Tool.vips(["crop", whole, path, "\(left)", "\(top)", "1000", "700"])
        } else if !FileManager.default.fileExists(atPath: path) {
            try Tool.vips(["resize", Tool.fixtures + "/images/landscape.jpg", path, "6"])
        }
        return path
    }

    func blurJob(_ from: String, out: String, sigma: Double, colorSpace: String?, format: String = "png") -> String {
        """
        version: 1
        jobs:
          - name: blur
            ingest: { from: [\(from)] }
        \(colorSpace.map { "    colorSpace: \($0)\n" } ?? "")    filters: [ { CIGaussianBlur: { inputRadius: \(sigma) } } ]
            export: { to: \(out), format: \(format), name: "{stem}.\(format)" }
        """
    }

    /// Runs the blur over `input` in this process with `threads` libvips workers per image (set after the
    /// runner's own setting: the test's seam) and returns the output's bytes.
    func render(_ input: String, sigma: Double, colorSpace: String?, threads: Int, tag: String) throws -> Data {
        let out = work + "/out-\(tag)"
        let path = try pipeline(blurJob(input, out: out, sigma: sigma, colorSpace: colorSpace), name: "\(tag).yaml")
        var options = RunOptions()
        options.quiet = true
        options.concurrency = 1
        let runner = try PipelineRunner(pipeline: try PipelineReader.load(path: path), options: options)
        try Vips.setThreadsPerImage(threads)
        defer { try? Vips.setThreadsPerImage(cores) }
        XCTAssertEqual(Vips.threadsPerImage, threads)
        let summary = try runner.run()
        XCTAssertEqual(summary.failed, 0, tag)
        XCTAssertEqual(summary.done, 1, tag)
        return try Data(contentsOf: URL(fileURLWithPath: out + "/" + ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".png"))
    }

    func testAnImageGetsAWorkerPerCoreWhenTheJobsAreFewerThanFourTimesTheCores() throws {
        // Before issue 18 an image got cores / --jobs workers: one on a 2-core machine at the default,
        // so a lone big image or the tail of a batch ran on one core.
        let path = try pipeline(blurJob(try bigPhoto(), out: work + "/out", sigma: 10, colorSpace: nil))
        for jobs in [1, 2, cores, 4 * cores, 8 * cores] {
            var options = RunOptions()
            options.quiet = true
            options.concurrency = jobs
            let runner = try PipelineRunner(pipeline: try PipelineReader.load(path: path), options: options)
            // Every core while the items in flight are at most four per core; then 4 × cores ÷ jobs.
            let expected = max(1, min(cores, 4 * cores / jobs))
            XCTAssertEqual(runner.session.vipsThreads, expected, "--jobs \(jobs)")
            XCTAssertEqual(Vips.threadsPerImage, expected, "--jobs \(jobs): the workers libvips gives each sink that starts")
            XCTAssertEqual(runner.session.scheduler.concurrency, jobs, "--jobs still bounds the items in flight")
        }
        // The rule on other machines: every core up to four workers per core in all, never none.
        let table: [(cores: Int, jobs: Int, workers: Int)] = [
            (2, 1, 2), (2, 2, 2), (2, 4, 2), (2, 8, 1), (2, 100, 1),
            (24, 1, 24), (24, 6, 16), (24, 24, 4), (50, 12, 16), (50, 50, 4), (0, 3, 1), (4, 0, 4)]
        for row in table {
            XCTAssertEqual(RunSession.threadsPerImage(cores: row.cores, jobs: row.jobs), row.workers, "\(row)")
        }
    }

    func testBlurIsTheSameWithOneWorkerAndWithMany() throws {
        // σ 2: the exact separable taps; σ 10: the running-sum boxes, whose sums start at each strip's margin.
        // Linear light (the default) and the stored values: both float paths.
        let input = try bigPhoto()
        for (sigma, space) in [(2.0, nil), (10.0, nil), (10.0, "none")] as [(Double, String?)] {
            let name = "σ \(sigma) \(space ?? "linear")"
            let one = try render(input, sigma: sigma, colorSpace: space, threads: 1, tag: "one-\(sigma)-\(space ?? "")")
            let many = try render(input, sigma: sigma, colorSpace: space, threads: 8, tag: "many-\(sigma)-\(space ?? "")")
            XCTAssertFalse(one.isEmpty, name)
            XCTAssertTrue(one == many, "\(name): 1 worker and 8 workers wrote different images")
        }
    }

    func testManyWorkersStillMatchVipsGaussblur() throws {
        // The tolerance of FilterCatalogRunTests' σ 8 test (three boxes against vips' exact Gaussian on
        // the stored values: 3.5 levels at worst, 0.6 RMS), here on 8 workers over many strips.
        let input = try bigPhoto()
        let mine = try render(input, sigma: 8, colorSpace: "none", threads: 8, tag: "vs-vips")
        let output = work + "/vs-vips.png"
        try mine.write(to: URL(fileURLWithPath: output))
        let samples = try Tool.pixels(output).samples
        let float = work + "/big-float.v", blurred = work + "/big-blurred.v"
        try Tool.vips(["cast", input, float, "float"])
        try Tool.vips(["gaussblur", float, blurred, "8", "--precision", "float", "--min-ampl", "0.001"])
        let reference = try Tool.vipsFloats(blurred, scratch: work).samples.map(Double.init)
        XCTAssertEqual(samples.count, reference.count)
        var worst = 0.0, squares = 0.0
        for (a, b) in zip(samples, reference) {
            let d = abs(Double(a) - b)
            worst = max(worst, d)
            squares += d * d
        }
        let rms = (squares / Double(max(1, samples.count))).squareRoot()
        XCTAssertLessThanOrEqual(worst, 3.5)
        XCTAssertLessThanOrEqual(rms, 0.6)
        XCTAssertGreaterThan(worst, 0, "the reference is vips', not Medley's own output")
    }

    func testABatchWritesTheSameBytesOneAtATimeAndFourAtATime() throws {
        // Four crops of the big photo through `medley run`: with --jobs 4 four items share the cores, each
        // with a worker per core; with --jobs 1 each has them alone. The JPEGs must be byte for byte the same.
        let folder = work + "/batch"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (i, crop) in [(0, 0), (200, 200), (100, 50), (150, 180)].enumerated() {
            let crop = try bigPhoto("crop-\(i)", crop: crop)
            try FileManager.default.moveItem(atPath: crop, toPath: folder + "/crop-\(i).png")
        }
        var outputs: [[String: Data]] = []
        for jobs in [1, 4] {
            let out = work + "/batch-out-\(jobs)"
            let path = try pipeline(blurJob(folder, out: out, sigma: 10, colorSpace: nil, format: "jpeg"), name: "batch-\(jobs).yaml")
            let result = try Tool.medley(["run", path, "--quiet", "--jobs", "\(jobs)"])
            XCTAssertEqual(result.status, 0, result.stderr)
            var files: [String: Data] = [:]
            for i in 0..<4 {
                files["crop-\(i)"] = try Data(contentsOf: URL(fileURLWithPath: out + "/crop-\(i).jpeg"))
            }
            outputs.append(files)
        }
        XCTAssertEqual(outputs[0].count, 4)
        for (name, bytes) in outputs[0] {
            XCTAssertGreaterThan(bytes.count, 1000, name)
            XCTAssertTrue(bytes == outputs[1][name], "\(name): --jobs 1 and --jobs 4 wrote different files")
        }
        XCTAssertFalse(outputs[0]["crop-0"] == outputs[0]["crop-1"], "different crops, different files")
    }
}
