import Foundation
import MedleyMedia
import MedleyTags
import MedleyYAML

/// Reading the `export:` stage: root, format, quality, name template, overwrite policy.
extension SchemaReader {
    /// The values `export.format` takes.
    static let formats = ["jpeg", "jpg", "png", "webp", "tiff", "heif", "heic", "avif", "jxl", "gif", "same"]
    /// The keys an `export:` mapping may have.
    static let exportKeys = ["to", "format", "quality", "name", "strip", "overwrite", "autoOrient",
                             "profile", "intent", "keepProfile", "background", "lossless", "effort", "subsampling", "bitdepth", "id3", "keep"]

    /// The default output name under `ingest.page: all`: pages told apart as pdftoppm's `prefix-N`.
    static let everyPageName = try? NameTemplate("{relpath}/{stem}-{page}.{ext}", knownProperties: ItemProperties.templateNames)
    /// The default output name under `transcode.segment`: parts numbered as ffmpeg's segment muxer's `%03d`.
    static let segmentName = try? NameTemplate("{relpath}/{stem}-{segment:03}.{ext}", knownProperties: ItemProperties.templateNames)

    /// `export:` — the folder, format, quality, name template, strip, overwrite and autoOrient of the job's outputs.
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
        // `quality: same`: each JPEG input's own quality and subsampling (Export/SameQuality.swift).
        let sameQuality = fields["quality"]?.scalarText == "same"
        if let qualityNode = fields["quality"], !sameQuality, let q = integer(qualityNode, what: "export.quality") {
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
        if let template { checkOutputName(template, node: nameNode, fallback: node, what: "export.name") }
        let metadataStrip = exportMetadataStrip(fields)
        let strip = metadataStrip.libvipsStrips
        let autoOrient = fields["autoOrient"].flatMap { boolean($0, what: "export.autoOrient") } ?? true
        var overwrite = OverwritePolicy.replace
        if let policyNode = fields["overwrite"], let text = string(policyNode, what: "export.overwrite") {
            if let policy = OverwritePolicy(rawValue: text) { overwrite = policy } else {
                sink.error(policyNode, "export.overwrite must be replace, skip or fail, not '\(text)'",
                           suggestion: DiagnosticSink.didYouMean(text, in: OverwritePolicy.allCases.map(\.rawValue)))
            }
        }
        let keepProfile = fields["keepProfile"].flatMap { boolean($0, what: "export.keepProfile") } ?? false
        let profile = fields["profile"].flatMap { exportProfile($0) } ?? .keep
        if strip, !keepProfile, case .convert(let name, _) = profile, let node = fields["profile"] {
            sink.error(node, "export.profile: \(name) with strip: true would write \(name) pixels without their profile",
                       suggestion: "add 'keepProfile: true' to keep the profile, or remove 'profile' (stripped outputs are sRGB)")
        }
        let background = fields["background"].flatMap { exportBackground($0) }
        let intent = fields["intent"].flatMap { exportIntent($0) }
        let encoder = encoderOptions(fields, format: format)
        guard let template else { return nil }
        var stage = ExportStage(to: resolve(to), format: format, quality: quality, name: template, strip: strip,
                                overwrite: overwrite, autoOrient: autoOrient)
        stage.profile = profile
        stage.sameQuality = sameQuality
        stage.keepProfile = keepProfile
        stage.background = background
        stage.intent = intent
        stage.encoder = encoder
        if let node = fields["id3"], let version = exportID3(node) { stage.id3 = version }
        stage.metadata.strip = metadataStrip.strip
        return stage
    }
}

/// `export.id3`: the ID3 version of the job's audio outputs.
extension SchemaReader {
    /// `id3: v2.3 | v2.4` ("2.3" and "2.4" too).
    func exportID3(_ node: YAMLNode) -> ID3Version? {
        guard let text = string(node, what: "export.id3") else { return nil }
        let spelled = text.lowercased().hasPrefix("v") ? text.lowercased() : "v" + text.lowercased()
        if let version = ID3Version(rawValue: spelled) { return version }
        let names = ID3Version.allCases.map(\.rawValue)
        sink.error(node, "export.id3 must be v2.3 or v2.4, not '\(text)'",
                   suggestion: DiagnosticSink.didYouMean(text, in: names)
                       ?? "v2.3 for players that read nothing newer (Windows Explorer, many car stereos), v2.4 (the default) otherwise")
        return nil
    }

    /// `export.id3` chooses the tag of MP3, WAV and AIFF outputs, transcoded or copied with new tags
    /// (a `tag:` stage without `transcode:`): in a job with neither, or with a transcode whose
    /// outputs hold no ID3 tag, it is a mistake.
    func checkExportID3(exportNode: YAMLNode, transcode: TranscodeSettings?, retags: Bool) {
        guard let node = Self.field("id3", of: exportNode) else { return }
        guard let transcode else {
            if retags { return }
            sink.error(node, "export.id3 chooses the ID3 version of the audio a job writes, but this job has no 'transcode' or 'tag' stage",
                       suggestion: "remove 'id3', or add 'tag:' (copies with new tags) or 'transcode: { AVFormatIDKey: kAudioFormatMPEGLayer3 }'")
            return
        }
        guard AudioFormatTable.row(transcode.format).id3 else {
            sink.error(node, "export.id3: \(transcode.format.rawValue) outputs hold no ID3 tag (only MP3, WAV and AIFF do)",
                       suggestion: "remove 'id3', or transcode to kAudioFormatMPEGLayer3")
            return
        }
    }
}

/// `export.profile`, `background` and the per-format encoder options.
extension SchemaReader {
    /// The named profiles and where Debian keeps them (the first file present wins); Display P3 is built in.
    static let namedProfiles: [(name: String, files: [String], package: String)] = [
        ("adobe-rgb", ["/usr/share/color/icc/compatibleWithAdobeRGB1998.icc", "/usr/share/color/icc/colord/AdobeRGB1998.icc"],
         "icc-profiles-free (or colord-data)"),
    ]
    /// `export.intent: perceptual | relative | saturation | absolute`.
    func exportIntent(_ node: YAMLNode) -> RenderingIntent? {
        guard let text = string(node, what: "export.intent") else { return nil }
        let names = RenderingIntent.allCases.map(\.name)
        if let intent = RenderingIntent.allCases.first(where: { $0.name == text.lowercased() }) { return intent }
        sink.error(node, "export.intent must be perceptual, relative, saturation or absolute, not '\(text)'",
                   suggestion: DiagnosticSink.didYouMean(text, in: names)
                       ?? "perceptual (the default for CMYK inputs) or relative (the default otherwise)")
        return nil
    }

    /// The words `export.profile` takes besides a file.
    static let profileWords = ["keep", "srgb", "p3", "adobe-rgb"]

    /// `export.profile: keep | srgb | p3 | adobe-rgb | FILE.icc`.
    func exportProfile(_ node: YAMLNode) -> ExportProfile? {
        guard let text = string(node, what: "export.profile") else { return nil }
        switch text.lowercased() {
        case "keep": return .keep
        case "srgb": return .convert(name: "sRGB", bytes: ICCProfile.sRGB)
        case "p3", "display-p3": return .convert(name: "Display P3", bytes: ICCProfile.displayP3)
        default: break
        }
        if let named = Self.namedProfiles.first(where: { $0.name == text.lowercased() }) {
            guard let path = named.files.first(where: { FileManager.default.isReadableFile(atPath: $0) }),
                  let data = FileManager.default.contents(atPath: path) else {
                sink.error(node, "export.profile: \(text) needs the Debian package \(named.package); none of \(named.files.joined(separator: ", ")) is here",
                           suggestion: "apt-get install icc-profiles-free, or name an .icc file")
                return nil
            }
            return checkedProfile([UInt8](data), name: named.name, node: node)
        }
        guard text.contains("/") || text.lowercased().hasSuffix(".icc") || text.lowercased().hasSuffix(".icm") else {
            sink.error(node, "unknown export.profile '\(text)'",
                       suggestion: DiagnosticSink.didYouMean(text, in: Self.profileWords)
                           ?? "one of \(Self.profileWords.joined(separator: ", ")), or an .icc file")
            return nil
        }
        guard let file = assetFile(node, what: "export.profile") else { return nil }
        return checkedProfile(file.bytes, name: (file.path as NSString).lastPathComponent, node: node)
    }

    /// The bytes as an RGB output profile, or a diagnostic saying why they are none.
    private func checkedProfile(_ bytes: [UInt8], name: String, node: YAMLNode) -> ExportProfile? {
        if let problem = ICCProfile.problem(bytes) {
            sink.error(node, "export.profile: \(name) is not an ICC profile (\(problem))", suggestion: "name an .icc or .icm profile file")
            return nil
        }
        if let space = ICCProfile.colourSpace(bytes), space != "RGB " {
            sink.error(node, "export.profile: \(name) is a \(space.trimmingCharacters(in: .whitespaces)) profile; Medley writes RGB",
                       suggestion: "name an RGB profile (CMYK and grey outputs are not written)")
            return nil
        }
        if let problem = ICCProfile.problemAsRGBOutput(bytes) {
            sink.error(node, "export.profile: lcms cannot convert into \(name): \(problem)", suggestion: "name another RGB profile")
            return nil
        }
        let description = ICCProfile.description(bytes) ?? name
        return .convert(name: description, bytes: bytes)
    }

    /// `export.background: [r, g, b]` (0…1, sRGB) or "#rrggbb".
    func exportBackground(_ node: YAMLNode) -> (red: Double, green: Double, blue: Double)? {
        let hint = "give [r, g, b] with each 0…1 (sRGB), e.g. [1, 1, 1], or \"#ffffff\""
        switch node {
        case .sequence(let items, _):
            let values = items.compactMap { item -> Double? in
                guard case .scalar(let text, true, _) = item, let value = Self.number(text), (0...1).contains(value) else { return nil }
                return value
            }
            guard items.count == 3, values.count == 3 else {
                sink.error(node, "export.background must be three numbers 0…1", suggestion: hint)
                return nil
            }
            return (values[0], values[1], values[2])
        case .scalar(let text, _, _) where text.hasPrefix("#") && text.count == 7:
            let digits = Array(text.dropFirst())
            let parts = stride(from: 0, to: 6, by: 2).compactMap { UInt8(String(digits[$0..<$0 + 2]), radix: 16) }
            guard parts.count == 3 else {
                sink.error(node, "export.background '\(text)' is not a #rrggbb colour", suggestion: hint)
                return nil
            }
            return (Double(parts[0]) / 255, Double(parts[1]) / 255, Double(parts[2]) / 255)
        default:
            sink.error(node, "export.background must be [r, g, b] or \"#rrggbb\", found \(node.kindDescription)", suggestion: hint)
            return nil
        }
    }

    /// Which formats take which option, and the effort each takes (libvips 8.14's ranges).
    static let optionFormats: [String: Set<ImageFormat>] = [
        "lossless": [.webp, .heif, .avif, .jxl], "effort": [.webp, .heif, .avif, .jxl],
        "subsampling": [.jpeg, .heif, .avif], "bitdepth": [.heif, .avif],
    ]
    static func effortRange(_ format: ImageFormat) -> ClosedRange<Int> {
        switch format {
        case .webp: return 0...6
        case .jxl: return 3...9
        default: return 0...9
        }
    }

    /// `lossless`, `effort`, `subsampling`, `bitdepth`: each checked against the format (with
    /// `format: same` the format is the input's, so each applies where it can).
    func encoderOptions(_ fields: [String: YAMLNode], format: OutputFormat) -> EncoderOptions {
        var options = EncoderOptions()
        let chosen: ImageFormat?
        if case .image(let image) = format { chosen = image } else { chosen = nil }
        for key in ["lossless", "effort", "subsampling", "bitdepth"] {
            guard let node = fields[key], let formats = Self.optionFormats[key] else { continue }
            if let chosen, !formats.contains(chosen) {
                let takers = ImageFormat.allCases.filter(formats.contains).map(\.rawValue).joined(separator: ", ")
                sink.error(node, "export.\(key) does not apply to \(chosen.rawValue)",
                           suggestion: "remove it, or export as one of \(takers)")
                continue
            }
            switch key {
            case "lossless":
                options.lossless = boolean(node, what: "export.lossless")
            case "effort":
                guard let effort = integer(node, what: "export.effort") else { continue }
                let range = chosen.map(Self.effortRange) ?? 0...9
                if range.contains(effort) { options.effort = effort } else {
                    sink.error(node, "export.effort for \(chosen?.rawValue ?? "these formats") must be \(range.lowerBound)…\(range.upperBound), not \(effort)")
                }
            case "subsampling":
                guard let text = string(node, what: "export.subsampling") else { continue }
                if let mode = SaveOptions.Subsampling(rawValue: text.lowercased()) { options.subsampling = mode } else {
                    sink.error(node, "export.subsampling must be auto, on or off, not '\(text)'",
                               suggestion: DiagnosticSink.didYouMean(text, in: SaveOptions.Subsampling.allCases.map(\.rawValue)))
                }
            default:
                guard let depth = integer(node, what: "export.bitdepth") else { continue }
                if depth == 10 && chosen != .heif {
                    // libheif 1.15 with libaom 3.6 (Debian 12) fails an assertion and aborts the process on 10-bit AV1.
                    sink.error(node, "export.bitdepth: 10 for AVIF: libaom here aborts on 10-bit AV1 (libheif 1.15, libaom 3.6)",
                               suggestion: "use 8 or 12 for avif (10 works with format: heic)")
                } else if [8, 10, 12].contains(depth) { options.bitDepth = depth } else {
                    sink.error(node, "export.bitdepth must be 8, 10 or 12 (libheif's AV1 and HEVC encoders here), not \(depth)")
                }
            }
        }
        return options
    }
}
