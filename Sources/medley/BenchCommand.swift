import Foundation
import MedleyBench
import MedleyCore

/// `medley bench`: Medley against its peers on the same files, in one run.
enum BenchCommand {
    static let help = """
        usage: medley bench [--quick] [--media DIR] [--out DIR] [--jobs N] [--repeats N] [--only CASE,…]

        Times Medley against the tools it replaces on the same files with the same concurrency:
        sepia (vips recomb, ImageMagick), thumbnails (vipsthumbnail), Gaussian blur (vips gaussblur),
        AAC transcoding (ffmpeg), resampling to FLAC 48 kHz (sndfile-resample, SoX) and probing
        (exiftool). Media are generated with ffmpeg's test sources unless --media names a folder of
        JPEG/WAV/FLAC/AIFF files. Each command runs --repeats times (5; 3 with --quick) under GNU
        time; the table gives the median, the range, the peak memory of the largest process and the
        ratio Medley ÷ peer. Peers that are not installed are listed as skipped.
          --quick       small media, 3 repeats: every case in well under two minutes
          --out DIR     where results.json, results.md and chart.svg go (default: medley-bench)
          --only CASES  some of: sepia, thumbnails, blur, aac, resample, probe (comma-separated)
        Exit codes: 0 measured, 1 a command failed, 2 bad options.
        """

    static func main(_ arguments: [String]) throws -> Int32 {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, flags: ["--quick"], valued: ["--media", "--out", "--jobs", "--repeats", "--only"], help: help)
        } catch let help as HelpRequested {
            printError(help.text)
            return 0
        }
        guard parsed.positional.isEmpty else { throw UsageError("unexpected '\(parsed.positional[0])'\n\n" + help) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw UsageError("medley bench needs GNU time (/usr/bin/time; Debian package 'time')")
        }
        let out = URL(fileURLWithPath: parsed.value("--out") ?? "medley-bench").standardizedFileURL.path
        let medley = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var options = BenchSuite.Options(out: out, medley: medley)
        options.quick = parsed.flags.contains("--quick")
        options.media = parsed.value("--media").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if let jobs = parsed.value("--jobs") {
            guard let n = Int(jobs), n >= 1 else { throw UsageError("--jobs takes a whole number ≥ 1, not '\(jobs)'") }
            options.jobs = n
        }
        if let only = parsed.value("--only") {
            let names: Set<String> = ["sepia", "thumbnails", "blur", "aac", "resample", "probe"]
            options.only = Set(only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            if let unknown = options.only.first(where: { !names.contains($0) }) {
                throw UsageError("--only: unknown case '\(unknown)' (cases: \(names.sorted().joined(separator: ", ")))")
            }
        }
        if let repeats = parsed.value("--repeats") {
            guard let n = Int(repeats), n >= 1 else { throw UsageError("--repeats takes a whole number ≥ 1, not '\(repeats)'") }
            options.repeats = n
        }
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
