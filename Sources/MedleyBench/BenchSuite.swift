import Foundation
import MedleyFilters

/// `medley bench`: Medley against the tools people use instead (vips, vipsthumbnail,
/// ImageMagick, ffmpeg, SoX, sndfile-resample, exiftool), on the same files, with the same
/// concurrency, in one run. Each command runs under GNU `time`, which reports the wall time and
/// the peak resident memory of the largest process of its tree (the kernel's wait4 accounting).
public struct BenchSuite {
    public struct Options: Sendable {
        /// Small media and three repeats: a smoke run of every case in well under two minutes.
        public var quick = false
        public var repeats: Int?
        public var jobs = ProcessInfo.processInfo.activeProcessorCount
        /// Photos and audio to use instead of generated media (files found by extension).
        public var media: String?
        /// Where results.json, results.md and chart.svg go.
        public var out: String
        /// The medley binary timed (this one, unless said).
        public var medley: String
        /// Only these cases (all when empty).
        public var only: Set<String> = []
        public init(out: String, medley: String) {
            self.out = out
            self.medley = medley
        }
    }

    /// One timed command.
    public struct Measurement: Codable, Sendable {
        public var tool: String
        public var command: String
        /// Wall seconds of each repeat.
        public var seconds: [Double]
        /// Largest peak resident memory over the repeats, in MiB.
        public var peakMiB: Double
        public var skipped: String?
        public var median: Double { Self.median(seconds) }
        static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
    }

    /// A job measured with Medley and its peers.
    public struct CaseResult: Codable, Sendable {
        public var name: String
        public var description: String
        public var medley: Measurement
        public var peers: [Measurement]
    }

    public struct Report: Codable, Sendable {
        public var machine: String
        public var date: String
        public var jobs: Int
        public var repeats: Int
        public var quick: Bool
        public var cases: [CaseResult]
    }

    let options: Options
    let work: String
    let log: (String) -> Void

    public init(options: Options, log: @escaping (String) -> Void) {
        self.options = options
        self.log = log
        work = options.out + "/work"
    }

    var repeats: Int { options.repeats ?? (options.quick ? 3 : 5) }

    // MARK: running

    public func run() throws -> Report {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let media = try prepareMedia()
        var cases: [CaseResult] = []
        for benchCase in makeCases(media) where options.only.isEmpty || options.only.contains(benchCase.name) {
            log("bench: \(benchCase.name) — \(benchCase.description)")
            let medley = try measure("medley", benchCase.medley, prepare: benchCase.reset)
            var peers: [Measurement] = []
            for peer in benchCase.peers {
                if let missing = peer.requires.first(where: { Self.which($0) == nil }) {
                    peers.append(Measurement(tool: peer.tool, command: peer.display, seconds: [], peakMiB: 0,
                                             skipped: "\(missing) is not installed"))
                    continue
                }
                peers.append(try measure(peer.tool, peer.command, display: peer.display, prepare: benchCase.reset))
            }
            cases.append(CaseResult(name: benchCase.name, description: benchCase.description, medley: medley, peers: peers))
        }
        let report = Report(machine: Self.machine(), date: Date().formatted(.iso8601), jobs: options.jobs,
                            repeats: repeats, quick: options.quick, cases: cases)
        try write(report)
        return report
    }

    /// Runs `command` `repeats` times under GNU time (after `prepare` empties the output folder).
    func measure(_ tool: String, _ command: [String], display: String? = nil, prepare: () throws -> Void) throws -> Measurement {
        var seconds: [Double] = [], peak = 0.0
        for _ in 0..<repeats {
            try prepare()
            let result = try Self.run(["/usr/bin/time", "-f", "MEDLEY-BENCH %e %M"] + command)
            guard result.status == 0, let line = result.stderr.split(separator: "\n").last(where: { $0.hasPrefix("MEDLEY-BENCH ") }) else {
                throw BenchError.toolFailed(tool: tool, status: result.status, command: command, stderr: String(result.stderr.suffix(600)))
            }
            let fields = line.split(separator: " ")
            seconds.append(Double(fields[1]) ?? 0)
            peak = max(peak, (Double(fields[2]) ?? 0) / 1024)
        }
        return Measurement(tool: tool, command: display ?? command.joined(separator: " "), seconds: seconds, peakMiB: peak)
    }

    // MARK: media

    struct Media {
        var photos: [String]
        var audio: [String]
        var probeFiles: [String]
    }

    /// Generated with ffmpeg's test sources (colourful gradients plus grain, so JPEGs compress
    /// like photos; chords plus pink noise for audio), or found under `--media`.
    func prepareMedia() throws -> Media {
        if let folder = options.media {
            var photos: [String] = [], audio: [String] = []
            let walker = FileManager.default.enumerator(atPath: folder)
            while let name = walker?.nextObject() as? String {
                let ext = (name as NSString).pathExtension.lowercased()
                if ["jpg", "jpeg"].contains(ext) { photos.append(folder + "/" + name) }
                if ["wav", "flac", "aif", "aiff"].contains(ext) { audio.append(folder + "/" + name) }
            }
            guard !photos.isEmpty || !audio.isEmpty else { throw BenchError.noMedia(folder: folder) }
            return try stage(Media(photos: photos.sorted(), audio: audio.sorted(), probeFiles: []))
        }
        let (count, width, height) = options.quick ? (6, 1280, 960) : (40, 4000, 3000)
        let (tracks, trackSeconds) = options.quick ? (4, 15) : (10, 180)
        try FileManager.default.createDirectory(atPath: work + "/media", withIntermediateDirectories: true)
        log("bench: making \(count) photos of \(width)×\(height) and \(tracks) × \(trackSeconds) s of stereo audio")
        var photos: [String] = [], audio: [String] = []
        for i in 0..<count {
            let path = work + "/media/photo-\(i).jpg"
            try Self.check(Self.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                                     "testsrc2=size=\(width)x\(height):rate=1,noise=alls=18:allf=t:all_seed=\(i + 1)",
                                     "-frames:v", "1", "-q:v", "3", path]), "making \(path)")
            photos.append(path)
        }
        for i in 0..<tracks {
            let path = work + "/media/track-\(i).wav"
            try Self.check(Self.run(["ffmpeg", "-v", "error", "-y",
                                     "-f", "lavfi", "-i", "sine=frequency=\(220 + 7 * i):sample_rate=44100:duration=\(trackSeconds)",
                                     "-f", "lavfi", "-i", "anoisesrc=color=pink:sample_rate=44100:amplitude=0.2:seed=\(i + 1):duration=\(trackSeconds)",
                                     "-filter_complex", "[0][1]amix=inputs=2,aformat=channel_layouts=stereo", "-c:a", "pcm_s16le", path]),
                           "making \(path)")
            audio.append(path)
        }
        return try stage(Media(photos: photos, audio: audio, probeFiles: []))
    }

    /// Copies for the probe case: the photos and audio repeated up to its file count.
    func stage(_ media: Media) throws -> Media {
        var media = media
        let target = options.quick ? 60 : 1000
        let sources = media.photos + media.audio
        try FileManager.default.createDirectory(atPath: work + "/probe", withIntermediateDirectories: true)
        for i in 0..<(sources.isEmpty ? 0 : target) {
            let source = sources[i % sources.count]
            let copy = work + "/probe/\(i)-" + (source as NSString).lastPathComponent
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.linkItem(atPath: source, toPath: copy)
            media.probeFiles.append(copy)
        }
        return media
    }

    // MARK: cases

    struct Peer {
        var tool: String
        /// Programs that must be installed.
        var requires: [String]
        var command: [String]
        var display: String
    }

    struct Case {
        var name: String
        var description: String
        var medley: [String]
        var peers: [Peer]
        var reset: () throws -> Void
    }

    func makeCases(_ media: Media) -> [Case] {
        let jobs = String(options.jobs), out = work + "/out"
        let reset: () throws -> Void = {
            try? FileManager.default.removeItem(atPath: out)
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        }
        func pipeline(_ name: String, _ body: String) -> String {
            let path = work + "/\(name).yaml"
            try? Data("version: 1\njobs:\n  - name: \(name)\n\(body)".utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        func medley(_ pipeline: String) -> [String] {
            [options.medley, "run", pipeline, "--quiet", "--force", "--jobs", jobs]
        }
        /// GNU parallel over `files`, one `command` ({} the file, {/.} its stem) per file.
        func parallel(_ command: [String], _ files: [String]) -> [String] {
            ["parallel", "--will-cite", "--halt", "now,fail=1", "-j", jobs] + command + [":::"] + files
        }
        var cases: [Case] = []
        let photoList = media.photos.map { "\"\($0)\"" }.joined(separator: ", ")
        if !media.photos.isEmpty {
            let matrix = work + "/sepia.mat"
            try? Data("3 3\n0.3588 0.7044 0.1368\n0.2990 0.5870 0.1140\n0.2392 0.4696 0.0912\n".utf8)
                .write(to: URL(fileURLWithPath: matrix))
            let sepia = pipeline("sepia", """
                    ingest: { from: [\(photoList)] }
                    filters: [ { CISepiaTone: { inputIntensity: 1 } } ]
                    colorSpace: none
                    export: { to: \(out), format: jpeg, quality: 85, name: "{stem}.jpg" }
                """)
            cases.append(Case(
                name: "sepia", description: "\(media.photos.count) JPEGs → sepia → JPEG Q85",
                medley: medley(sepia),
                peers: [
                    Peer(tool: "vips recomb", requires: ["parallel", "vips"],
                         command: parallel(["vips", "recomb", "{}", out + "/{/.}.jpg[Q=85]", matrix], media.photos),
                         display: "parallel vips recomb {} out/{/.}.jpg[Q=85] sepia.mat"),
                    Peer(tool: "ImageMagick", requires: ["parallel", "convert"],
                         command: ["env", "MAGICK_THREAD_LIMIT=1"]
                             + parallel(["convert", "{}", "-sepia-tone", "80%", "-quality", "85", out + "/{/.}.jpg"], media.photos),
                         display: "parallel convert {} -sepia-tone 80% -quality 85 out/{/.}.jpg"),
                ], reset: reset))
            let thumbs = pipeline("thumbnails", """
                    ingest: { from: [\(photoList)] }
                    filters: [ { resize: { width: 256, height: 256, mode: aspectFit } } ]
                    export: { to: \(out), format: jpeg, quality: 85, name: "{stem}.jpg" }
                """)
            cases.append(Case(
                name: "thumbnails", description: "\(media.photos.count) JPEGs → 256 px thumbnails",
                medley: medley(thumbs),
                peers: [Peer(tool: "vipsthumbnail", requires: ["parallel", "vipsthumbnail"],
                             command: parallel(["vipsthumbnail", "{}", "-s", "256", "-o", out + "/%s.jpg[Q=85]"], media.photos),
                             display: "parallel vipsthumbnail {} -s 256 -o out/%s.jpg[Q=85]")],
                reset: reset))
            let first = media.photos[0]
            let blur = pipeline("blur", """
                    ingest: { from: ["\(first)"] }
                    filters: [ { CIGaussianBlur: { inputRadius: 10 } } ]
                    colorSpace: none
                    export: { to: \(out), format: jpeg, quality: 85, name: "{stem}.jpg" }
                """)
            // One image: one item in flight, so libvips' threads get every core, as in `vips gaussblur`.
            cases.append(Case(
                name: "blur", description: "one JPEG → Gaussian blur σ 10 → JPEG (medley --jobs 1: one item, every core)",
                medley: [options.medley, "run", blur, "--quiet", "--force", "--jobs", "1"],
                peers: [Peer(tool: "vips gaussblur", requires: ["vips"],
                             command: ["vips", "gaussblur", first, out + "/blur.jpg[Q=85]", "10"],
                             display: "vips gaussblur in.jpg out.jpg[Q=85] 10")],
                reset: reset))
        }
        if !media.audio.isEmpty {
            let audioList = media.audio.map { "\"\($0)\"" }.joined(separator: ", ")
            let aac = pipeline("aac", """
                    ingest: { from: [\(audioList)] }
                    transcode: { AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: 128000 }
                    export: { to: \(out), name: "{stem}.m4a" }
                """)
            cases.append(Case(
                name: "aac", description: "\(media.audio.count) audio files → AAC 128 kb/s stereo 44.1 kHz",
                medley: medley(aac),
                peers: [Peer(tool: "ffmpeg", requires: ["parallel", "ffmpeg"],
                             command: parallel(["ffmpeg", "-v", "error", "-y", "-i", "{}", "-ar", "44100", "-ac", "2", "-c:a", "aac",
                                                "-b:a", "128k", out + "/{/.}.m4a"], media.audio),
                             display: "parallel ffmpeg -i {} -ar 44100 -ac 2 -c:a aac -b:a 128k out/{/.}.m4a")],
                reset: reset))
            let flac = pipeline("resample", """
                    ingest: { from: [\(audioList)] }
                    transcode: { AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 48000, AVSampleRateConverterAudioQualityKey: AVAudioQuality.high }
                    export: { to: \(out), name: "{stem}.flac" }
                """)
            cases.append(Case(
                name: "resample", description: "\(media.audio.count) audio files → FLAC 48 kHz (libsamplerate sinc medium)",
                medley: medley(flac),
                peers: [
                    Peer(tool: "sndfile-resample", requires: ["parallel", "sndfile-resample"],
                         command: parallel(["sndfile-resample", "-to", "48000", "-c", "1", "{}", out + "/{/.}.flac"], media.audio),
                         display: "parallel sndfile-resample -to 48000 -c 1 {} out/{/.}.flac"),
                    Peer(tool: "SoX", requires: ["parallel", "sox"],
                         command: parallel(["sox", "{}", "-r", "48000", out + "/{/.}.flac", "rate", "-h"], media.audio),
                         display: "parallel sox {} -r 48000 out/{/.}.flac rate -h"),
                ], reset: reset))
        }
        if !media.probeFiles.isEmpty {
            cases.append(Case(
                name: "probe", description: "\(media.probeFiles.count) files → properties as JSON",
                medley: [options.medley, "probe", "--json"] + media.probeFiles,
                peers: [Peer(tool: "exiftool", requires: ["exiftool"], command: ["exiftool", "-json", "-q"] + media.probeFiles,
                             display: "exiftool -json -q FILES")],
                reset: reset))
        }
        return cases
    }

    // MARK: output

    func write(_ report: Report) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: options.out + "/results.json"))
        try Data(Self.markdown(report).utf8).write(to: URL(fileURLWithPath: options.out + "/results.md"))
        try Data(BenchChart.svg(report).utf8).write(to: URL(fileURLWithPath: options.out + "/chart.svg"))
    }

    public static func markdown(_ report: Report) -> String {
        var text = """
            ### medley bench\(report.quick ? " --quick" : "") (\(report.date))

            \(report.machine); \(report.jobs) at a time; each command \(report.repeats)×, median and range of wall seconds;
            peak memory = the largest process of the command's tree. Ratio = Medley ÷ tool (below 1: Medley is faster).

            | case | tool | median s | range s | peak MiB | Medley ÷ tool |
            |---|---|---:|---:|---:|---:|

            """
        for result in report.cases {
            let medley = result.medley
            text += "| \(result.name) | **medley** | \(f(medley.median)) | \(range(medley)) | \(f(medley.peakMiB, 0)) | |\n"
            for peer in result.peers {
                if let skipped = peer.skipped {
                    text += "| \(result.name) | \(peer.tool) | skipped: \(skipped) | | | |\n"
                } else {
                    text += "| \(result.name) | \(peer.tool) | \(f(peer.median)) | \(range(peer)) | \(f(peer.peakMiB, 0)) | **\(f(medley.median / max(peer.median, 0.001)))** |\n"
                }
            }
        }
        text += "\nCases: " + report.cases.map { "\($0.name) — \($0.description)" }.joined(separator: "; ") + ".\n"
        return text
    }

    static func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
    static func range(_ m: Measurement) -> String { "\(f(m.seconds.min() ?? 0))–\(f(m.seconds.max() ?? 0))" }

    // MARK: processes

    struct Output {
        var status: Int32
        var stderr: String
    }

    /// Runs a program (found on PATH), discarding its standard output.
    static func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stderr: String(decoding: data, as: UTF8.self))
    }

    static func check(_ output: Output, _ what: String) throws {
        guard output.status == 0 else { throw BenchError.stepFailed(what: what, stderr: String(output.stderr.suffix(400))) }
    }

    static func which(_ program: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = folder + "/" + program
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func machine() -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        return "\(ProcessInfo.processInfo.activeProcessorCount) × \(cpu), \(String(format: "%.0f", memory)) GiB"
    }
}

/// Why `medley bench` could not measure.
public enum BenchError: Error, CustomStringConvertible {
    /// A timed command failed: the tool, its exit status, the command line and the end of its stderr.
    case toolFailed(tool: String, status: Int32, command: [String], stderr: String)
    /// `--media` names a folder without usable files.
    case noMedia(folder: String)
    /// A preparation step (making media, checking a peer) failed.
    case stepFailed(what: String, stderr: String)

    public var description: String {
        switch self {
        case .toolFailed(let tool, let status, let command, let stderr):
            return "\(tool) failed (\(status)): \(command.joined(separator: " "))\n\(stderr)"
        case .noMedia(let folder): return "no JPEG, WAV, FLAC or AIFF files under \(folder)"
        case .stepFailed(let what, let stderr): return "\(what) failed: \(stderr)"
        }
    }
}
