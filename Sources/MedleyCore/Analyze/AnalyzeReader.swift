import MedleyYAML

/// What `analyze:` asks for: one list for every media kind, each name measuring one kind.
struct AnalysisRequest {
    /// `metering`: audio levels per channel.
    var metering: YAMLNode?
    /// `loudness`: EBU R128 loudness of every audio output as written (libebur128).
    var loudness: YAMLNode?
    /// Image analyses, each with its node (for messages).
    var image: [(kind: ImageAnalysisKind, node: YAMLNode)] = []

    /// Every name `analyze:` takes: audio's `metering` and `loudness`, then the image analyses.
    static let names = ["metering", "loudness"] + ImageAnalysisKind.allCases.map(\.rawValue)
}

extension SchemaReader {
    /// `analyze: [metering, loudness, averageColor, histogram, dominantColors]`.
    func analyses(_ node: YAMLNode) -> AnalysisRequest {
        var request = AnalysisRequest()
        for (word, place) in stringList(node, what: "analyze") {
            if word == "metering" {
                request.metering = place
            } else if word == "loudness" {
                request.loudness = place
            } else if let kind = ImageAnalysisKind(rawValue: word) {
                if !request.image.contains(where: { $0.kind == kind }) { request.image.append((kind, place)) }
            } else {
                let names = AnalysisRequest.names
                sink.error(place, "unknown analysis '\(word)'",
                           suggestion: DiagnosticSink.didYouMean(word, in: names)
                               ?? "the analyses are \(names.map { "'\($0)'" }.joined(separator: ", "))")
            }
        }
        return request
    }

    /// `autoAdjust: { enhance: true }`.
    func autoAdjust(_ node: YAMLNode) -> AutoAdjustSettings? {
        guard let fields = mapping(node, keys: ["enhance"], what: "autoAdjust") else { return nil }
        guard let enhanceNode = fields["enhance"] else {
            sink.error(node, "autoAdjust without 'enhance'", suggestion: "write 'autoAdjust: { enhance: true }'")
            return nil
        }
        return boolean(enhanceNode, what: "autoAdjust.enhance").map(AutoAdjustSettings.init)
    }

    /// Each analysis and auto-adjust must measure a kind of media the job takes (images, or movies'
    /// poster frames), and image ones need the export they are measured on.
    func checkMeasures(_ request: AnalysisRequest, autoAdjust: (settings: AutoAdjustSettings, node: YAMLNode)?,
                       media: [MediaTypeName], posters: Bool, hasExport: Bool) {
        let takes = media.map(\.rawValue).joined(separator: ", ")
        for (name, node) in [("metering", request.metering), ("loudness", request.loudness)] {
            if let place = node, !media.contains(where: { $0.selects(.audio) }) {
                sink.error(place, "'\(name)' measures audio, but the job takes none (media: \(takes))",
                           suggestion: "drop '\(name)', or add audio to ingest.media")
            }
        }
        var imageMeasures = request.image.map { ("'\($0.kind.rawValue)'", $0.node) }
        if let autoAdjust, autoAdjust.settings.enhance { imageMeasures.append(("autoAdjust", autoAdjust.node)) }
        for (what, place) in imageMeasures {
            if !media.contains(where: { $0.selects(.image) }) && !posters {
                sink.error(place, "\(what) works on images, but the job takes none and makes no posters (media: \(takes))",
                           suggestion: "drop it, or add image to ingest.media")
            } else if !hasExport {
                sink.error(place, "\(what) works on the exported image, but the job has no 'export'",
                           suggestion: "add 'export: { to: out, format: jpeg }'")
            }
        }
    }
}
