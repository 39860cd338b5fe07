import Foundation
import MedleyYAML

/// Reading the `ingest:` stage: roots that must exist, media types, include and exclude globs.
extension SchemaReader {
    /// The keys an `ingest:` mapping may have.
    static let ingestKeys = ["from", "recursive", "media", "include", "exclude", "afterwards", "raw", "density", "page"]

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
        var stage = IngestStage(roots: roots, recursive: recursive, media: media.isEmpty ? [.any] : media,
                                include: globs(fields["include"], what: "ingest.include"),
                                exclude: globs(fields["exclude"], what: "ingest.exclude"))
        if let node = fields["afterwards"] {
            stage.afterwards = afterwards(node, roots: roots)
        }
        if let node = fields["raw"], let text = string(node, what: "ingest.raw") {
            if let mode = RawMode(rawValue: text) {
                stage.raw = mode
            } else {
                sink.error(node, "ingest.raw must be 'develop' (the default) or 'preview', not '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: RawMode.allCases.map(\.rawValue))
                               ?? "develop: demosaic the sensor's data; preview: the JPEG the camera embedded")
            }
        }
        if let node = fields["density"] {
            if case .scalar(let text, true, _) = node, let dpi = Self.number(text), dpi >= 1, dpi <= 7200 {
                stage.density = dpi
            } else {
                sink.error(node, "ingest.density must be a number of dots per inch, 1…7200 (72 renders SVG and PDF at their own size), found \(node.kindDescription)")
            }
        }
        if let node = fields["page"] {
            if case .scalar("all", _, _) = node {
                stage.everyPage = true
            } else if case .scalar(let text, true, _) = node, Int(text) == nil {
                sink.error(node, "ingest.page must be a page number (1 is a PDF's first page) or 'all', not '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: ["all"]) ?? "all: every page its own item, named with {page}")
            } else if let page = integer(node, what: "ingest.page") {
                if page >= 1 && page <= 100_000 { stage.page = page } else {
                    sink.error(node, "ingest.page must be 1…100000 (1 is a PDF's first page) or 'all', not \(page)")
                }
            }
        }
        return stage
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
}
