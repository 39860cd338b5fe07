import Foundation
import MedleyYAML

/// Reading `tag:`: only writable tag properties may be set or read from the path; templates and patterns
/// are parsed here, and literal values are checked against their property's kind.
extension SchemaReader {
    static let tagKeys = ["set", "from_path", "artwork", "replayGain", "shiftDates", "sidecar"]

    func tag(_ node: YAMLNode) -> TagStage? {
        guard let fields = mapping(node, keys: Self.tagKeys, what: "tag") else { return nil }
        if case .mapping(let pairs, _) = node, pairs.isEmpty {
            sink.error(node, "tag has nothing to do", suggestion: "add 'set:', 'from_path:', 'artwork:', 'replayGain:', 'shiftDates:' or 'sidecar:'")
            return nil
        }
        var ok = true
        var pattern: PathPattern?
        if let patternNode = fields["from_path"] {
            if let text = string(patternNode, what: "tag.from_path") {
                do {
                    pattern = try PathPattern(text, settable: TagStage.writableProperties)
                } catch let error as TemplateError {
                    sink.error(at: Self.mark(in: patternNode, offset: error.offset), "tag.from_path: \(error.message)",
                               suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
                    ok = false
                } catch {
                    sink.error(patternNode, "tag.from_path: \(error)")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        var assignments: [(property: String, value: TagStage.Assignment)] = []
        if let setNode = fields["set"] {
            if let set = tagAssignments(setNode) { assignments = set } else { ok = false }
        }
        var artwork: TagStage.ArtworkAction?
        if let artworkNode = fields["artwork"] {
            artwork = self.artwork(artworkNode)
            if artwork == nil { ok = false }
        }
        var replayGain: ReplayGainTags?
        if let replayGainNode = fields["replayGain"] {
            replayGain = self.replayGain(replayGainNode)
            if replayGain == nil { ok = false }
        }
        var shift: DateShift?
        if let shiftNode = fields["shiftDates"], let text = string(shiftNode, what: "tag.shiftDates") {
            shift = DateShift(text)
            if shift == nil {
                sink.error(shiftNode, "tag.shiftDates: '\(text)' is not a shift",
                           suggestion: "write it as exiftool's -AllDates+= takes it: \"+1:00:00\" (hours:minutes:seconds), \"-0:30\" or \"+0:0:1 2:00:00\" (years:months:days hours:minutes:seconds)")
                ok = false
            }
        } else if fields["shiftDates"] != nil {
            ok = false
        }
        let sidecar = fields["sidecar"].flatMap { boolean($0, what: "tag.sidecar") } ?? false
        guard ok else { return nil }
        var stage = TagStage(fromPath: pattern, assignments: assignments, artwork: artwork)
        stage.replayGain = replayGain
        stage.shiftDates = shift
        stage.sidecar = sidecar
        return stage
    }

    /// `set: { property: template }`.
    private func tagAssignments(_ node: YAMLNode) -> [(property: String, value: TagStage.Assignment)]? {
        guard let fields = mapping(node, keys: nil, what: "tag.set") else { return nil }
        guard case .mapping(let pairs, _) = node else { return nil }
        var assignments: [(property: String, value: TagStage.Assignment)] = []
        var ok = true
        for (keyNode, valueNode) in pairs {
            guard let name = keyNode.scalarText, fields[name] == valueNode else { continue }  // reported by mapping()
            guard writable(name, at: keyNode) else { ok = false; continue }
            // `keywords: [travel, "{city}"]`: several values, one text joined by "; " as they are read.
            if name == "keywords", case .sequence(let items, _) = valueNode, !items.isEmpty {
                let texts = items.compactMap { string($0, what: "tag.set.keywords") }
                guard texts.count == items.count else { ok = false; continue }
                do {
                    let template = try NameTemplate(texts.joined(separator: "; "), knownProperties: Set(ItemProperties.names + ItemProperties.namespaces))
                    assignments.append((name, .template(template)))
                } catch {
                    sink.error(valueNode, "tag.set.keywords: \((error as? TemplateError)?.message ?? "\(error)")")
                    ok = false
                }
                continue
            }
            guard case .scalar(let text, _, _) = valueNode, !valueNode.isNull else {
                sink.error(valueNode, "tag.set.\(name) takes a template, found \(valueNode.kindDescription)",
                           suggestion: "write a value like \"{artist} live\", or \"{-}\" to clear it")
                ok = false
                continue
            }
            if text.trimmingCharacters(in: .whitespaces) == "{-}" {
                assignments.append((name, .clear))
                continue
            }
            let template: NameTemplate
            do {
                template = try NameTemplate(text, knownProperties: Set(ItemProperties.names + ItemProperties.namespaces))
            } catch let error as TemplateError {
                sink.error(at: Self.mark(in: valueNode, offset: error.offset), "tag.set.\(name): \(error.message)",
                           suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
                ok = false
                continue
            } catch {
                sink.error(valueNode, "tag.set.\(name): \(error)")
                ok = false
                continue
            }
            // A template without placeholders is a constant: check it now rather than on every item.
            let kind = ItemProperties.kind(of: name) ?? .text
            if template.properties.isEmpty, let constant = try? template.renderText({ _ in nil }),
               !constant.allSatisfy(\.isWhitespace), TagStage.value(constant, kind: kind, lenient: true) == nil {
                sink.error(valueNode, "tag.set.\(name): '\(constant)' is not \(Self.kindPhrase(kind))",
                           suggestion: Self.kindExample[kind].map { "\(name) takes \(Self.kindPhrase(kind)), like \($0)" })
                ok = false
                continue
            }
            assignments.append((name, .template(template)))
        }
        return ok ? assignments : nil
    }

    static let kindExample: [ItemProperties.Kind: String] = [
        .integer: "3", .number: "29.97", .boolean: "true", .date: "2024-05-01",
    ]

    /// Whether a property may be written; reports why not.
    private func writable(_ name: String, at node: YAMLNode) -> Bool {
        if TagStage.writableProperties.contains(name) { return true }
        if ItemProperties.kind(of: name) != nil {
            sink.error(node, "'\(name)' is read from the file and cannot be set",
                       suggestion: "tag sets \(TagStage.writableProperties.joined(separator: ", "))")
        } else {
            sink.error(node, "unknown property '\(name)' in tag.set",
                       suggestion: DiagnosticSink.didYouMean(name, in: TagStage.writableProperties)
                           ?? "tag sets \(TagStage.writableProperties.joined(separator: ", "))")
        }
        return false
    }

    /// `artwork: {export: TEMPLATE}` or `artwork: {embed: FILE}`.
    private func artwork(_ node: YAMLNode) -> TagStage.ArtworkAction? {
        guard let fields = mapping(node, keys: ["export", "embed"], what: "tag.artwork") else { return nil }
        if let exportNode = fields["export"], fields["embed"] != nil {
            sink.error(exportNode, "tag.artwork takes 'export' or 'embed', not both")
            return nil
        }
        if let exportNode = fields["export"] {
            guard let text = string(exportNode, what: "tag.artwork.export") else { return nil }
            do {
                let template = try NameTemplate(text, knownProperties: ItemProperties.templateNames)
                checkOutputName(template, node: exportNode, fallback: exportNode, what: "tag.artwork.export")
                return .export(template)
            } catch let error as TemplateError {
                sink.error(at: Self.mark(in: exportNode, offset: error.offset), "tag.artwork.export: \(error.message)",
                           suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
            } catch {
                sink.error(exportNode, "tag.artwork.export: \(error)")
            }
            return nil
        }
        if let embedNode = fields["embed"] {
            guard let text = string(embedNode, what: "tag.artwork.embed") else { return nil }
            let path = resolve(text)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
                sink.error(embedNode, "tag.artwork.embed: no such file '\(text)' (looked for \(path))")
                return nil
            }
            let format = try? ContentSniffer.sniff(fileAt: path)
            guard format == .jpeg || format == .png else {
                sink.error(embedNode, "tag.artwork.embed: '\(text)' is not a JPEG or PNG image",
                           suggestion: "cover art is stored as JPEG or PNG")
                return nil
            }
            return .embed(path: path)
        }
        sink.error(node, "tag.artwork needs 'export' or 'embed'",
                   suggestion: "write { export: \"{stem}-cover.jpg\" } or { embed: cover.jpg }")
        return nil
    }
}

extension SchemaReader {
    /// `replayGain: track | album`, or `replayGain: {mode: album, group: TEMPLATE}` to say which
    /// items form an album (default `AlbumGrouping.defaultText`, as `album: true` groups).
    func replayGain(_ node: YAMLNode) -> ReplayGainTags? {
        let modes = ReplayGainTags.Mode.allCases.map(\.rawValue).joined(separator: " or ")
        func mode(_ modeNode: YAMLNode) -> ReplayGainTags.Mode? {
            guard case .scalar(let text, _, _) = modeNode, !modeNode.isNull else {
                sink.error(modeNode, "tag.replayGain takes \(modes), found \(modeNode.kindDescription)",
                           suggestion: "write replayGain: track, or replayGain: album")
                return nil
            }
            guard let mode = ReplayGainTags.Mode(rawValue: text) else {
                sink.error(modeNode, "tag.replayGain: '\(text)' is not a ReplayGain mode",
                           suggestion: DiagnosticSink.didYouMean(text, in: ReplayGainTags.Mode.allCases.map(\.rawValue))
                               ?? "write \(modes)")
                return nil
            }
            return mode
        }
        func grouping(_ text: String, at groupNode: YAMLNode?) -> AlbumGrouping? {
            do {
                return AlbumGrouping(text: text, template: try NameTemplate(text, knownProperties: ItemProperties.templateNames))
            } catch let error as TemplateError {
                if let groupNode {
                    sink.error(at: Self.mark(in: groupNode, offset: error.offset), "tag.replayGain.group: \(error.message)",
                               suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
                }
            } catch {
                if let groupNode { sink.error(groupNode, "tag.replayGain.group: \(error)") }
            }
            return nil
        }
        if case .mapping = node {
            guard let fields = mapping(node, keys: ["mode", "group"], what: "tag.replayGain") else { return nil }
            guard let modeNode = fields["mode"] else {
                sink.error(node, "tag.replayGain needs 'mode'", suggestion: "write { mode: album, group: \"\(AlbumGrouping.defaultText)\" }")
                return nil
            }
            guard let chosen = mode(modeNode) else { return nil }
            guard let groupNode = fields["group"] else {
                return ReplayGainTags(mode: chosen, album: chosen == .album ? grouping(AlbumGrouping.defaultText, at: nil) : nil)
            }
            guard chosen == .album else {
                sink.error(groupNode, "tag.replayGain.group groups albums, but the mode is 'track'",
                           suggestion: "write mode: album, or remove 'group'")
                return nil
            }
            guard let text = string(groupNode, what: "tag.replayGain.group") else { return nil }
            guard !text.allSatisfy(\.isWhitespace) else {
                sink.error(groupNode, "tag.replayGain.group is empty", suggestion: "write a template like \"\(AlbumGrouping.defaultText)\"")
                return nil
            }
            guard let album = grouping(text, at: groupNode) else { return nil }
            return ReplayGainTags(mode: .album, album: album)
        }
        guard let chosen = mode(node) else { return nil }
        return ReplayGainTags(mode: chosen, album: chosen == .album ? grouping(AlbumGrouping.defaultText, at: nil) : nil)
    }
}
