// Movie benchmark driver: MedleyMedia's movie adapter over many files, N at a time, without the
// pipeline runner (bench-movies.sh uses it until `medley run` has a poster stage).
// Usage: medley-movie-bench poster AT OUT_DIR FILE…        (AT: seconds or "10%"; writes OUT/stem.png)
//        medley-movie-bench transcode PRESET OUT_DIR FILE… (writes OUT/stem.mp4)
// Environment: JOBS (default: the number of cores).
import Foundation
import MedleyMedia

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4, ["poster", "transcode"].contains(arguments[0]) else {
    FileHandle.standardError.write(Data("usage: medley-movie-bench poster AT|transcode PRESET OUT_DIR FILE…\n".utf8))
    exit(2)
}
let command = arguments[0], setting = arguments[1], outDirectory = arguments[2]
let files = Array(arguments.dropFirst(3))
let jobs = Int(ProcessInfo.processInfo.environment["JOBS"] ?? "") ?? ProcessInfo.processInfo.activeProcessorCount
guard command != "poster" || PosterTime(setting) != nil, command != "transcode" || VideoQualityPreset(rawValue: setting) != nil else {
    FileHandle.standardError.write(Data("medley-movie-bench: bad \(command == "poster" ? "time" : "preset") \(setting)\n".utf8))
    exit(2)
}
try? FileManager.default.createDirectory(atPath: outDirectory, withIntermediateDirectories: true)

/// Files are handed out one at a time to `jobs` workers, as the scheduler does with items.
final class Work: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private(set) var failures = 0
    func take() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard next < files.count else { return nil }
        next += 1
        return next - 1
    }
    func fail(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        failures += 1
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
let work = Work()
let started = Date()
DispatchQueue.concurrentPerform(iterations: jobs) { _ in
    while let index = work.take() {
        let file = files[index]
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        do {
            if command == "poster" {
                try Movie.poster(path: file, at: PosterTime(setting)!)
                    .save(to: outDirectory + "/" + stem + ".png", format: .png, quality: nil, strip: true)
            } else {
                try Movie.transcode(path: file, to: outDirectory + "/" + stem + ".mp4",
                                    preset: VideoQualityPreset(rawValue: setting)!)
            }
        } catch {
            work.fail("\(file): \(error)")
        }
    }
}
print(String(format: "%d files, %d jobs, %.3f s, %d failed", files.count, jobs, Date().timeIntervalSince(started), work.failures))
exit(work.failures == 0 ? 0 : 1)
