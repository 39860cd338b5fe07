import MedleyYAML

/// Reading `normalize:` when it asks for loudness: `normalize: podcast`, or a mapping of
/// `loudness`, `truePeak`, `limit`, `lowerOnly`, `threshold`, `preset`, `album`, `group` (and
/// `rms` for the audiobook preset). A preset sets the target and the ceiling; keys given beside
/// it override them.
extension LoudnessNormalization {
    /// The keys of a loudness `normalize:` mapping.
    static let keys = ["loudness", "truePeak", "limit", "lowerOnly", "threshold", "preset", "album", "group", "rms"]
    /// Integrated loudness a target may have: −70 LUFS is BS.1770's absolute gate (below it nothing counts).
    static let targetRange = -70.0...0.0
    /// True-peak ceilings: −20 dBTP is already far below any delivery specification.
    static let ceilingRange = -20.0...0.0
    /// Thresholds: 20 LU is more than the loudness range of most music.
    static let thresholdRange = 0.0...20.0
    /// The RMS an audiobook may be brought to: ACX's accepted range.
    static let rmsRange = -23.0...(-18.0)

    /// The audiobook preset's RMS target, the middle of ACX's −23…−18 dB, and its peak ceiling.
    static let audiobookRMS = -20.0
    static let audiobookCeiling = -3.0

    /// The target and ceiling a preset stands for.
    init(preset: Preset) {
        self.init()
        self.preset = preset
        switch preset {
        // Podcast hosts and streaming services check both figures of the delivered file, and
        // music mastered near 0 dBFS cannot reach −16 or −14 LUFS under −1 dBTP by a gain alone
        // (lowering the target misses their loudness spec by up to 5 LU): these two limit by default.
        case .podcast: (target, truePeak, limit) = (-16, -1, true)
        case .streaming: (target, truePeak, limit) = (-14, -1, true)
        case .broadcast: (target, truePeak) = (-23, -1)
        case .audiobook: (target, truePeak) = (Self.audiobookRMS, Self.audiobookCeiling)
        }
    }

    /// Whether `node` asks for loudness rather than a peak: a preset name, or a mapping with any key but `peak`.
    static func isLoudness(_ node: YAMLNode) -> Bool {
        if node.scalarText != nil { return true }
        guard case .mapping(let pairs, _) = node else { return false }
        return pairs.contains { $0.key.scalarText != "peak" }
    }

    /// Reads `normalize:` as loudness normalization; problems go to `fields` with their places.
    static func read(_ node: YAMLNode, fields: TranscodeFields) -> LoudnessNormalization? {
        let presets = Preset.allCases.map(\.rawValue)
        if let text = node.scalarText {
            guard let preset = Preset(rawValue: text), !node.isNull else {
                fields.error(node, node.isNull ? "normalize needs a preset or a mapping" : "unknown normalize preset '\(text)'",
                             suggestion: DiagnosticSink.didYouMean(text, in: presets)
                                 ?? "a preset (\(presets.joined(separator: ", "))), {loudness: -16LUFS, truePeak: -1dBTP} or {peak: -1dBFS}")
                return nil
            }
            return LoudnessNormalization(preset: preset)
        }
        guard case .mapping(let pairs, _) = node else {
            fields.error(node, "normalize takes a preset name or a mapping, found \(node.kindDescription)",
                         suggestion: "write normalize: {loudness: -16LUFS, truePeak: -1dBTP} or normalize: podcast")
            return nil
        }
        var values: [String: YAMLNode] = [:]
        var ok = true
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else { continue }
            if key == "peak" {
                fields.error(keyNode, "normalize takes a peak or a loudness target, not both",
                             suggestion: "remove 'peak', or keep only {peak: -1dBFS}")
                ok = false
            } else if !keys.contains(key) {
                fields.error(keyNode, "unknown key '\(key)' in normalize",
                             suggestion: DiagnosticSink.didYouMean(key, in: keys + ["peak"]) ?? "known keys: \(keys.joined(separator: ", "))")
                ok = false
            } else if values[key] != nil {
                fields.error(keyNode, "'\(key)' is given twice in normalize")
                ok = false
            }
            values[key] = value
        }

        var settings = LoudnessNormalization()
        if let presetNode = values["preset"] {
            if let text = presetNode.scalarText, let preset = Preset(rawValue: text) {
                settings = LoudnessNormalization(preset: preset)
            } else {
                let text = presetNode.scalarText ?? presetNode.kindDescription
                fields.error(presetNode, "unknown normalize preset '\(text)'",
                             suggestion: DiagnosticSink.didYouMean(text, in: presets) ?? "one of \(presets.joined(separator: ", "))")
                ok = false
            }
        }
        let audiobook = settings.preset == .audiobook
        if let node = values["loudness"] {
            if audiobook {
                fields.error(node, "the audiobook preset brings each item to an RMS level (ACX), not a loudness",
                             suggestion: "write rms: -20dB (ACX accepts -23 to -18 dB), or use another preset")
                ok = false
            } else if let value = number(node, units: ["LUFS", "LKFS"], range: targetRange, fields: fields,
                                         what: "loudness is an integrated loudness from -70 to 0 LUFS", example: "-16LUFS") {
                settings.target = value
            } else { ok = false }
        }
        if let node = values["rms"] {
            if !audiobook {
                fields.error(node, "rms is the audiobook preset's target", suggestion: "add preset: audiobook, or give loudness: -16LUFS")
                ok = false
            } else if let value = number(node, units: ["dBFS", "dB"], range: rmsRange, fields: fields,
                                         what: "rms is an RMS level within ACX's -23 to -18 dB", example: "-20dB") {
                settings.target = value
            } else { ok = false }
        }
        if let node = values["truePeak"] {
            let units = audiobook ? ["dBTP", "dBFS", "dB"] : ["dBTP"]
            if let value = number(node, units: units, range: ceilingRange, fields: fields,
                                  what: "truePeak is a ceiling from -20 to 0 dBTP", example: "-1dBTP") {
                settings.truePeak = value
            } else { ok = false }
        }
        if let node = values["threshold"] {
            if let value = number(node, units: ["LU", "dB"], range: thresholdRange, fields: fields,
                                  what: "threshold is a loudness difference from 0 to 20 LU", example: "0.5LU") {
                settings.threshold = value
            } else { ok = false }
        }
        for key in ["limit", "lowerOnly"] {
            guard let node = values[key] else { continue }
            guard let flag = node.scalarText.flatMap(SchemaReader.bool), !node.isNull else {
                fields.error(node, "\(key) must be true or false, not '\(node.scalarText ?? node.kindDescription)'")
                ok = false
                continue
            }
            if key == "limit" { settings.limit = flag } else { settings.lowerOnly = flag }
        }
        var album: Bool?
        if let node = values["album"] {
            if let flag = node.scalarText.flatMap(SchemaReader.bool), !node.isNull { album = flag } else {
                fields.error(node, "album must be true or false, not '\(node.scalarText ?? node.kindDescription)'",
                             suggestion: "album: true groups by \(AlbumGrouping.defaultText); give group: TEMPLATE for another grouping")
                ok = false
            }
        }
        if let node = values["group"] {
            if album == false {
                fields.error(node, "group makes one gain per album, but album is false", suggestion: "remove 'album: false' or 'group'")
                ok = false
            } else if let grouping = grouping(node, fields: fields) {
                settings.album = grouping
            } else { ok = false }
        } else if album == true, let template = try? NameTemplate(AlbumGrouping.defaultText, knownProperties: ItemProperties.templateNames) {
            settings.album = AlbumGrouping(text: AlbumGrouping.defaultText, template: template)
        }
        return ok ? settings : nil
    }

    /// A number with one of `units` (or none), with or without a space ("-16LUFS", "-16 LUFS",
    /// "-16"), inside `range`; otherwise an error saying `what`.
    private static func number(_ node: YAMLNode, units: [String], range: ClosedRange<Double>, fields: TranscodeFields,
                               what: String, example: String) -> Double? {
        guard let text = node.scalarText, !node.isNull else {
            fields.error(node, "\(what), found \(node.kindDescription)", suggestion: "like \(example)")
            return nil
        }
        var body = text.trimmingCharacters(in: .whitespaces)
        if let unit = units.first(where: { body.lowercased().hasSuffix($0.lowercased()) }) {
            body = String(body.dropLast(unit.count)).trimmingCharacters(in: .whitespaces)
        }
        guard let value = Double(body), value.isFinite, range.contains(value) else {
            fields.error(node, "\(what), not '\(text)'", suggestion: "like \(example)")
            return nil
        }
        return value
    }

    /// `group: TEMPLATE`: which items form an album, by the properties a name template knows.
    private static func grouping(_ node: YAMLNode, fields: TranscodeFields) -> AlbumGrouping? {
        guard case .scalar(let text, _, _) = node, !node.isNull, !text.allSatisfy(\.isWhitespace) else {
            fields.error(node, "group takes a template, found \(node.kindDescription)",
                         suggestion: "like group: \"\(AlbumGrouping.defaultText)\"")
            return nil
        }
        do {
            let template = try NameTemplate(text, knownProperties: ItemProperties.templateNames)
            guard !template.properties.isEmpty else {
                fields.error(node, "group '\(text)' names no property, so every item would be one album",
                             suggestion: "like group: \"\(AlbumGrouping.defaultText)\"")
                return nil
            }
            return AlbumGrouping(text: text, template: template)
        } catch let error as TemplateError {
            fields.error(at: SchemaReader.mark(in: node, offset: error.offset), "normalize.group: \(error.message)",
                         suggestion: error.suggestion.map { "did you mean '{\($0)}'?" })
        } catch {
            fields.error(node, "normalize.group: \(error)")
        }
        return nil
    }
}
