import Foundation
import MedleyCore
import MedleyFilters

/// `medley run -i photos/ -o web/ --filter 'CISepiaTone inputIntensity=0.8' --resize 800 --format webp`:
/// the one-job pipeline a command line's flags stand for, written as pipeline text.
///
/// The text is the job: `PipelineReader` reads and validates it as it reads any file (the same
/// diagnostics, run state and manifests), and `--print-pipeline` prints it, so a file saved from it
/// runs the same job byte for byte. The flags only choose what to write; they check no value the
/// reader checks. Each line of the text remembers the flag that wrote it, so a problem the reader
/// finds is told at that flag (`describe`), not at a line of generated YAML.
struct OneLineJob {
    /// The pipeline, as YAML text.
    private(set) var text = ""
    /// The flag behind each line of `text` as the user wrote it ("--quality 150"), by line number from 1.
    private(set) var origins: [Int: String] = [:]
    /// The job's name (`--job-name`, else the output folder's).
    private(set) var jobName = ""

    /// What `--help` calls the flags, in the order the printed command line lists them.
    static let options: [Option] = [
        Option("--input", "i", value: "PATH", """
            one-line job: a folder, file or glob to ingest (may be given more than once); with -o, runs the
            one-job pipeline the flags make instead of a pipeline file
            """),
        Option("--output", "o", value: "FOLDER", "one-line job: the export folder"),
        Option("--filter", value: "'NAME KEY=VALUE…'", """
            one-line job: a filter of the catalogue with its parameters, e.g. 'CISepiaTone inputIntensity=0.8'
            or 'CIColorCube file=looks/film.cube intensity=0.8' (may be given more than once: applied in order,
            after --resize); 'medley filters describe NAME' lists a filter's parameters
            """),
        Option("--lut", value: "FILE", "one-line job: a .cube LUT (a look) applied after the --filter steps (CIColorCube)"),
        Option("--resize", value: "SIZE", """
            one-line job: WIDTH (height follows), xHEIGHT, or WIDTHxHEIGHT (fit inside the box); a suffix as
            ImageMagick's: '>' shrinks only, '^' covers the box and crops the centre, '!' stretches to it.
            The chain's first step, so a JPEG shrinks while it decodes
            """),
        Option("--resize-mode", value: "MODE", "one-line job: aspectFit (the default), aspectFill, fill or none"),
        Option("--crop", value: "CROP", "one-line job: cover the --resize box and keep: centre, attention, entropy or a gravity (north … northwest)"),
        Option("--no-enlarge", "one-line job: --resize never scales a smaller image up"),
        Option("--format", value: "FORMAT", "one-line job: the image format written: jpeg, png, webp, avif, heif, jxl, tiff, gif or same"),
        Option("--quality", value: "Q", "one-line job: the image encoder's quality, 1…100"),
        Option("--strip-metadata", "one-line job: write images without EXIF, XMP and IPTC (export.strip)"),
        Option("--profile", value: "PROFILE", "one-line job: the images' colour profile: keep (the default), srgb, p3, adobe-rgb or an .icc file"),
        Option("--transcode", value: "FORMAT", """
            one-line job: audio to aac, alac, flac, opus, mp3, wav, aiff, pcm (CAF), ima4, ulaw or alaw (or an
            AVFormatIDKey constant); movies to a videoQuality preset (typeHigh, typeMedium, typeLow, type640x480,
            typeIFrame960x540, typeIFrame1280x720)
            """),
        Option("--bit-rate", value: "RATE", "one-line job: the audio bit rate, e.g. 128k or 128000"),
        Option("--sample-rate", value: "RATE", "one-line job: the audio sample rate, e.g. 44100 or 48k"),
        Option("--channels", value: "N", "one-line job: the audio channel count (mono, stereo or 1…8)"),
        Option("--normalize", value: "TARGET", """
            one-line job: loudness to -16LUFS (with a true-peak ceiling: -16LUFS,-1dBTP), a preset (podcast,
            streaming, broadcast, audiobook), or a peak level (-1dBFS)
            """),
        Option("--gain", value: "LEVEL", "one-line job: a fixed audio gain, e.g. -3dB"),
        Option("--name", value: "TEMPLATE", "one-line job: the output name template (default \"{relpath}/{stem}.{ext}\")"),
        Option("--where", value: "CONDITION", """
            one-line job: take only items whose property passes, e.g. 'genre=ambient', 'year>=2000',
            'title~live' (operators = != < <= > >= ~ for contains; may be given more than once: all must hold)
            """),
        Option("--media", value: "TYPE", "one-line job: the media to take: image, anyAudio, music, podcast, audioBook, anyVideo, … (may repeat)"),
        Option("--include", value: "GLOB", "one-line job: take only files matching the glob, e.g. '*.jpg' (may repeat)"),
        Option("--exclude", value: "GLOB", "one-line job: leave out files matching the glob, e.g. 'thumbs/**' (may repeat)"),
        Option("--no-recursive", "one-line job: take only the input folders' own files, not their subfolders'"),
        Option("--job-name", value: "NAME", "one-line job: the job's name (default: the output folder's name); names its manifest"),
        Option("--print-pipeline", "one-line job: print the pipeline the flags make (a file to save and run) and run nothing"),
    ]

    /// The options above by name, for telling a one-line job's flags from the run options.
    static let names = Set(options.map(\.name))

    /// The one-line flags a command line gives, by name, in the order `options` declares them.
    static func given(_ parsed: ParsedArguments) -> [String] {
        options.map(\.name).filter { parsed.flag($0) || parsed.values[$0] != nil }
    }

    /// Short names of audio formats and the transcode settings each stands for.
    static let audioFormats: [(name: String, constant: String, fileExtension: String?)] = [
        ("aac", "kAudioFormatMPEG4AAC", nil), ("m4a", "kAudioFormatMPEG4AAC", nil),
        ("alac", "kAudioFormatAppleLossless", nil), ("flac", "kAudioFormatFLAC", nil),
        ("opus", "kAudioFormatOpus", nil), ("mp3", "kAudioFormatMPEGLayer3", nil),
        ("wav", "kAudioFormatLinearPCM", "wav"), ("aiff", "kAudioFormatLinearPCM", "aiff"),
        ("pcm", "kAudioFormatLinearPCM", nil), ("caf", "kAudioFormatLinearPCM", nil),
        ("ima4", "kAudioFormatAppleIMA4", nil), ("ulaw", "kAudioFormatULaw", nil), ("alaw", "kAudioFormatALaw", nil),
    ]
    /// The movie presets `--transcode` takes (UIImagePickerController.QualityType names).
    static let moviePresets = ["typeHigh", "typeMedium", "typeLow", "type640x480", "typeIFrame960x540", "typeIFrame1280x720"]
    /// The `ingest.media` a job gets when `--format` names an image format and nothing says otherwise.
    static let imageFormats = ["jpeg", "jpg", "png", "webp", "tiff", "tif", "heif", "heic", "avif", "jxl", "gif"]

    /// The pipeline `parsed`'s one-line flags make, run from `directory` (relative paths stay as
    /// written: the reader resolves them against the folder the text is read from). Throws a
    /// `UsageError` naming the flag for a value no pipeline could say (a size that is no size).
    init(_ parsed: ParsedArguments, directory: String) throws {
        let inputs = parsed.all("--input")
        guard !inputs.isEmpty, let output = parsed.value("--output") else {
            throw UsageError("a one-line job needs -i INPUT (a folder, file or glob) and -o OUTPUT (a folder), e.g. "
                             + "medley run -i photos/ -o web/ --resize 800 --format webp", showsUsage: true)
        }
        for single in ["--output", "--resize", "--resize-mode", "--crop", "--format", "--quality", "--profile", "--lut", "--transcode",
                       "--bit-rate", "--sample-rate", "--channels", "--normalize", "--gain", "--name", "--job-name"]
        where parsed.all(single).count > 1 {
            throw UsageError("\(single) is given \(parsed.all(single).count) times; a one-line job takes one")
        }
        jobName = try Self.jobName(parsed, output: output)

        // Header: the command that made the file and where its relative paths lead.
        line("# The one-line job: " + Self.commentText(Self.commandLine(parsed)))
        line("# Relative paths are read from this file's folder: it was made in " + Self.commentText(directory) + ".")
        line("# Every key: docs/pipelines.md; the flags: docs/one-line-jobs.md.")
        line("version: 1")

        // Files a filter or the profile names are read from declared folders only: those the flags name.
        var assetFolders: [String] = []
        let filters = try parsed.all("--filter").map { spec -> FilterFlag in
            let step = try FilterFlag(spec)
            for (key, value) in step.parameters
            where FilterRegistry.attributes(of: step.name)?.parameter(key)?.type == .file {
                assetFolders.append(Self.folder(of: value))
            }
            return step
        }
        if let lut = parsed.value("--lut") { assetFolders.append(Self.folder(of: lut)) }
        if let profile = parsed.value("--profile"), Self.isProfileFile(profile) { assetFolders.append(Self.folder(of: profile)) }
        var seen = Set<String>()
        assetFolders = assetFolders.filter { seen.insert($0).inserted }
        if !assetFolders.isEmpty {
            line("assets: [\(assetFolders.map(YAMLText.scalar).joined(separator: ", "))]   # folders a LUT or profile is read from",
                 from: Self.flags(parsed, ["--filter", "--lut", "--profile"]))
        }
        line("jobs:")
        // A problem of the whole job (its export folder against its inputs) is told at the flags that place it.
        line("  - name: \(YAMLText.scalar(jobName))",
             from: parsed.value("--job-name").map { Self.flag("--job-name", $0) } ?? Self.flags(parsed, ["--input", "--output"]))

        try writeIngest(parsed, inputs: inputs)
        try writeWhere(parsed)
        try writeFilters(parsed, filters: filters)
        try writeTranscode(parsed)
        writeExport(parsed, output: output)
    }

    // MARK: stages

    private mutating func writeIngest(_ parsed: ParsedArguments, inputs: [String]) throws {
        line("    ingest:", from: Self.flags(parsed, ["--input"]))
        line("      from: [\(inputs.map(YAMLText.scalar).joined(separator: ", "))]", from: Self.flags(parsed, ["--input"]))
        var media = parsed.all("--media")
        var comment = ""
        if media.isEmpty, parsed.value("--transcode") == nil, let format = parsed.value("--format"),
           Self.imageFormats.contains(format.lowercased()) {
            // Without it, a job with no filter would copy the folder's audio and movies too.
            media = ["image"]
            comment = "   # --format converts images: only images are taken"
        }
        if !media.isEmpty {
            line("      media: [\(media.map(YAMLText.scalar).joined(separator: ", "))]\(comment)",
                 from: Self.flags(parsed, comment.isEmpty ? ["--media"] : ["--format"]))
        }
        let include = parsed.all("--include"), exclude = parsed.all("--exclude")
        if !include.isEmpty {
            line("      include: [\(include.map(YAMLText.quoted).joined(separator: ", "))]", from: Self.flags(parsed, ["--include"]))
        }
        if !exclude.isEmpty {
            line("      exclude: [\(exclude.map(YAMLText.quoted).joined(separator: ", "))]", from: Self.flags(parsed, ["--exclude"]))
        }
        if parsed.flag("--no-recursive") { line("      recursive: false", from: "--no-recursive") }
    }

    /// `--where 'year>=2000'` → `where: { year: { gte: 2000 } }`; conditions on one property share its line.
    private mutating func writeWhere(_ parsed: ParsedArguments) throws {
        let conditions = parsed.all("--where")
        guard !conditions.isEmpty else { return }
        var order: [String] = []
        var byProperty: [String: [(operator: String, value: String, flag: String)]] = [:]
        for condition in conditions {
            let flag = Self.flag("--where", condition)
            guard let split = WhereFlag(condition) else {
                throw UsageError("\(flag): write PROPERTY OPERATOR VALUE, e.g. 'genre=ambient' or 'year>=2000' "
                                 + "(operators = != < <= > >= and ~ for contains)")
            }
            if byProperty[split.property] == nil { order.append(split.property) }
            byProperty[split.property, default: []].append((split.operator, split.value, flag))
        }
        line("    where:", from: Self.flags(parsed, ["--where"]))
        for property in order {
            let tests = byProperty[property] ?? []
            let flags = tests.map(\.flag).joined(separator: " ")
            if tests.count == 1, tests[0].operator == "eq" {
                line("      \(YAMLText.scalar(property)): \(YAMLText.scalar(tests[0].value, keywords: true))", from: flags)
            } else {
                let pairs = tests.map { "\($0.operator): \(YAMLText.scalar($0.value, keywords: true))" }
                line("      \(YAMLText.scalar(property)): { \(pairs.joined(separator: ", ")) }", from: flags)
            }
        }
    }

    private mutating func writeFilters(_ parsed: ParsedArguments, filters: [FilterFlag]) throws {
        let resize = try parsed.value("--resize").map {
            try ResizeFlag($0, mode: parsed.value("--resize-mode"), noEnlarge: parsed.flag("--no-enlarge"), crop: parsed.value("--crop"))
        }
        if resize == nil {
            for flag in ["--resize-mode", "--no-enlarge", "--crop"] where parsed.flag(flag) || parsed.value(flag) != nil {
                throw UsageError("\(flag) shapes --resize; give --resize SIZE too (e.g. --resize 800x600 \(flag)…)")
            }
        }
        let lut = parsed.value("--lut")
        guard resize != nil || !filters.isEmpty || lut != nil else { return }
        line("    filters:", from: Self.flags(parsed, ["--resize", "--filter", "--lut"]))
        if let resize {
            let origin = Self.flags(parsed, ["--resize", "--resize-mode", "--no-enlarge", "--crop"])
            line("      - resize: { \(resize.fields) }   # first: a JPEG shrinks while it decodes", from: origin)
        }
        for step in filters {
            let fields = step.parameters.map { "\(YAMLText.scalar($0.key)): \(YAMLText.value($0.value))" }
            line("      - " + YAMLText.scalar(step.name) + (fields.isEmpty ? "" : ": { \(fields.joined(separator: ", ")) }"),
                 from: Self.flag("--filter", step.spec))
        }
        if let lut {
            line("      - CIColorCube: { file: \(YAMLText.scalar(lut)) }", from: Self.flag("--lut", lut))
        }
    }

    private mutating func writeTranscode(_ parsed: ParsedArguments) throws {
        let audioFlags = ["--bit-rate", "--sample-rate", "--channels", "--normalize", "--gain"]
        guard let format = parsed.value("--transcode") else {
            if let stray = audioFlags.first(where: { parsed.value($0) != nil }) {
                throw UsageError("\(stray) sets how audio is transcoded; give --transcode FORMAT too (e.g. --transcode aac \(stray) …)")
            }
            return
        }
        let formatFlag = Self.flag("--transcode", format)
        line("    transcode:", from: formatFlag)
        if Self.moviePresets.contains(format) {
            line("      videoQuality: \(format)   # H.264 and AAC in MP4", from: formatFlag)
        } else if let known = Self.audioFormats.first(where: { $0.name == format.lowercased() }) {
            line("      AVFormatIDKey: \(known.constant)", from: formatFlag)
        } else if format.hasPrefix("kAudioFormat") {
            line("      AVFormatIDKey: \(YAMLText.scalar(format))", from: formatFlag)
        } else if format == "systemSound" {
            line("      preset: systemSound", from: formatFlag)
        } else {
            let names = Self.audioFormats.map(\.name) + Self.moviePresets + ["systemSound"]
            throw UsageError("\(formatFlag): unknown format"
                             + (nearest(format, in: names).map { "; did you mean '\($0)'?" } ?? "")
                             + " (audio: \(Self.audioFormats.map(\.name).joined(separator: ", ")) or an AVFormatIDKey constant; "
                             + "movies: \(Self.moviePresets.joined(separator: ", ")))")
        }
        if let rate = parsed.value("--bit-rate") {
            line("      AVEncoderBitRateKey: \(YAMLText.scalar(Self.rate(rate) ?? rate))", from: Self.flag("--bit-rate", rate))
        }
        if let rate = parsed.value("--sample-rate") {
            line("      AVSampleRateKey: \(YAMLText.scalar(Self.rate(rate, unit: "hz") ?? rate))", from: Self.flag("--sample-rate", rate))
        }
        if let channels = parsed.value("--channels") {
            let count = ["mono": "1", "stereo": "2"][channels.lowercased()] ?? channels
            line("      AVNumberOfChannelsKey: \(YAMLText.scalar(count))", from: Self.flag("--channels", channels))
        }
        if let target = parsed.value("--normalize") {
            line("      normalize: \(Self.normalize(target))", from: Self.flag("--normalize", target))
        }
        if let gain = parsed.value("--gain") {
            line("      gain: \(YAMLText.scalar(gain))", from: Self.flag("--gain", gain))
        }
    }

    private mutating func writeExport(_ parsed: ParsedArguments, output: String) {
        line("    export:", from: Self.flag("-o", output))
        line("      to: \(YAMLText.scalar(output))", from: Self.flag("-o", output))
        if let format = parsed.value("--format") { line("      format: \(YAMLText.scalar(format))", from: Self.flag("--format", format)) }
        if let quality = parsed.value("--quality") { line("      quality: \(YAMLText.scalar(quality))", from: Self.flag("--quality", quality)) }
        if parsed.flag("--strip-metadata") { line("      strip: true", from: "--strip-metadata") }
        if let profile = parsed.value("--profile") {
            line("      profile: \(YAMLText.scalar(profile))", from: Self.flag("--profile", profile))
            if parsed.flag("--strip-metadata"), profile.lowercased() != "keep" {
                // The profile named is what the pixels are in: it stays when the rest is stripped.
                line("      keepProfile: true   # --profile is embedded even with --strip-metadata",
                     from: "--strip-metadata " + Self.flag("--profile", profile))
            }
        }
        if let name = parsed.value("--name") {
            line("      name: \(YAMLText.quoted(name))", from: Self.flag("--name", name))
        } else {
            // A WAV or AIFF is linear PCM in that container: the extension chooses it.
            let container = parsed.value("--transcode").flatMap { format in
                Self.audioFormats.first { $0.name == format.lowercased() }?.fileExtension
            }
            line("      name: \(YAMLText.quoted("{relpath}/{stem}." + (container ?? "{ext}")))   # the input's subfolders and name, kept")
        }
    }

    // MARK: the text and its origins

    private mutating func line(_ content: String, from origin: String? = nil) {
        let number = text.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        if let origin { origins[number] = origin }
        text += content + "\n"
    }

    /// A problem the reader found, told at the flag behind its line.
    func describe(_ diagnostic: Diagnostic) -> String {
        let message = diagnostic.message + (diagnostic.suggestion.map { "; \($0)" } ?? "")
        if message.hasPrefix("--") { return message }  // --set's own problems name it already
        guard let origin = origins[diagnostic.mark.line] else {
            return "the one-line job (line \(diagnostic.mark.line) of what --print-pipeline prints): \(message)"
        }
        return "\(origin): \(message)"
    }

    // MARK: flag values

    /// `--name value` as a person would type it again, the value quoted for a shell when it needs it.
    static func flag(_ name: String, _ value: String) -> String {
        "\(name) \(shellQuoted(value))"
    }

    /// Every value the flags in `names` were given, as typed ("-i a -i b"); nil when none was.
    static func flags(_ parsed: ParsedArguments, _ names: [String], short: String? = nil) -> String? {
        var parts: [String] = []
        for name in names {
            let written = short ?? ["--input": "-i", "--output": "-o"][name] ?? name
            if parsed.flag(name) { parts.append(written) }
            for value in parsed.all(name) { parts.append(flag(written, value)) }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The command line the one-line flags spell, in declaration order (for the file's header).
    static func commandLine(_ parsed: ParsedArguments) -> String {
        var parts = ["medley run"]
        for option in options where option.name != "--print-pipeline" {
            let written = option.short.map { "-\($0)" } ?? option.name
            if parsed.flag(option.name) { parts.append(written) }
            for value in parsed.all(option.name) { parts.append(flag(written, value)) }
        }
        return parts.joined(separator: " ")
    }

    /// Text for a comment line: a line break or other control character would end the comment.
    static func commentText(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { YAMLText.isPrintable($0) && $0 != "\n" ? $0 : "?" }))
    }

    static func shellQuoted(_ text: String) -> String {
        let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,:@%")
        if !text.isEmpty, text.unicodeScalars.allSatisfy(plain.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `--job-name`, else the output folder's last name when it makes a job name, else "one-line".
    static func jobName(_ parsed: ParsedArguments, output: String) throws -> String {
        if let name = parsed.value("--job-name") { return name }
        let last = (output as NSString).standardizingPath.split(separator: "/").last.map(String.init) ?? ""
        let fit = !last.isEmpty && last != "." && last != ".." && last.count <= 100
            && last.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0) }
        return fit ? last : "one-line"
    }

    /// The folder holding a file a flag names ("." for a bare name): it becomes one of `assets:`.
    static func folder(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    static func isProfileFile(_ text: String) -> Bool {
        text.contains("/") || text.lowercased().hasSuffix(".icc") || text.lowercased().hasSuffix(".icm")
    }

    /// "128k" → "128000", "44.1k" → "44100", "48kHz" → "48000", "1.5M" → "1500000"; nil for anything
    /// else (the reader then says what the key takes, at the flag).
    static func rate(_ text: String, unit: String = "b/s") -> String? {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        for suffix in [unit, "bps", "b/s", "hz"] where value.hasSuffix(suffix) { value = String(value.dropLast(suffix.count)) }
        var factor = 1.0
        if value.hasSuffix("k") { factor = 1e3 } else if value.hasSuffix("m") { factor = 1e6 }
        if factor != 1 { value = String(value.dropLast()) }
        guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let number = Double(value), number.isFinite else { return nil }
        let scaled = (number * factor).rounded()
        // Only exact whole rates within reach of any key; the reader checks each key's own range.
        guard scaled == number * factor, scaled >= 0, scaled < 1e12 else { return nil }
        return String(Int(scaled))
    }

    /// `--normalize`: a preset, `-16LUFS` or `-16LUFS,-1dBTP` (loudness), or `-1dBFS` (a peak).
    static func normalize(_ text: String) -> String {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let upper = text.uppercased()
        if parts.count == 2 {
            return "{ loudness: \(YAMLText.scalar(parts[0])), truePeak: \(YAMLText.scalar(parts[1])) }"
        }
        if upper.hasSuffix("LUFS") || upper.hasSuffix("LKFS") { return "{ loudness: \(YAMLText.scalar(text)) }" }
        if upper.hasSuffix("DBFS") { return "{ peak: \(YAMLText.scalar(text)) }" }
        return YAMLText.scalar(text)
    }
}

/// `--filter 'NAME key=value key="a b" key=[1, 2]'`: a filter's name and its parameters in order.
struct FilterFlag {
    let spec: String
    let name: String
    let parameters: [(key: String, value: String)]

    init(_ spec: String) throws {
        self.spec = spec
        let words = try Self.words(spec)
        guard let name = words.first, !name.contains("=") else {
            throw UsageError("--filter \(OneLineJob.shellQuoted(spec)): start with the filter's name, e.g. 'CISepiaTone inputIntensity=0.8' "
                             + "('medley filters list' shows them)")
        }
        self.name = name
        var parameters: [(key: String, value: String)] = []
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("--filter \(OneLineJob.shellQuoted(spec)): '\(word)' is not KEY=VALUE; "
                                 + "'medley filters describe \(name)' lists the parameters of \(name)")
            }
            parameters.append((String(word[..<equals]), String(word[word.index(after: equals)...])))
        }
        self.parameters = parameters
    }

    /// Words split at spaces; quotes ('…', "…") and brackets ([…]) keep spaces inside one word.
    static func words(_ text: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var started = false
        var quote: Character?
        var depth = 0
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            switch character {
            case "'", "\"": quote = character; started = true
            case "[": depth += 1; current.append(character); started = true
            case "]": depth -= 1; current.append(character)
            case " " where depth <= 0, "\t" where depth <= 0:
                if started { words.append(current) }
                current = ""
                started = false
            default: current.append(character); started = true
            }
        }
        if quote != nil { throw UsageError("--filter \(OneLineJob.shellQuoted(text)): a quote is not closed") }
        if started { words.append(current) }
        return words
    }
}

/// `--resize 800`, `x600`, `800x600`, with ImageMagick's suffixes: '>' shrink only, '^' cover, '!' stretch.
struct ResizeFlag {
    let fields: String

    /// `crop` (vipsthumbnail's --smartcrop, sharp's position) covers the box: aspectFill.
    init(_ text: String, mode: String?, noEnlarge: Bool, crop: String? = nil) throws {
        var size = Substring(text.trimmingCharacters(in: .whitespaces))
        var suffixMode: String?
        var enlarge = !noEnlarge
        while let last = size.last, ">^!".contains(last) {
            switch last {
            case ">": enlarge = false
            case "^": suffixMode = "aspectFill"
            default: suffixMode = "fill"
            }
            size = size.dropLast()
        }
        let sides = size.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let digits = { (side: String) in side.isEmpty || side.allSatisfy { $0.isASCII && $0.isNumber } }
        guard !size.isEmpty, sides.count <= 2, sides.allSatisfy(digits), sides.contains(where: { !$0.isEmpty }) else {
            throw UsageError("--resize \(OneLineJob.shellQuoted(text)): give WIDTH, xHEIGHT or WIDTHxHEIGHT in pixels, "
                             + "e.g. 800 or 800x600 (suffix '>' shrinks only, '^' covers the box, '!' stretches)")
        }
        if let mode, suffixMode != nil, mode != suffixMode {
            throw UsageError("--resize \(OneLineJob.shellQuoted(text)) --resize-mode \(mode): the suffix already chooses \(suffixMode ?? "")")
        }
        if let crop, let chosen = mode ?? suffixMode, chosen != "aspectFill" {
            throw UsageError("--crop \(OneLineJob.shellQuoted(crop)) keeps part of a picture that covers the box: "
                             + "it goes with aspectFill (--resize WxH^ or no mode), not \(chosen)")
        }
        var fields: [String] = []
        if !sides[0].isEmpty { fields.append("width: \(sides[0])") }
        if sides.count == 2, !sides[1].isEmpty { fields.append("height: \(sides[1])") }
        fields.append("mode: \(YAMLText.scalar(mode ?? suffixMode ?? (crop != nil ? "aspectFill" : "aspectFit")))")
        if !enlarge { fields.append("enlarge: false") }
        if let crop { fields.append("crop: \(YAMLText.scalar(crop))") }
        self.fields = fields.joined(separator: ", ")
    }
}

/// `--where 'year>=2000'`: a property, a `where:` operator and its operand.
struct WhereFlag {
    let property: String
    let `operator`: String
    let value: String

    static let operators: [(symbol: String, name: String)] = [
        ("!=", "ne"), ("<=", "lte"), (">=", "gte"), ("==", "eq"), ("=", "eq"), ("<", "lt"), (">", "gt"), ("~", "contains"),
    ]

    init?(_ text: String) {
        guard let start = text.firstIndex(where: { "!<>=~".contains($0) }) else { return nil }
        let rest = text[start...]
        guard let match = Self.operators.first(where: { rest.hasPrefix($0.symbol) }) else { return nil }
        property = text[..<start].trimmingCharacters(in: .whitespaces)
        `operator` = match.name
        value = String(rest.dropFirst(match.symbol.count)).trimmingCharacters(in: .whitespaces)
        if property.isEmpty || value.isEmpty { return nil }
    }
}

/// YAML scalars written so the reader reads back exactly the text given.
enum YAMLText {
    /// Plain when nothing in it means something to YAML, double-quoted otherwise. YAML's words
    /// (true, null, …) stay plain only with `keywords`, where the reader takes them as meant.
    static func scalar(_ text: String, keywords: Bool) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-")
        let words = ["null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"]
        guard !text.isEmpty, text != "-", text.unicodeScalars.allSatisfy(safe.contains),
              keywords || !words.contains(text.lowercased()) else { return quoted(text) }
        return text
    }

    static func scalar(_ text: String) -> String { scalar(text, keywords: false) }

    /// A filter parameter's value: a number list `[1, 0.5, 0]` as a YAML list, anything else a scalar
    /// (true and false plain: a boolean parameter takes them).
    static func value(_ text: String) -> String {
        if text.hasPrefix("["), text.hasSuffix("]") {
            let items = text.dropFirst().dropLast().split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            if !items.isEmpty, items.allSatisfy({ Double($0) != nil && scalar($0) == $0 }) {
                return "[" + items.joined(separator: ", ") + "]"
            }
        }
        return scalar(text, keywords: ["true", "false"].contains(text))
    }

    /// A double-quoted YAML scalar.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if isPrintable(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += String(format: "\\u%04X", scalar.value)
                }
            }
        }
        return out + "\""
    }

    /// Whether YAML lets the character stand as it is in a scalar or a comment (YAML 1.1's printable
    /// set, which libyaml checks): the rest are written as escapes.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0x10000...0x10FFFF: return true
        case 0xE000...0xFFFD: return scalar.value != 0xFEFF
        default: return false
        }
    }
}

extension OneLineJob {
    /// The pipeline of a command line that uses one-line flags, validated as a file is (with `--set`
    /// applied); nil once its problems are printed, each at its flag (exit 2: nothing was run).
    static func load(_ parsed: ParsedArguments) throws -> (job: OneLineJob, pipeline: Pipeline)? {
        if !parsed.positional.isEmpty, given(parsed) == ["--print-pipeline"] {
            throw UsageError("--print-pipeline prints the pipeline one-line flags make; \(parsed.positional[0]) is a pipeline already")
        }
        if !parsed.positional.isEmpty {
            throw UsageError("give a pipeline file or one-line flags (\(given(parsed).joined(separator: ", "))), not both: "
                             + "'medley run \(parsed.positional[0])' runs the file as it is; to change one of its values use --set JOB.KEY=VALUE",
                             showsUsage: true)
        }
        if parsed.flag("--print-pipeline"), !parsed.all("--set").isEmpty {
            throw UsageError("--set changes a pipeline file; with one-line flags change the flag itself, then --print-pipeline")
        }
        let directory = FileManager.default.currentDirectoryPath
        let job = try OneLineJob(parsed, directory: directory)
        let pipeline: Pipeline
        do {
            pipeline = try PipelineReader.parse(job.text, file: "(one-line job)", directory: directory, overrides: parsed.all("--set"))
        } catch let failure as ValidationFailure {
            for diagnostic in failure.diagnostics { printError("medley run: " + job.describe(diagnostic)) }
            let count = failure.diagnostics.count
            printError("medley: \(count) problem\(count == 1 ? "" : "s") in the one-line job; nothing was run")
            return nil
        }
        if let only = parsed.value("--only"), only != job.jobName {
            throw UsageError("--only \(only): no such job (the one-line job is '\(job.jobName)')")
        }
        return (job, pipeline)
    }
}
