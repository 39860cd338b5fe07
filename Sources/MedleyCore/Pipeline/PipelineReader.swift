import Foundation
import MedleyFilters
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// Reads and validates pipeline files (SPEC §2). Every problem is collected and reported at
/// once, each at its FILE:LINE:COL; nothing is run or written when there is any.
public enum PipelineReader {
    /// Loads a pipeline file. `overrides` are `--set job.key.path=value` assignments applied
    /// before validation.
    public static func load(path: String, overrides: [String] = []) throws -> Pipeline {
        let url = URL(fileURLWithPath: path)
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ValidationFailure(diagnostics: [Diagnostic(
                file: path, mark: SourceMark(line: 1, column: 1),
                message: "cannot read the pipeline file (\(Self.reason(error)))")])
        }
        return try parse(text, file: path, directory: url.deletingLastPathComponent().standardizedFileURL.path,
                         overrides: overrides)
    }

    /// Validates pipeline text. `directory` resolves relative paths.
    public static func parse(_ text: String, file: String, directory: String,
                             overrides: [String] = []) throws -> Pipeline {
        var root: YAMLNode
        do {
            root = try YAMLReader.parse(text)
        } catch let error as YAMLSyntaxError {
            throw ValidationFailure(diagnostics: [Diagnostic(file: file, mark: error.mark, message: error.message)])
        }
        let sink = DiagnosticSink(file: file)
        for assignment in overrides {
            root = Overrides.apply(assignment, to: root, sink: sink)
        }
        let reader = SchemaReader(sink: sink, directory: directory)
        let jobs = reader.pipeline(root)
        guard sink.diagnostics.isEmpty, let jobs else { throw ValidationFailure(diagnostics: sink.sorted) }
        return Pipeline(file: file, directory: directory, jobs: jobs)
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// The schema walk. Each method reads one part of the file, reports what is wrong with it and
/// returns nil for parts it could not make sense of (so later checks do not pile on). The `where`,
/// `tag` and `playlist` readers live beside their stages (Where/, Tag/, Playlist/).
struct SchemaReader {
    let sink: DiagnosticSink
    let directory: String

    static let topKeys = ["version", "jobs"]
    static let jobKeys = ["name", "ingest", "where", "tag", "filters", "graph", "colorSpace", "transcode",
                          "analyze", "poster", "export", "playlist", "report", "limits"]
    static let ingestKeys = ["from", "recursive", "media", "include", "exclude"]
    static let exportKeys = ["to", "format", "quality", "name", "strip", "overwrite", "autoOrient"]
    static let formats = ["jpeg", "jpg", "png", "webp", "tiff", "heif", "gif", "same"]

    // MARK: structure

    func pipeline(_ root: YAMLNode) -> [Job]? {
        guard let top = mapping(root, keys: Self.topKeys, what: "the pipeline") else { return nil }
        if let version = top["version"] {
            if let n = integer(version, what: "version"), n != 1 {
                sink.error(version, "unsupported pipeline version \(n)", suggestion: "this Medley reads version: 1")
            }
        } else {
            sink.error(root, "missing 'version'", suggestion: "add 'version: 1' at the top")
        }
        guard let jobsNode = top["jobs"] else {
            sink.error(root, "missing 'jobs'", suggestion: "add a 'jobs:' list with at least one job")
            return nil
        }
        guard case .sequence(let items, _) = jobsNode, !items.isEmpty else {
            sink.error(jobsNode, "'jobs' must be a list of jobs, found \(jobsNode.kindDescription)")
            return nil
        }
        var names: [String: SourceMark] = [:]
        var jobs: [Job] = []
        for item in items {
            guard let job = job(item) else { continue }
            if let first = names[job.name] {
                sink.error(at: job.mark, "a second job named '\(job.name)' (the first is at line \(first.line))",
                           suggestion: "job names must be unique")
            }
            names[job.name] = job.mark
            jobs.append(job)
        }
        return jobs.count == items.count ? jobs : nil
    }

    func job(_ node: YAMLNode) -> Job? {
        guard let fields = mapping(node, keys: Self.jobKeys, what: "a job") else { return nil }
        let nameNode = fields["name"]
        let name = nameNode.flatMap { string($0, what: "job name") }
        if nameNode == nil { sink.error(node, "a job without a 'name'", suggestion: "add 'name: my-job'") }
        if let name, let nameNode, name.isEmpty || name.contains("/") {
            sink.error(nameNode, "job name '\(name)' must be non-empty and contain no '/'")
        }

        let ingest = fields["ingest"].flatMap(ingest)
        if fields["ingest"] == nil { sink.error(node, "job '\(name ?? "?")' has no 'ingest'", suggestion: "add 'ingest: { from: [photos] }'") }

        if let filters = fields["filters"], let graph = fields["graph"] {
            sink.error(graph, "a job has either 'filters' (a chain) or 'graph', not both",
                       suggestion: "move the chain into the graph, or drop one (filters is at line \(filters.mark.line))")
        }
        let graph = fields["filters"].flatMap(chain) ?? fields["graph"].flatMap(self.graph)

        var space = Transfer.sRGB
        if let node = fields["colorSpace"], let text = string(node, what: "colorSpace") {
            switch text {
            case "none": space = .none
            case "linear", "sRGB", "srgb": space = .sRGB
            default: sink.error(node, "colorSpace must be 'linear' (the default) or 'none', not '\(text)'")
            }
        }

        let export = fields["export"].flatMap(export)
        if fields["export"] == nil, graph != nil {
            sink.error(node, "job '\(name ?? "?")' filters images but has no 'export'",
                       suggestion: "add 'export: { to: out, format: jpeg }'")
        }

        var maxPixels: Int?
        if let limitsNode = fields["limits"], let limits = mapping(limitsNode, keys: ["maxPixels"], what: "limits"),
           let node = limits["maxPixels"], let n = integer(node, what: "limits.maxPixels") {
            if n >= 1 { maxPixels = n } else { sink.error(node, "limits.maxPixels must be at least 1, not \(n)") }
        }

        var planned = PlannedStages()
        let transcode = fields["transcode"].flatMap { TranscodeSettings.read($0, sink: sink) }
        var metering = false
        if let analyzeNode = fields["analyze"] {
            for (word, place) in stringList(analyzeNode, what: "analyze") {
                if word == "metering" { metering = true } else {
                    sink.error(place, "unknown analysis '\(word)'", suggestion: "the analysis is 'metering'")
                }
            }
        }
        if fields["transcode"] != nil, fields["export"] == nil {
            sink.error(node, "job '\(name ?? "?")' transcodes audio but has no 'export'",
                       suggestion: "add 'export: { to: out }'")
        }

        let whereClause = fields["where"].flatMap(self.whereClause)
        let tag = fields["tag"].flatMap(self.tag)
        let playlist = fields["playlist"].flatMap { self.playlist($0, exportRoot: export?.to) }
        let report = fields["report"].flatMap { self.report($0, exportRoot: export?.to) } ?? nil

        let poster = fields["poster"].flatMap(self.poster)
        if poster != nil, fields["export"] == nil, let node = fields["poster"] {
            sink.error(node, "a poster frame is exported as an image, but the job has no 'export'",
                       suggestion: "add 'export: { to: out, format: jpeg }'")
        }

        guard let name, let ingest else { return nil }
        // Without an explicit media list, a job takes what its stages can process.
        var selected = ingest
        if fields["ingest"].flatMap({ node -> YAMLNode? in
            if case .mapping(let pairs, _) = node { return pairs.first { $0.key.scalarText == "media" }?.value }
            return nil
        }) == nil {
            var media: [MediaTypeName] = transcode != nil && graph == nil ? [.anyAudio]
                : (graph != nil && transcode == nil ? [.image] : [.any])
            // Movies: for their poster frames, or re-encoded at a videoQuality.
            if poster != nil || transcode?.videoQuality != nil, !media.contains(.any) {
                if transcode != nil, transcode?.setsAudio == false { media.removeAll { $0 == .anyAudio } }
                media.append(.anyVideo)
            }
            selected = IngestStage(roots: ingest.roots, recursive: ingest.recursive, media: media,
                                   include: ingest.include, exclude: ingest.exclude)
        }
        var job = Job(name: name, mark: node.mark, ingest: selected, imageGraph: graph, workingSpace: space,
                      export: export, transcode: transcode, metering: metering, maxPixels: maxPixels,
                      where: whereClause, tag: tag, playlist: playlist, plannedStages: planned)
        job.report = report
        job.poster = poster
        func settings(_ keys: [String]) -> String {
            keys.map { key in key + "=" + (fields[key]?.canonicalText ?? "-") }.joined(separator: ";")
        }
        job.settings = JobSettings(image: settings(["filters", "graph", "colorSpace", "limits", "export", "poster"]),
                                   audio: settings(["transcode", "analyze", "tag", "export"]))
        return job
    }

    // MARK: poster

    /// `poster: {at: 1.5}` (seconds) or `poster: {at: "10%"}` (a share of the duration).
    func poster(_ node: YAMLNode) -> PosterStage? {
        guard let fields = mapping(node, keys: ["at"], what: "poster") else { return nil }
        guard let atNode = fields["at"], let text = string(atNode, what: "poster.at") else {
            if fields["at"] == nil { sink.error(node, "poster needs 'at'", suggestion: "add 'at: 1.5' (seconds) or 'at: \"10%\"'") }
            return nil
        }
        guard let time = PosterTime(text) else {
            sink.error(atNode, text.hasSuffix("%") ? "poster.at as a share of the movie is 0% to 100%, not '\(text)'"
                       : "poster.at is a time in seconds (like 1.5) or a share (like \"10%\"), not '\(text)'")
            return nil
        }
        return PosterStage(at: time)
    }

    // MARK: report

    /// `report: true`, or `report: { to: FOLDER, thumbnails: 160 }` with the folder inside the
    /// job's export root. Returns .some(nil) for `report: false`.
    func report(_ node: YAMLNode, exportRoot: String?) -> ReportStage?? {
        if case .scalar(let text, true, _) = node, let enabled = Self.bool(text) {
            guard enabled else { return .some(nil) }
            guard exportRoot != nil else {
                sink.error(node, "a report describes the job's exported files, but the job has no 'export'",
                           suggestion: "add 'export: { to: out }'")
                return nil
            }
            return ReportStage()
        }
        guard let fields = mapping(node, keys: ["to", "thumbnails"], what: "report") else { return nil }
        guard let exportRoot else {
            sink.error(node, "a report describes the job's exported files, but the job has no 'export'",
                       suggestion: "add 'export: { to: out }'")
            return nil
        }
        var stage = ReportStage()
        if let toNode = fields["to"], let text = string(toNode, what: "report.to") {
            let folder = resolve(text)
            if folder != exportRoot && !folder.hasPrefix(exportRoot + "/") {
                sink.error(toNode, "report.to must be a folder inside the job's export folder (\(exportRoot))",
                           suggestion: "a pipeline writes only under its export roots; leave 'to' out for \(exportRoot)/.medley/report-JOB")
                return nil
            }
            stage.folder = folder
        }
        if let sizeNode = fields["thumbnails"], let size = integer(sizeNode, what: "report.thumbnails") {
            guard (16...1024).contains(size) else {
                sink.error(sizeNode, "report.thumbnails is the thumbnails' longest side in pixels, 16 to 1024, not \(size)")
                return nil
            }
            stage.thumbnailSize = size
        }
        return stage
    }

    // MARK: ingest

    func ingest(_ node: YAMLNode) -> IngestStage? {
        guard let fields = mapping(node, keys: Self.ingestKeys, what: "ingest") else { return nil }
        guard let fromNode = fields["from"] else {
            sink.error(node, "ingest needs 'from'", suggestion: "add 'from: [photos]' (folders, files or globs)")
            return nil
        }
        var roots: [String] = []
        for (text, place) in stringList(fromNode, what: "ingest.from") {
            let resolved = resolve(text)
            let fixedPart = Self.fixedPrefix(of: resolved)
            if !FileManager.default.fileExists(atPath: fixedPart) {
                sink.error(place, "ingest.from: no such file or folder '\(text)' (looked for \(fixedPart))")
            } else {
                roots.append(resolved)
            }
        }
        let recursive = fields["recursive"].flatMap { boolean($0, what: "ingest.recursive") } ?? true
        var media: [MediaTypeName] = []
        if let mediaNode = fields["media"] {
            for (text, place) in stringList(mediaNode, what: "ingest.media") {
                if let type = MediaTypeName(rawValue: text) {
                    media.append(type)
                } else {
                    sink.error(place, "unknown media type '\(text)'",
                               suggestion: DiagnosticSink.didYouMean(text, in: MediaTypeName.allCases.map(\.rawValue))
                                   ?? "one of \(MediaTypeName.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            }
        }
        return IngestStage(roots: roots, recursive: recursive, media: media.isEmpty ? [.any] : media,
                           include: globs(fields["include"], what: "ingest.include"),
                           exclude: globs(fields["exclude"], what: "ingest.exclude"))
    }

    func globs(_ node: YAMLNode?, what: String) -> [Glob] {
        guard let node else { return [] }
        return stringList(node, what: what).compactMap { text, place in
            do { return try Glob(text) } catch {
                sink.error(place, "\(what): \(error)")
                return nil
            }
        }
    }

    /// The leading part of a path that has no glob characters: what must exist on disk.
    static func fixedPrefix(of path: String) -> String {
        guard Glob.isPattern(path) else { return path }
        var kept: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if Glob.isPattern(String(component)) { break }
            kept.append(component)
        }
        let prefix = kept.joined(separator: "/")
        return prefix.isEmpty ? "/" : prefix
    }

    func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let absolute = expanded.hasPrefix("/") ? expanded : directory + "/" + expanded
        // Normalise "a/./b" and "a/../b" without resolving links (the enumerator decides on links).
        var parts: [Substring] = []
        for component in absolute.split(separator: "/") {
            if component == "." { continue }
            if component == "..", !parts.isEmpty, !Glob.isPattern(String(parts.last!)) { parts.removeLast(); continue }
            parts.append(component)
        }
        return "/" + parts.joined(separator: "/")
    }

    // MARK: filters

    /// `filters:` — a list whose entries are `- CISepiaTone: { inputIntensity: 0.8 }` or a bare name.
    func chain(_ node: YAMLNode) -> ImageGraph? {
        guard case .sequence(let steps, _) = node else {
            sink.error(node, "'filters' must be a list of filters, found \(node.kindDescription)",
                       suggestion: "write '- CISepiaTone: { inputIntensity: 0.8 }'")
            return nil
        }
        var nodes: [ImageGraph.Node] = []
        var previous = ImageGraph.inputName
        var ok = true
        for (index, step) in steps.enumerated() {
            let name = "step\(index + 1)"
            let filterName: String, nameNode: YAMLNode, parameters: YAMLNode?
            switch step {
            case .scalar(let text, _, _):
                (filterName, nameNode, parameters) = (text, step, nil)
            case .mapping(let pairs, _) where pairs.count == 1:
                guard let text = string(pairs[0].key, what: "filter name") else { ok = false; continue }
                (filterName, nameNode, parameters) = (text, pairs[0].key, pairs[0].value)
            default:
                sink.error(step, "each filter is one 'Name: { parameters }' entry, found \(step.kindDescription)",
                           suggestion: "split it into one list entry per filter")
                ok = false
                continue
            }
            guard let node = filterNode(name: name, filter: filterName, filterMark: nameNode,
                                        parameters: parameters, defaultInput: previous, graphNames: nil)
            else { ok = false; continue }
            nodes.append(node)
            previous = name
        }
        guard ok else { return nil }
        guard !nodes.isEmpty else {
            sink.error(node, "'filters' is empty", suggestion: "list at least one filter, or remove 'filters'")
            return nil
        }
        guard nodes.count <= ImageGraph.maximumNodes else {
            sink.error(node, "'filters' lists \(nodes.count) filters; a job takes at most \(ImageGraph.maximumNodes)")
            return nil
        }
        return ImageGraph(nodes: nodes, output: previous)
    }

    /// `graph:` — named nodes: `toned: { filter: CISepiaTone, inputImage: input, inputIntensity: 0.9 }`.
    func graph(_ node: YAMLNode) -> ImageGraph? {
        guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
            sink.error(node, "'graph' must map node names to filters, found \(node.kindDescription)")
            return nil
        }
        let names = pairs.compactMap(\.key.scalarText)
        var nodes: [ImageGraph.Node] = []
        var ok = true
        for (key, value) in pairs {
            guard let name = string(key, what: "graph node name") else { ok = false; continue }
            if name == ImageGraph.inputName {
                sink.error(key, "'input' is the ingested image and cannot be a node name"); ok = false; continue
            }
            guard let fields = mapping(value, keys: nil, what: "graph node '\(name)'") else { ok = false; continue }
            guard let filterNode = fields["filter"], let filterName = string(filterNode, what: "filter") else {
                if fields["filter"] == nil {
                    sink.error(value, "graph node '\(name)' has no 'filter'", suggestion: "add 'filter: CISepiaTone'")
                }
                ok = false
                continue
            }
            var rest = value
            if case .mapping(let all, let mark) = value {
                rest = .mapping(all.filter { $0.key.scalarText != "filter" }, mark: mark)
            }
            guard let built = self.filterNode(name: name, filter: filterName, filterMark: filterNode, parameters: rest,
                                              defaultInput: nil, graphNames: names)
            else { ok = false; continue }
            nodes.append(built)
        }
        guard pairs.count <= ImageGraph.maximumNodes else {
            sink.error(node, "'graph' has \(pairs.count) nodes; a job takes at most \(ImageGraph.maximumNodes)")
            return nil
        }
        guard checkAcyclic(ImageGraph(nodes: nodes, output: "")), ok else { return nil }
        let output: String
        if names.contains("output") {
            output = "output"
        } else {
            let fed = Set(nodes.flatMap { $0.imageInputs.map(\.source) })
            let sinks = nodes.map(\.name).filter { !fed.contains($0) }
            guard sinks.count == 1 else {
                sink.error(node, "the graph has \(sinks.count) end nodes (\(sinks.joined(separator: ", "))); which one is exported?",
                           suggestion: "name the final node 'output'")
                return nil
            }
            output = sinks[0]
        }
        return ImageGraph(nodes: nodes, output: output)
    }

    func checkAcyclic(_ graph: ImageGraph) -> Bool {
        let byName = Dictionary(graph.nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var state: [String: Int] = [:]  // 1 visiting, 2 done
        func visit(_ name: String, path: [String]) -> Bool {
            guard let node = byName[name] else { return true }
            if state[name] == 2 { return true }
            if state[name] == 1 {
                let cycle = (path.drop { $0 != name } + [name]).joined(separator: " → ")
                sink.error(at: node.mark, "the graph has a cycle: \(cycle)",
                           suggestion: "feed one of these nodes from 'input' or another node")
                return false
            }
            state[name] = 1
            for (_, source) in node.imageInputs where !visit(source, path: path + [name]) { return false }
            state[name] = 2
            return true
        }
        return graph.nodes.allSatisfy { visit($0.name, path: []) }
    }

    /// One filter with its parameters checked against its declared attributes.
    func filterNode(name: String, filter: String, filterMark: YAMLNode, parameters: YAMLNode?,
                    defaultInput: String?, graphNames: [String]?) -> ImageGraph.Node? {
        guard let attributes = FilterRegistry.attributes(of: filter) else {
            sink.error(filterMark, "unknown filter '\(filter)'",
                       suggestion: FilterRegistry.suggestion(for: filter).map { "did you mean '\($0)'?" }
                           ?? "'medley filters list' shows the filters there are")
            return nil
        }
        var values: [(String, FilterValue)] = []
        var images: [(String, String)] = []
        var wired = Set<String>()  // image keys given, even when what they name is wrong
        var ok = true
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        if let parameters, !parameters.isNull {
            guard case .mapping(let given, _) = parameters else {
                sink.error(parameters, "parameters of \(filter) must be a mapping like { inputIntensity: 0.8 }, found \(parameters.kindDescription)")
                return nil
            }
            pairs = given
        }
        var seen = Set<String>()
        for (keyNode, valueNode) in pairs {
            guard let key = string(keyNode, what: "parameter name") else { ok = false; continue }
            guard seen.insert(key).inserted else {
                sink.error(keyNode, "\(filter).\(key) is given twice"); ok = false; continue
            }
            guard let parameter = attributes.parameter(key) else {
                let suggestion = nearest(key, in: attributes.parameters.map(\.name))
                sink.error(keyNode, "\(filter) has no parameter '\(key)'",
                           suggestion: suggestion.map { "did you mean '\($0)'?" }
                               ?? "'medley filters describe \(filter)' lists its parameters")
                ok = false
                continue
            }
            if parameter.type == .image {
                wired.insert(key)
                guard let source = string(valueNode, what: key) else { ok = false; continue }
                guard let graphNames else {
                    sink.error(valueNode, "in a 'filters' chain each filter's \(key) is the previous result",
                               suggestion: "use 'graph:' to wire images by name")
                    ok = false
                    continue
                }
                if source != ImageGraph.inputName && !graphNames.contains(source) {
                    sink.error(valueNode, "\(name).\(key) refers to '\(source)', which is not a node of this graph",
                               suggestion: DiagnosticSink.didYouMean(source, in: graphNames + [ImageGraph.inputName])
                                   ?? "use 'input' for the ingested image")
                    ok = false
                } else if source == name {
                    sink.error(valueNode, "the graph has a cycle: \(name) → \(name)"); ok = false
                } else {
                    images.append((key, source))
                }
                continue
            }
            guard let value = filterValue(valueNode, for: parameter, filter: filter) else { ok = false; continue }
            do {
                values.append((key, try Filter.checked(value, forKey: key, of: attributes)))
            } catch {
                var hint: String?
                if let low = parameter.sliderMinimum, let high = parameter.sliderMaximum,
                   low != parameter.minimum || high != parameter.maximum {
                    hint = "useful values are \(FilterValue.format(low))…\(FilterValue.format(high))"
                }
                sink.error(valueNode, "\(error)", suggestion: hint)
                ok = false
            }
        }
        for key in attributes.imageKeys where !wired.contains(key) {
            if key == "inputImage", let defaultInput {
                images.append((key, defaultInput))
            } else {
                sink.error(filterMark, "\(filter) in node '\(name)' needs '\(key)'",
                           suggestion: "add '\(key): input' or the name of another node")
                ok = false
            }
        }
        return ok ? ImageGraph.Node(name: name, filter: filter, parameters: values, imageInputs: images,
                                    mark: filterMark.mark) : nil
    }

    /// A YAML value as a filter value of the parameter's kind.
    func filterValue(_ node: YAMLNode, for parameter: ParameterAttributes, filter: String) -> FilterValue? {
        switch node {
        case .scalar(let text, let plain, _):
            if parameter.type == .choice { return .text(text) }
            if plain, let n = Self.number(text) { return .number(n) }
            if plain, let b = Self.bool(text) { return .boolean(b) }
        case .sequence(let items, _):
            let numbers = items.compactMap { item -> Double? in
                if case .scalar(let t, true, _) = item { return Self.number(t) }
                return nil
            }
            if numbers.count == items.count { return .vector(numbers) }
        case .mapping:
            break
        }
        sink.error(node, "\(filter).\(parameter.name) takes \(FilterError.article(parameter.type)), not \(node.kindDescription)")
        return nil
    }

    // MARK: export

    func export(_ node: YAMLNode) -> ExportStage? {
        guard let fields = mapping(node, keys: Self.exportKeys, what: "export") else { return nil }
        guard let toNode = fields["to"], let to = string(toNode, what: "export.to") else {
            if fields["to"] == nil { sink.error(node, "export needs 'to'", suggestion: "add 'to: out' (a folder)") }
            return nil
        }
        var format = OutputFormat.same
        if let formatNode = fields["format"], let text = string(formatNode, what: "export.format") {
            if text == "same" {
                format = .same
            } else if Self.formats.contains(text.lowercased()), let image = ImageFormat(fileExtension: text) {
                format = .image(image)
                if !Vips.canSave(image) {
                    sink.error(formatNode, "this libvips build cannot write \(text)",
                               suggestion: "choose jpeg, png, webp or tiff")
                }
            } else {
                sink.error(formatNode, "unknown export format '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: Self.formats)
                               ?? "one of \(Self.formats.joined(separator: ", "))")
            }
        }
        var quality: Int?
        if let qualityNode = fields["quality"], let q = integer(qualityNode, what: "export.quality") {
            if (1...100).contains(q) { quality = q } else {
                sink.error(qualityNode, "export.quality must be 1…100, not \(q)")
            }
        }
        var template: NameTemplate?
        let nameNode = fields["name"]
        let nameText = nameNode.flatMap { string($0, what: "export.name") } ?? "{relpath}/{stem}.{ext}"
        do {
            template = try NameTemplate(nameText, knownProperties: ItemProperties.templateNames)
        } catch let error as TemplateError {
            let mark = nameNode.map { Self.mark(in: $0, offset: error.offset) } ?? node.mark
            sink.error(at: mark, "export.name: \(error.message)",
                       suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
        } catch {
            sink.error(nameNode ?? node, "export.name: \(error)")
        }
        let strip = fields["strip"].flatMap { boolean($0, what: "export.strip") } ?? false
        let autoOrient = fields["autoOrient"].flatMap { boolean($0, what: "export.autoOrient") } ?? true
        var overwrite = OverwritePolicy.replace
        if let policyNode = fields["overwrite"], let text = string(policyNode, what: "export.overwrite") {
            if let policy = OverwritePolicy(rawValue: text) { overwrite = policy } else {
                sink.error(policyNode, "export.overwrite must be replace, skip or fail, not '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: OverwritePolicy.allCases.map(\.rawValue)))
            }
        }
        guard let template else { return nil }
        return ExportStage(to: resolve(to), format: format, quality: quality, name: template, strip: strip,
                           overwrite: overwrite, autoOrient: autoOrient)
    }

    /// Where inside a scalar a character offset falls (for template errors). Plain and quoted
    /// single-line scalars only; otherwise the scalar's start.
    static func mark(in node: YAMLNode, offset: Int) -> SourceMark {
        guard case .scalar(let text, let plain, let mark) = node, !text.contains("\n") else { return node.mark }
        return SourceMark(line: mark.line, column: mark.column + offset + (plain ? 0 : 1))
    }

    // MARK: scalars

    /// A mapping's fields by key. Unknown keys (when `keys` is given) and duplicates are errors.
    func mapping(_ node: YAMLNode, keys: [String]?, what: String) -> [String: YAMLNode]? {
        guard case .mapping(let pairs, _) = node else {
            sink.error(node, "\(what) must be a mapping of keys to values, found \(node.kindDescription)")
            return nil
        }
        var fields: [String: YAMLNode] = [:]
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else {
                sink.error(keyNode, "keys in \(what) must be plain names, found \(keyNode.kindDescription)")
                continue
            }
            if let keys, !keys.contains(key) {
                sink.error(keyNode, "unknown key '\(key)' in \(what)",
                           suggestion: DiagnosticSink.didYouMean(key, in: keys)
                               ?? "known keys: \(keys.joined(separator: ", "))")
                continue
            }
            if fields[key] != nil {
                sink.error(keyNode, "'\(key)' is given twice in \(what)")
                continue
            }
            fields[key] = value
        }
        return fields
    }

    func string(_ node: YAMLNode, what: String) -> String? {
        guard case .scalar(let text, _, _) = node, !node.isNull else {
            sink.error(node, "\(what) must be text, found \(node.kindDescription)")
            return nil
        }
        return text
    }

    func integer(_ node: YAMLNode, what: String) -> Int? {
        guard case .scalar(let text, true, _) = node, let n = Int(text) else {
            sink.error(node, "\(what) must be a whole number, found \(node.kindDescription)")
            return nil
        }
        return n
    }

    func boolean(_ node: YAMLNode, what: String) -> Bool? {
        guard case .scalar(let text, true, _) = node, let b = Self.bool(text) else {
            sink.error(node, "\(what) must be true or false, found \(node.kindDescription)")
            return nil
        }
        return b
    }

    /// A scalar or a list of scalars, each with its node (for messages).
    func stringList(_ node: YAMLNode, what: String) -> [(String, YAMLNode)] {
        switch node {
        case .scalar(let text, _, _) where !node.isNull:
            return [(text, node)]
        case .sequence(let items, _) where !items.isEmpty:
            return items.compactMap { item in string(item, what: what).map { ($0, item) } }
        default:
            sink.error(node, "\(what) must be text or a list of text, found \(node.kindDescription)")
            return []
        }
    }

    static func number(_ text: String) -> Double? {
        guard let n = Double(text), n.isFinite else { return nil }
        return n
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }
}
