import Foundation
import XCTest

/// `docs/cookbook.md` run as it is printed. Every recipe is a `###` section with one ```sh block
/// (the peer's command) and one ```yaml block (a whole pipeline of one job); the peer writes to
/// `out/peer/<job>/`, the pipeline exports to `out/cookbook/<job>/`. The test copies the fixtures
/// into a scratch folder, runs both texts there unchanged (the paths in them are relative, so the
/// scratch folder is their root and nothing is written into the repository), then compares the two
/// outputs with a measure chosen here for each recipe: PSNR over ImageMagick's decoded pixels for
/// pictures, SoX, ffprobe and ffmpeg's `ebur128` for sound, exiftool and ffprobe for tags.
///
/// The link is structural: a recipe whose job has no measure below, a measure without its recipe,
/// a section with a pipeline but no peer command, or a pipeline outside a recipe fails
/// `testEveryRecipeHasAPeerAPipelineAndAMeasure`; so a recipe can't be added without being run.
/// A peer that is not installed is not run; its recipe is then measured against the independent
/// reading alone (`scripts/setup.sh --test` installs them all).
final class CookbookTests: EndToEndCase {
    struct Recipe {
        let heading: String
        let peer: String
        let pipeline: String
        /// The one job's name: the recipe's folder under `out/peer/` and `out/cookbook/`.
        let job: String
    }

    /// What a measure gets: where the recipe's two outputs are, and the scratch root.
    struct Outputs {
        let root: String
        let peer: String
        let medley: String
        /// Whether the peer's command ran (false when its program is not installed).
        let peerRan: Bool
        let name: String
    }

    static let cookbook = Tool.packageRoot + "/docs/cookbook.md"

    /// The folders of fixtures/ the recipes read, copied into the scratch root.
    static let fixtureFolders = ["images", "audio", "music", "movies", "movies-tracks", "artwork", "vectors"]

    // MARK: reading the page

    /// The recipes of the page, and every problem with its shape.
    static func recipes(in markdown: String) -> (recipes: [Recipe], problems: [String]) {
        var recipes: [Recipe] = [], problems: [String] = []
        let sections = markdown.components(separatedBy: "\n### ")
        if !blocks(in: sections[0]).filter({ $0.language == "yaml" }).isEmpty {
            problems.append("a yaml block before the first ### recipe heading")
        }
        for section in sections.dropFirst() {
            let heading = String(section.prefix { $0 != "\n" })
            let found = blocks(in: section)
            let shells = found.filter { $0.language == "sh" }, pipelines = found.filter { $0.language == "yaml" }
            if pipelines.isEmpty && shells.isEmpty { continue }  // prose between recipes
            guard shells.count == 1, pipelines.count == 1 else {
                problems.append("\(heading): \(shells.count) sh and \(pipelines.count) yaml blocks (a recipe has one of each)")
                continue
            }
            let jobs = pipelines[0].text.components(separatedBy: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("- name: ") ? String(trimmed.dropFirst("- name: ".count)) : nil
            }
            guard jobs.count == 1, let job = jobs.first else {
                problems.append("\(heading): \(jobs.count) jobs (a recipe's pipeline has one)")
                continue
            }
            if !pipelines[0].text.contains("to: out/cookbook/\(job)") {
                problems.append("\(heading): the pipeline does not export to out/cookbook/\(job)")
            }
            if !shells[0].text.contains("out/peer/\(job)") {
                problems.append("\(heading): the peer command does not write to out/peer/\(job)")
            }
            recipes.append(Recipe(heading: heading, peer: shells[0].text, pipeline: pipelines[0].text, job: job))
        }
        return (recipes, problems)
    }

    /// The fenced blocks of a text: language and contents.
    static func blocks(in text: String) -> [(language: String, text: String)] {
        var found: [(String, String)] = [], language: String?, body: [String] = []
        for line in text.components(separatedBy: "\n") {
            if let open = language {
                if line.hasPrefix("```") {
                    found.append((open, body.joined(separator: "\n") + "\n"))
                    language = nil
                    body = []
                } else {
                    body.append(line)
                }
            } else if line.hasPrefix("```") {
                language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            }
        }
        return found
    }

    /// The programs a peer command starts: the first word of each command line (not a shell word,
    /// a comment or a continued line).
    static func programs(of command: String) -> Set<String> {
        let shellWords: Set<String> = ["mkdir", "cp", "rm", "for", "do", "done", "then", "fi", "if"]
        var programs: Set<String> = [], continued = false
        for line in command.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            defer { continued = trimmed.hasSuffix("\\") }
            if continued || trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let word = trimmed.split(separator: " ").first.map(String.init) else { continue }
            if shellWords.contains(word) || word.contains("=") { continue }
            programs.insert(word)
        }
        return programs
    }

    static func installed(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }

    // MARK: the measures, one per recipe (by job name)

    /// PSNR thresholds say how close two encodes of the same pictures are expected to be. Two
    /// JPEG or WebP encoders at quality 80–90 over the same pixels agree to about 42–50 dB on these
    /// small synthetic scenes (measured: 42.3 dB the lowest); the 38 dB threshold leaves room for
    /// encoder versions and fails a recipe whose pixels differ (a sepia at another intensity, a
    /// transparent part on black, a picture not turned upright).
    static let measures: [String: (CookbookTests, Outputs) throws -> Void] = [
        // The same libvips thumbnail and libwebp on both sides: measured identical pixels.
        "thumbnails": { try $0.compareImages($1, psnr: 45) },
        "web-800": { try $0.compareImages($1, psnr: 38) },
        // libvips' thumbnail with crop: attention on both sides, PNG: the same pixels.
        "smartcrop": { try $0.compareImages($1, psnr: 60) },
        // libvips' thumbnail of the SVG on both sides (svgload's scale), PNG: the same pixels.
        "svg-icons": { try $0.compareImages($1, psnr: 60) },
        // Measured 44.1 and 49.3 dB; a toning 0.1 off in one coefficient of the matrix scores
        // 37.7 dB, an intensity of 0.6 instead of 0.8 under 33, so this one asks for 42.
        "sepia": { try $0.compareImages($1, psnr: 42) },
        "png-to-jpeg": { try $0.compareImages($1, psnr: 38) },
        "strip": { test, outputs in
            try test.compareImages(outputs, psnr: 38)
            try test.checkNoMetadata(outputs)
        },
        // Metadata-only jobs: Medley copies the input's bytes and edits them as exiftool does, so
        // the pictures are the same (infinite PSNR); the fields are read back by exiftool.
        "no-gps": { test, outputs in
            try test.compareImages(outputs, psnr: 99)
            try test.compareFields(outputs, ["Make", "Model", "DateTimeOriginal", "Orientation#"], none: ["GPS:all"])
        },
        "credit": { test, outputs in
            try test.compareImages(outputs, psnr: 99)
            try test.compareFields(outputs, ["Artist", "Copyright", "XMP-dc:Creator", "XMP-dc:Subject"], present: "Artist")
        },
        "clock": { test, outputs in
            try test.compareImages(outputs, psnr: 99)
            try test.compareFields(outputs, ["DateTimeOriginal", "CreateDate", "ModifyDate"], present: "DateTimeOriginal")
        },
        "to-srgb": { test, outputs in
            try test.compareImages(outputs, psnr: 38)
            for file in Tool.files(under: outputs.medley) {
                let description = try Tool.exif(outputs.medley + "/" + file, "ICC_Profile:ProfileDescription") ?? ""
                XCTAssertTrue(description.contains("sRGB"), "\(outputs.name)/\(file): profile '\(description)'")
            }
        },
        // The logo covers 30 × 30 px of a 200 × 150 picture: over the whole picture a missing
        // logo still scores about 30 dB, so the 40 × 40 corner it lies in is measured on its own.
        // There the two blends (each program resizing the 64-px logo with its own kernel) agree to
        // 25.4 dB; the unmarked corner scores 15.4 dB against the peer's, so 22 dB tells a logo in
        // its place from none. (It does not tell linear from sRGB blending, 22.7 dB apart:
        // WatermarkRunTests checks the blend's formula.)
        "watermark": { try $0.compareImages($1, psnr: 22, corner: (width: 40, height: 40)) },
        // The same LibRaw development on both sides, each made 8-bit and encoded at quality 90 by libvips.
        // Only the sheet: Medley's export folder also holds the photos it exported. Sizes equal
        // (the same geometry as montage's); libvips' and ImageMagick's thumbnails measured 37.0 dB.
        "contact-sheet": { _, outputs in
            let a = try Tool.pixels(outputs.peer + "/sheet.png"), b = try Tool.pixels(outputs.medley + "/sheet.png")
            XCTAssertEqual([b.width, b.height], [a.width, a.height], "contact-sheet: the sheet's size")
            guard a.samples.count == b.samples.count else { return }
            let mse = zip(a.samples, b.samples).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) } / Double(max(a.samples.count, 1))
            XCTAssertGreaterThanOrEqual(mse == 0 ? .infinity : 10 * log10(255 * 255 / mse), 32, "contact-sheet: PSNR against montage's sheet")
        },
        "raw-develop": { try $0.compareImages($1, psnr: 38) },
        // exiftool's bytes against Medley's re-encode of the same JPEG at quality 95.
        "raw-preview": { try $0.compareImages($1, psnr: 38) },
        "wav-to-aac": { try $0.compareAAC($1) },
        "cd-quality": { try $0.compareResampled($1) },
        "loudness": { try $0.compareLoudness($1) },
        "trim-silence": { try $0.compareTrim($1) },
        "fades": { try $0.compareFades($1) },
        "replaygain": { try $0.compareReplayGain($1) },
        "by-tags": { test, outputs in
            let peer = Tool.files(under: outputs.peer), medley = Tool.files(under: outputs.medley)
            XCTAssertFalse(peer.isEmpty, "by-tags: the peer filed nothing")
            XCTAssertEqual(medley, peer, "by-tags: the paths the tags make")
        },
        "read-tags": { try $0.compareReadTags($1) },
        // One frame of an H.264 movie: ffmpeg writes its YUV 4:2:0 straight into the JPEG, Medley
        // converts to RGB first, so the same frame measures about 28 dB; the frames 40 ms either
        // side measure under 21 dB against it, so 25 dB says the same frame was taken.
        "poster": { try $0.compareImages($1, psnr: 25) },
        "movie-mp4": { try $0.compareMovies($1) },
        // Both libx264 at CRF 23 over the same pictures (measured identical, inf dB); each
        // stream's codec, language, title and flags as ffprobe reads them, and the chapters.
        "keep-tracks": { try $0.compareTracks($1, file: "rip.mkv") },
        // The same packets of the picture (md5 each); two Opus tracks beside it.
        "copy-picture": { try $0.compareTracks($1, file: "rip.mkv", copiedPicture: true) },
        // HandBrake's bwdif and autocrop against Medley's: measured identical pixels for the
        // interlaced clip, 43.3 dB for the letterboxed one; 31.4 dB is the interlaced source
        // against the deinterlaced output, so 40 dB says both deinterlaced.
        "deinterlace-crop": { try $0.compareDeinterlaceCrop($1) },
        // The same zscale+tonemap graph into libx264 at CRF 23: measured identical pixels.
        "hdr-to-sdr": { test, outputs in
            try test.compareMovies(outputs)
            try test.checkColours(outputs.medley + "/hlg.mp4", "yuv420p,bt709,bt709")
        },
        // libass on both sides: 47.5 dB measured; the picture without the text scores 31.5 dB
        // against Medley's, so compareMovies' 42 dB tells burned in from not.
        "burn-subs": { try $0.compareMovies($1) },
        "extract-subs": { try $0.compareSubtitleFiles($1) },
        "target-size": { try $0.compareTargetSize($1, bytes: 150_000) },
    ]

    // MARK: tests

    func testEveryRecipeHasAPeerAPipelineAndAMeasure() throws {
        let (recipes, problems) = Self.recipes(in: try String(contentsOfFile: Self.cookbook, encoding: .utf8))
        XCTAssertEqual(problems, [])
        XCTAssertGreaterThanOrEqual(recipes.count, 15, "the cookbook's recipes")
        let jobs = recipes.map(\.job)
        XCTAssertEqual(jobs.count, Set(jobs).count, "two recipes with one job name: \(jobs)")
        XCTAssertEqual(Set(jobs).subtracting(Self.measures.keys).sorted(), [], "recipes without a measure in CookbookTests")
        XCTAssertEqual(Set(Self.measures.keys).subtracting(jobs).sorted(), [], "measures without a recipe in docs/cookbook.md")
    }

    func testEveryRecipeRunsAndMatchesItsPeer() throws {
        let (recipes, problems) = Self.recipes(in: try String(contentsOfFile: Self.cookbook, encoding: .utf8))
        XCTAssertEqual(problems, [])
        try FileManager.default.createDirectory(atPath: work + "/fixtures", withIntermediateDirectories: true)
        for folder in Self.fixtureFolders {
            try FileManager.default.copyItem(atPath: Tool.fixtures + "/" + folder, toPath: work + "/fixtures/" + folder)
        }
        // The RAW recipes read fixtures/raw, which the clone leaves empty: the corpus's full-size RAWs go there.
        let raws = Tool.testData + "/realworld-raw/raw/full"
        XCTAssertTrue(FileManager.default.fileExists(atPath: raws + "/.done"), "the RAW corpus is missing: run scripts/test-data.sh")
        try FileManager.default.createDirectory(atPath: work + "/fixtures/raw", withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: raws)) ?? [] where !name.hasPrefix(".") {
            try FileManager.default.copyItem(atPath: raws + "/" + name, toPath: work + "/fixtures/raw/" + name)
        }
        for recipe in recipes {
            // A recipe that throws (a missing output, an unreadable tag) fails alone; the rest still run.
            do { try run(recipe) } catch { XCTFail("\(recipe.job): \(error)") }
        }
    }

    /// Runs one recipe's peer command (when its programs are installed) and pipeline in the scratch
    /// root, then its measure.
    func run(_ recipe: Recipe) throws {
        let missing = Self.programs(of: recipe.peer).filter { !Self.installed($0) }.sorted()
        if missing.isEmpty {
            let peer = try Tool.run("/bin/bash", ["-e", "-o", "pipefail", "-c", recipe.peer], in: work)
            XCTAssertEqual(peer.status, 0, "\(recipe.job): the peer's command failed: \(peer.stderr)")
        }
        let pipeline = try pipeline(recipe.pipeline, name: recipe.job + ".yaml")
        let run = try Tool.medley(["run", pipeline, "--quiet"])
        XCTAssertEqual(run.status, 0, "\(recipe.job): medley run: \(run.stdout)\(run.stderr)")
        let outputs = Outputs(root: work, peer: work + "/out/peer/" + recipe.job, medley: work + "/out/cookbook/" + recipe.job,
                              peerRan: missing.isEmpty, name: recipe.job)
        XCTAssertFalse(Tool.files(under: outputs.medley).isEmpty, "\(recipe.job): medley wrote nothing")
        guard let measure = Self.measures[recipe.job] else { return }  // testEveryRecipeHasAPeerAPipelineAndAMeasure names it
        try measure(self, outputs)
    }

    // MARK: pictures

    /// Each output of the peer beside Medley's of the same name: the same size, and PSNR over the
    /// 8-bit RGB samples ImageMagick decodes (of the whole picture, or of its bottom-right corner).
    func compareImages(_ outputs: Outputs, psnr threshold: Double, corner: (width: Int, height: Int)? = nil) throws {
        let peer = Tool.files(under: outputs.peer), medley = Tool.files(under: outputs.medley)
        XCTAssertFalse(peer.isEmpty, "\(outputs.name): the peer wrote nothing")
        XCTAssertEqual(medley, peer, "\(outputs.name): the files written")
        for file in Set(peer).intersection(medley).sorted() {
            let a = try Tool.pixels(outputs.peer + "/" + file), b = try Tool.pixels(outputs.medley + "/" + file)
            guard a.width == b.width, a.height == b.height else {
                XCTFail("\(outputs.name)/\(file): \(b.width)×\(b.height), the peer's \(a.width)×\(a.height)")
                continue
            }
            let x0 = corner.map { max(0, a.width - $0.width) } ?? 0, y0 = corner.map { max(0, a.height - $0.height) } ?? 0
            var squares = 0.0, count = 0
            for y in y0..<a.height {
                for x in x0..<a.width {
                    for channel in 0..<3 {
                        let index = (y * a.width + x) * 3 + channel
                        let difference = Double(a.samples[index] - b.samples[index])
                        squares += difference * difference
                        count += 1
                    }
                }
            }
            let mse = squares / Double(max(count, 1))
            let value = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
            XCTAssertGreaterThanOrEqual(value, threshold, "\(outputs.name)/\(file): PSNR against the peer's output")
        }
    }

    /// exiftool's values of `tags` equal in the peer's and Medley's file of each name; none of
    /// `none` in Medley's; `present` set in at least one file (so the recipe did something).
    func compareFields(_ outputs: Outputs, _ tags: [String], none: [String] = [], present: String? = nil) throws {
        var seen = false
        for file in Tool.files(under: outputs.medley) {
            let mine = outputs.medley + "/" + file
            for tag in tags where outputs.peerRan {
                let arguments = ["-s3", "-" + tag]
                XCTAssertEqual(try Tool.run("exiftool", arguments + [mine]).stdout, try Tool.run("exiftool", arguments + [outputs.peer + "/" + file]).stdout,
                               "\(outputs.name)/\(file): \(tag)")
            }
            for tag in none {
                XCTAssertEqual(try Tool.run("exiftool", ["-s", "-" + tag, mine]).stdout, "", "\(outputs.name)/\(file): \(tag) left")
            }
            if let present, try Tool.exif(mine, present) != nil { seen = true }
        }
        if present != nil { XCTAssertTrue(seen, "\(outputs.name): no output has \(present ?? "")") }
    }

    /// Neither side's outputs hold EXIF, XMP, IPTC or an ICC profile, by exiftool.
    func checkNoMetadata(_ outputs: Outputs) throws {
        for folder in [outputs.peer, outputs.medley] {
            for file in Tool.files(under: folder) {
                let groups = try Tool.run("exiftool", ["-s", "-G", "-EXIF:all", "-XMP:all", "-IPTC:all", "-ICC_Profile:all", folder + "/" + file])
                XCTAssertEqual(groups.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "", "\(folder)/\(file): metadata left")
            }
        }
    }

    // MARK: sound

    /// ffprobe's first audio stream and format fields of a file.
    func probe(_ path: String) throws -> (stream: [String: Any], duration: Double) {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                              "stream=codec_name,sample_rate,channels,bit_rate:format=duration", "-of", "json", path])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any], path)
        let stream = (json["streams"] as? [[String: Any]])?.first ?? [:]
        let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? -1
        return (stream, duration)
    }

    func soxi(_ flag: String, _ path: String) throws -> Int {
        let text = try Tool.run("soxi", [flag, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return try XCTUnwrap(Int(text), "soxi \(flag) \(path): \(text)")
    }

    /// The RMS level (dBFS) of one file minus the other, by SoX's `stats` of their mix with the
    /// second inverted; the files must have the same rate and channels.
    func differenceLevel(_ a: String, _ b: String) throws -> Double {
        let result = try Tool.run("sox", ["-m", "-v", "1", a, "-v", "-1", b, "-n", "stats"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("RMS lev dB") }, result.stderr)
        let value = try XCTUnwrap(line.split(separator: " ").dropFirst(3).first, String(line))
        return value == "-inf" ? -.infinity : try XCTUnwrap(Double(value), String(line))
    }

    /// The pairs of same-named outputs; fails when the two sides wrote different files.
    func pairs(_ outputs: Outputs) -> [(peer: String, medley: String)] {
        let peer = Tool.files(under: outputs.peer), medley = Tool.files(under: outputs.medley)
        XCTAssertFalse(peer.isEmpty, "\(outputs.name): the peer wrote nothing")
        XCTAssertEqual(medley, peer, "\(outputs.name): the files written")
        return Set(peer).intersection(medley).sorted().map { (outputs.peer + "/" + $0, outputs.medley + "/" + $0) }
    }

    /// AAC at the source's rate and channels, 128 kb/s, as long as the peer's (AAC frames are 1024
    /// samples, 23 ms at 44.1 kHz: the two may pad differently, by up to one frame).
    func compareAAC(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            let a = try probe(peer), b = try probe(medley)
            XCTAssertEqual(b.stream["codec_name"] as? String, "aac", medley)
            for key in ["codec_name", "sample_rate", "channels"] {
                XCTAssertEqual("\(b.stream[key] ?? "none")", "\(a.stream[key] ?? "none")", "\(medley): \(key)")
            }
            XCTAssertEqual(b.duration, a.duration, accuracy: 0.024, "\(medley): duration")
            let rate = try XCTUnwrap((b.stream["bit_rate"] as? String).flatMap(Double.init), medley)
            XCTAssertEqual(rate, 128_000, accuracy: 12_800, "\(medley): bit rate")
        }
    }

    /// 44.1 kHz, 16 bits, the source's channels and length, and the same samples as SoX's: two good
    /// sinc resamplers agree to about −70 dB RMS on a full-band sweep (measured −69.7 dB; −92 dB
    /// on the 5.1 tones), where a linear interpolator leaves about −30 dB; −60 dB tells them apart.
    func compareResampled(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            XCTAssertEqual(try soxi("-r", medley), 44100, medley)
            XCTAssertEqual(try soxi("-b", medley), 16, medley)
            XCTAssertEqual(try soxi("-c", medley), try soxi("-c", peer), medley)
            XCTAssertEqual(try soxi("-s", medley), try soxi("-s", peer), "\(medley): samples")
            XCTAssertLessThan(try differenceLevel(peer, medley), -60, "\(medley): difference from SoX's resampling")
        }
    }

    /// ffmpeg's `ebur128` (to 0.1 LU) reads Medley's output at −16 LUFS within 0.5 LU, true peak at
    /// most −1 dBTP (+0.2 for the meter's rounding and its own oversampling); the peer's within 1 LU
    /// (one-pass loudnorm rides its gain), rate and length the same as the peer's.
    func compareLoudness(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            let ours = try EBUR128.summary([medley])
            XCTAssertEqual(ours.integrated, -16, accuracy: 0.5, "\(medley): integrated loudness")
            XCTAssertLessThanOrEqual(ours.truePeak, -0.8, "\(medley): true peak")
            XCTAssertEqual(try EBUR128.summary([peer]).integrated, -16, accuracy: 1, "\(peer): the peer's loudness")
            XCTAssertEqual(try soxi("-r", medley), try soxi("-r", peer), medley)
            XCTAssertEqual(try soxi("-s", medley), try soxi("-s", peer), "\(medley): samples")
        }
    }

    /// The trimmed length as SoX's within 25 ms: SoX judges the level over 20 ms windows, Medley
    /// sample by sample, so Medley may keep up to a window more of a soft attack (measured: 15 ms).
    func compareTrim(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            let rate = Double(try soxi("-r", medley))
            XCTAssertEqual(rate, Double(try soxi("-r", peer)), medley)
            let ours = Double(try soxi("-s", medley)) / rate, theirs = Double(try soxi("-s", peer)) / rate
            XCTAssertEqual(ours, theirs, accuracy: 0.025, "\(medley): seconds left after the trim")
        }
    }

    /// The same samples as SoX's `fade t`: both apply the same linear ramps to the same 16-bit
    /// tone, so what is left is rounding (measured −92.7 dB RMS); −80 dB fails a ramp of another
    /// shape or length (a half-sine instead of a line leaves about −40 dB).
    func compareFades(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            XCTAssertEqual(try soxi("-s", medley), try soxi("-s", peer), "\(medley): samples")
            XCTAssertLessThan(try differenceLevel(peer, medley), -80, "\(medley): difference from SoX's fades")
        }
    }

    /// REPLAYGAIN_TRACK_GAIN (by ffprobe) is −18 LUFS minus the source's integrated loudness by
    /// ffmpeg's `ebur128` (to 0.1 LU, so within 0.15 dB), REPLAYGAIN_ALBUM_GAIN the same of all the
    /// album's sources played one after another; loudgain's tags, where it ran, within 0.1 dB.
    func compareReplayGain(_ outputs: Outputs) throws {
        func gain(_ key: String, _ path: String) throws -> Double {
            // Vorbis comments of Ogg are stream tags to ffprobe, FLAC's and ID3 are format tags.
            let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", path])
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any], path)
            var tags = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
            for stream in json["streams"] as? [[String: Any]] ?? [] {
                tags.merge(stream["tags"] as? [String: String] ?? [:]) { first, _ in first }
            }
            let text = try XCTUnwrap(tags.first { $0.key.uppercased() == key }?.value, "\(path): no \(key) in \(tags)")
            return try XCTUnwrap(Double(text.replacingOccurrences(of: " dB", with: "")), text)
        }
        let files = Tool.files(under: outputs.medley)
        XCTAssertGreaterThanOrEqual(files.count, 2, "\(outputs.name): an album has tracks")
        let music = outputs.root + "/fixtures/music"
        let sources = try files.map { file in
            try XCTUnwrap(Tool.files(under: music).first { ($0 as NSString).lastPathComponent == file }.map { music + "/" + $0 }, file)
        }
        let album = -18 - (try EBUR128.summary(sources).integrated)
        for (file, source) in zip(files, sources) {
            let ours = try gain("REPLAYGAIN_TRACK_GAIN", outputs.medley + "/" + file)
            XCTAssertEqual(ours, -18 - (try EBUR128.summary([source]).integrated), accuracy: 0.15, "\(file): track gain")
            let ourAlbum = try gain("REPLAYGAIN_ALBUM_GAIN", outputs.medley + "/" + file)
            XCTAssertEqual(ourAlbum, album, accuracy: 0.15, "\(file): album gain")
            guard outputs.peerRan else { continue }
            XCTAssertEqual(ours, try gain("REPLAYGAIN_TRACK_GAIN", outputs.peer + "/" + file), accuracy: 0.1, "\(file): loudgain's track gain")
            XCTAssertEqual(ourAlbum, try gain("REPLAYGAIN_ALBUM_GAIN", outputs.peer + "/" + file), accuracy: 0.1, "\(file): loudgain's album gain")
        }
    }

    /// Every file exiftool read (its JSON) has the same artist, album, title and genre in Medley's
    /// manifest (a tag exiftool finds no value for is absent from both).
    func compareReadTags(_ outputs: Outputs) throws {
        let peerJSON = try Data(contentsOf: URL(fileURLWithPath: outputs.peer + "/tags.json"))
        let peer = try XCTUnwrap(try JSONSerialization.jsonObject(with: peerJSON) as? [[String: Any]])
        let manifest = try String(contentsOfFile: outputs.medley + "/.medley/manifest-\(outputs.name).jsonl", encoding: .utf8)
        var properties: [String: [String: Any]] = [:]
        for line in manifest.split(separator: "\n") {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let input = try XCTUnwrap(record["input"] as? String)
            properties[(input as NSString).lastPathComponent] = record["properties"] as? [String: Any] ?? [:]
        }
        XCTAssertEqual(properties.count, peer.count, "\(outputs.name): the files read")
        for file in peer {
            let name = ((file["SourceFile"] as? String ?? "") as NSString).lastPathComponent
            let ours = try XCTUnwrap(properties[name], "\(name) is not in the manifest")
            for (exiftool, medley) in [("Artist", "artist"), ("Album", "albumTitle"), ("Title", "title"), ("Genre", "genre")] {
                XCTAssertEqual(ours[medley].map { "\($0)" }, file[exiftool].map { "\($0)" }, "\(name): \(medley)")
            }
        }
    }

    // MARK: movies

    /// The same codecs, picture size, audio rate and channels as ffmpeg's, the same length within a
    /// frame (40 ms at 25 fps), a video bit rate within 10 % and the same pictures: ffmpeg's `psnr`
    /// filter averages at least 42 dB. Both are libx264 at CRF 23 and measured identical here; libx264
    /// threaded differently on another machine may differ a little. typeLow's CRF 28 measures
    /// 39 dB and 20 % fewer bits.
    func compareMovies(_ outputs: Outputs) throws {
        for (peer, medley) in pairs(outputs) {
            func streams(_ path: String) throws -> ([[String: Any]], Double) {
                let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries",
                                                      "stream=codec_type,codec_name,width,height,sample_rate,channels:format=duration", "-of", "json", path])
                let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any], path)
                let duration = ((json["format"] as? [String: Any])?["duration"] as? String).flatMap(Double.init) ?? -1
                return ((json["streams"] as? [[String: Any]] ?? []).sorted { "\($0["codec_type"] ?? "")" < "\($1["codec_type"] ?? "")" }, duration)
            }
            let (a, aDuration) = try streams(peer), (b, bDuration) = try streams(medley)
            XCTAssertEqual(b.count, a.count, "\(medley): streams")
            for (theirs, ours) in zip(a, b) {
                for key in ["codec_type", "codec_name", "width", "height", "sample_rate", "channels"] {
                    XCTAssertEqual("\(ours[key] ?? "none")", "\(theirs[key] ?? "none")", "\(medley): \(key)")
                }
            }
            XCTAssertEqual(bDuration, aDuration, accuracy: 0.04, "\(medley): duration")
            let psnr = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", peer, "-i", medley, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
            let line = try XCTUnwrap(psnr.stderr.split(separator: "\n").first { $0.contains("PSNR") && $0.contains("average:") }, psnr.stderr)
            let field = try XCTUnwrap(line.components(separatedBy: "average:").last?.split(separator: " ").first, String(line))
            let average = field == "inf" ? Double.infinity : try XCTUnwrap(Double(field), String(line))
            XCTAssertGreaterThanOrEqual(average, 42, "\(medley): PSNR of the pictures against ffmpeg's")
            let rates = try [peer, medley].map { path -> Double in
                let text = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate",
                                                    "-of", "csv=p=0", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                return try XCTUnwrap(Double(text), "\(path): video bit rate '\(text)'")
            }
            XCTAssertEqual(rates[1], rates[0], accuracy: rates[0] / 10, "\(medley): video bit rate against ffmpeg's")
        }
    }

    // MARK: movies kept whole (docs/movies.md#tracks)

    /// ffprobe's streams as "type codec language title default forced" lines.
    func trackLines(_ path: String) throws -> [String] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_entries",
                                              "stream=codec_type,codec_name:stream_tags=language,title:stream_disposition=default,forced",
                                              "-of", "json", path])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.data) as? [String: Any], path)
        return (json["streams"] as? [[String: Any]] ?? []).map { stream in
            let tags = stream["tags"] as? [String: Any] ?? [:], disposition = stream["disposition"] as? [String: Any] ?? [:]
            return [stream["codec_type"] as? String ?? "", stream["codec_name"] as? String ?? "",
                    tags["language"] as? String ?? "-", tags["title"] as? String ?? "-",
                    "default=\(disposition["default"] as? Int ?? -1)", "forced=\(disposition["forced"] as? Int ?? -1)"]
                .joined(separator: " ")
        }
    }

    /// ffprobe's chapters as "start end title" lines.
    func chapterLines(_ path: String) throws -> [String] {
        try Tool.run("ffprobe", ["-v", "error", "-show_entries", "chapter=start_time,end_time:chapter_tags=title", "-of", "csv=p=0", path])
            .stdout.split(separator: "\n").map(String.init)
    }

    /// ffmpeg's `psnr` average of the two files' pictures (infinity for identical ones).
    func picturePSNR(_ a: String, _ b: String) throws -> Double {
        let psnr = try Tool.run("ffmpeg", ["-hide_banner", "-nostats", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let line = try XCTUnwrap(psnr.stderr.split(separator: "\n").first { $0.contains("PSNR") && $0.contains("average:") }, psnr.stderr)
        let field = try XCTUnwrap(line.components(separatedBy: "average:").last?.split(separator: " ").first, String(line))
        return field == "inf" ? .infinity : try XCTUnwrap(Double(field), String(line))
    }

    /// Every track and chapter of the source kept: Medley's streams read as the source's (the
    /// picture and sound codecs as the peer's), the peer's the same but the default flag (ffmpeg's
    /// CLI marks the first subtitle default when none is), the chapters the peer's; the pictures
    /// within 42 dB of the peer's, or (a copied picture) the same packets.
    func compareTracks(_ outputs: Outputs, file: String, copiedPicture: Bool = false) throws {
        let peer = outputs.peer + "/" + file, medley = outputs.medley + "/" + file
        let source = try trackLines(outputs.root + "/fixtures/movies-tracks/" + file), ours = try trackLines(medley)
        // Kind, language, title and flags: every field but the codec.
        func withoutCodec(_ lines: [String]) -> [String] {
            lines.map { line in line.split(separator: " ").enumerated().filter { $0.offset != 1 }.map { String($0.element) }.joined(separator: " ") }
        }
        XCTAssertEqual(ours.count, 5, "\(outputs.name): \(ours)")
        XCTAssertEqual(withoutCodec(ours), withoutCodec(source), "\(outputs.name): languages, titles and flags as the source's")
        let codecs = ours.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        guard outputs.peerRan else { return }
        let theirs = try trackLines(peer)
        func withoutDefault(_ lines: [String]) -> [String] { lines.map { $0.replacingOccurrences(of: #" default=\d"#, with: "", options: .regularExpression) } }
        XCTAssertEqual(withoutDefault(ours), withoutDefault(theirs), "\(outputs.name): streams against ffmpeg's")
        XCTAssertEqual(codecs, theirs.map { $0.split(separator: " ").prefix(2).joined(separator: " ") })
        XCTAssertEqual(try chapterLines(medley), try chapterLines(peer), "\(outputs.name): chapters")
        XCTAssertEqual(try chapterLines(medley).count, 2, "\(outputs.name): chapters")
        if copiedPicture {
            func hashes(_ path: String) throws -> [String] {
                try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=data_hash", "-show_data_hash", "md5",
                                         "-of", "csv=p=0", path]).stdout.split(separator: "\n").map(String.init)
            }
            let ourHashes = try hashes(medley)
            XCTAssertFalse(ourHashes.isEmpty)
            XCTAssertEqual(ourHashes, try hashes(peer), "\(outputs.name): the picture's packets")
        } else {
            XCTAssertGreaterThanOrEqual(try picturePSNR(peer, medley), 42, "\(outputs.name): PSNR against ffmpeg's pictures")
        }
    }

    /// pix_fmt, color_transfer and color_primaries of the first picture stream, as ffprobe's csv.
    func checkColours(_ path: String, _ expected: String) throws {
        let tags = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                            "stream=pix_fmt,color_transfer,color_primaries", "-of", "csv=p=0", path]).stdout
        XCTAssertEqual(tags.trimmingCharacters(in: .whitespacesAndNewlines), expected, path)
    }

    /// Both outputs progressive (ffprobe's field order), 320×180 (the letterbox's bars off, the
    /// interlaced clip whole), as many frames, and the pictures within 40 dB of HandBrake's.
    func compareDeinterlaceCrop(_ outputs: Outputs) throws {
        for name in ["interlaced.mp4", "letterbox.mp4"] {
            let medley = outputs.medley + "/" + name
            func fields(_ path: String) throws -> String {
                try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,field_order,nb_frames",
                                         "-of", "csv=p=0", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            XCTAssertEqual(try fields(medley), "320,180,progressive,50", "\(outputs.name)/\(name)")
            guard outputs.peerRan else { continue }
            let peer = outputs.peer + "/" + name
            XCTAssertEqual(try fields(medley), try fields(peer), "\(outputs.name)/\(name) against HandBrake's")
            XCTAssertGreaterThanOrEqual(try picturePSNR(peer, medley), 40, "\(outputs.name)/\(name): PSNR against HandBrake's pictures")
        }
    }

    /// Each subtitle file the peer wrote is in Medley's folder with the same bytes.
    func compareSubtitleFiles(_ outputs: Outputs) throws {
        let peer = Tool.files(under: outputs.peer).filter { $0.hasSuffix(".srt") }
        XCTAssertEqual(peer, ["rip.eng.srt", "rip.fre.forced.srt"], "\(outputs.name): the peer's files")
        XCTAssertEqual(Tool.files(under: outputs.medley).filter { $0.hasSuffix(".srt") }, peer, "\(outputs.name): the files written")
        for file in peer {
            let ours = FileManager.default.contents(atPath: outputs.medley + "/" + file)
            XCTAssertNotNil(ours, file)
            XCTAssertEqual(ours, FileManager.default.contents(atPath: outputs.peer + "/" + file), "\(outputs.name)/\(file): bytes")
        }
    }

    /// The file within 10 % of the size asked (x264's two passes land 7.7 % under on these 2 s,
    /// ffmpeg's at the same rate 4.3 %), and within 10 % of the peer's file and video bit rate.
    func compareTargetSize(_ outputs: Outputs, bytes: Int) throws {
        let medley = outputs.medley + "/rip.mp4", peer = outputs.peer + "/rip.mp4"
        func size(_ path: String) throws -> Double {
            Double(try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, path))
        }
        func videoRate(_ path: String) throws -> Double {
            let text = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=bit_rate", "-of", "csv=p=0", path])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return try XCTUnwrap(Double(text), "\(path): video bit rate '\(text)'")
        }
        XCTAssertEqual(try size(medley), Double(bytes), accuracy: Double(bytes) / 10, "\(outputs.name): bytes against the target")
        guard outputs.peerRan else { return }
        XCTAssertEqual(try size(medley), try size(peer), accuracy: try size(peer) / 10, "\(outputs.name): bytes against ffmpeg's")
        XCTAssertEqual(try videoRate(medley), try videoRate(peer), accuracy: try videoRate(peer) / 10, "\(outputs.name): video bit rate")
    }
}
