import Foundation
import MedleyBench
import MedleyCore

/// `medley bench`: Medley against its peers on the same files, in one run.
enum BenchCommand {
    static let command = Command(
        "bench", operands: "",
        summary: """
            Times Medley against the tools it replaces on the same files with the same concurrency:
            sepia (vips recomb, ImageMagick), thumbnails (vipsthumbnail), Gaussian blur (vips gaussblur),
            AAC transcoding (ffmpeg), resampling to FLAC 48 kHz (sndfile-resample, SoX) and probing
            (exiftool). Media are generated with ffmpeg's test sources unless --media names a folder of
            JPEG/WAV/FLAC/AIFF files. Each command runs --repeats times under GNU time; the table gives
            the median, the range, the peak memory of the largest process and the ratio Medley ÷ peer.
            Peers that are not installed are listed as skipped.
            """,
        options: [
            Option("--quick", "small media, 3 repeats: every case in well under two minutes"),
            Option("--media", value: "DIR", "time these JPEG/WAV/FLAC/AIFF files instead of generated ones"),
            Option("--out", value: "DIR", "where results.json, results.md and chart.svg go (default: medley-bench)"),
            SharedOptions.jobs,
            Option("--repeats", value: "N", "runs of each command (default 5; 3 with --quick)"),
            Option("--only", value: "CASES", "some of: sepia, thumbnails, blur, aac, resample, probe (comma-separated)"),
        ],
        notes: "Exit codes: 0 measured, 1 a command failed, 2 bad options.",
        run: main)

    static func main(_ parsed: ParsedArguments) throws -> Int32 {
        guard parsed.positional.isEmpty else { throw UsageError("unexpected '\(parsed.positional[0])'", showsUsage: true) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw UsageError("medley bench needs GNU time (/usr/bin/time; Debian package 'time')")
        }
        let out = URL(fileURLWithPath: parsed.value("--out") ?? "medley-bench").standardizedFileURL.path
        let medley = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var options = BenchSuite.Options(out: out, medley: medley)
        options.quick = parsed.flag("--quick")
        options.media = parsed.value("--media").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if let jobs = try parsed.count("--jobs") { options.jobs = jobs }
        if let only = parsed.value("--only") {
            let names: Set<String> = ["sepia", "thumbnails", "blur", "aac", "resample", "probe"]
            options.only = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            if let unknown = options.only.first(where: { !names.contains($0) }) {
                throw UsageError("--only: unknown case '\(unknown)' (cases: \(names.sorted().joined(separator: ", ")))")
            }
        }
        if let repeats = try parsed.count("--repeats") { options.repeats = repeats }
        do {
            let report = try BenchSuite(options: options, log: printError).run()
            print(BenchSuite.markdown(report))
            printError("bench: results in \(out)/results.md, results.json and chart.svg")
            return 0
        } catch let error as BenchError {
            printError("medley bench: \(error)")
            return 1
        }
    }
}
