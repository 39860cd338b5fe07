import Foundation
import MedleyYAML

extension TranscodeSettings {
    static let trimKeys = ["silence", "start", "end", "keep"]
    static let fadeKeys = ["in", "out", "curve"]
    /// Levels below which a sample is silence (dBFS): −120 dB is below the noise of 20-bit audio.
    static let silenceRange = -120.0...0.0
    /// Durations of kept silence and of fades: up to an hour.
    static let editSecondsRange = 0.0...3600.0

    /// `trim:` and `fade:`.
    static func readTrimAndFade(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        if let node = fields.nodes["trim"], let values = fields.mapping(node, keys: trimKeys, what: "trim") {
            var trim = SilenceTrim()
            if let node = values["silence"] {
                if let text = node.scalarText, !node.isNull, let db = decibels(text, unit: "dB"), silenceRange.contains(db) {
                    trim.silence = db
                } else {
                    fields.error(node, "trim.silence is a level from -120dB to 0dB, like -50dB, not '\(node.scalarText ?? node.kindDescription)'",
                                 suggestion: "samples whose every channel stays below it count as silence; -50dB suits most recordings")
                }
            }
            trim.start = values["start"].flatMap { fields.flag($0, "trim.start") } ?? true
            trim.end = values["end"].flatMap { fields.flag($0, "trim.end") } ?? true
            if let node = values["keep"], let seconds = fields.duration(node, "trim.keep") { trim.keep = seconds }
            if !trim.start && !trim.end {
                fields.error(node, "trim with start: false and end: false removes nothing", suggestion: "remove 'trim' or set start or end to true")
            }
            settings.trim = trim
        }
        if let node = fields.nodes["fade"], let values = fields.mapping(node, keys: fadeKeys, what: "fade") {
            var fade = Fade()
            var readable = true
            for (key, what) in [("in", "fade.in"), ("out", "fade.out")] {
                guard let node = values[key] else { continue }
                guard let seconds = fields.duration(node, what) else { readable = false; continue }
                if key == "in" { fade.fadeIn = seconds } else { fade.fadeOut = seconds }
            }
            if let node = values["curve"] {
                let names = Fade.Curve.allCases.map(\.rawValue)
                if let text = node.scalarText, !node.isNull, let curve = Fade.Curve(rawValue: text) { fade.curve = curve } else {
                    let text = node.scalarText ?? node.kindDescription
                    fields.error(node, "unknown fade curve '\(text)'",
                                 suggestion: DiagnosticSink.didYouMean(text, in: names) ?? "one of \(names.joined(separator: ", "))")
                }
            }
            let allKnown = TranscodeSettings.pairs(of: node)?.count == values.count  // a misspelt key is said already
            if values["in"] == nil && values["out"] == nil && allKnown {
                fields.error(node, "fade needs 'in' or 'out'", suggestion: "like {in: 0.5s, out: 2s}")
            } else if allKnown && readable && fade.fadeIn == 0 && fade.fadeOut == 0 {
                fields.error(node, "fade with in and out both 0 fades nothing", suggestion: "remove 'fade' or give a length, like out: 2s")
            }
            settings.fade = fade
        }
    }

    /// "0.25s", "250ms", "0.25 s", "0.25" (seconds) → seconds; nil for anything else, or not finite.
    static func seconds(_ text: String) -> Double? {
        var value = text.trimmingCharacters(in: .whitespaces).lowercased()
        var scale = 1.0
        if value.hasSuffix("ms") {
            value.removeLast(2)
            scale = 0.001
        } else if value.hasSuffix("s") {
            value.removeLast()
        }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
        return number * scale
    }
}

extension TranscodeFields {
    /// A stage's sub-mapping (`trim:`, `fade:`) by key; unknown keys and duplicates are errors at
    /// their places. nil when `node` is not a mapping (reported).
    func mapping(_ node: YAMLNode, keys: [String], what: String) -> [String: YAMLNode]? {
        guard case .mapping(let pairs, _) = node else {
            error(node, "\(what) must be a mapping, like \(what == "trim" ? "{silence: -50dB, keep: 0.25s}" : "{in: 0.5s, out: 2s}"), found \(node.kindDescription)")
            return nil
        }
        var values: [String: YAMLNode] = [:]
        for (keyNode, value) in pairs {
            guard let key = keyNode.scalarText else {
                error(keyNode, "keys in \(what) must be plain names, found \(keyNode.kindDescription)")
                continue
            }
            guard keys.contains(key) else {
                error(keyNode, "unknown key '\(key)' in \(what)",
                      suggestion: DiagnosticSink.didYouMean(key, in: keys) ?? "known keys: \(keys.joined(separator: ", "))")
                continue
            }
            if values[key] != nil { error(keyNode, "'\(key)' is given twice in \(what)") }
            values[key] = value
        }
        return values
    }

    /// true/yes/1 or false/no/0 at `node`, or nil (reported).
    func flag(_ node: YAMLNode, _ what: String) -> Bool? {
        switch node.isNull ? nil : node.scalarText?.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default:
            error(node, "\(what) must be true or false, not '\(node.scalarText ?? node.kindDescription)'")
            return nil
        }
    }

    /// A duration of 0…3600 s at `node` ("0.25s", "250ms", "2"), or nil (reported).
    func duration(_ node: YAMLNode, _ what: String) -> Double? {
        let range = TranscodeSettings.editSecondsRange
        if let text = node.scalarText, !node.isNull, let seconds = TranscodeSettings.seconds(text), range.contains(seconds) {
            return seconds
        }
        error(node, "\(what) is a duration from 0 to 3600 s, not '\(node.scalarText ?? node.kindDescription)'",
              suggestion: "write seconds or milliseconds, like 0.5s or 500ms")
        return nil
    }
}
