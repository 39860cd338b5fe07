import Foundation
import MedleyKernels
import MedleyMedia
import MedleyYAML

/// Reading the picture stages made from movies (`animation:`, `sprites:`) and from sound
/// (`spectrogram:`, `waveform:`); docs/movies.md and docs/audio.md.
extension SchemaReader {
    static let animationKeys = ["from", "duration", "fps", "width", "format", "loop", "palette", "dither", "effort", "quality"]
    static let spritesKeys = ["every", "columns", "width", "vtt"]
    static let spectrogramKeys = ["width", "height", "floor", "colors", "channels"]
    static let waveformKeys = ["width", "height", "scale", "floor", "color", "background", "channels"]

    /// Seconds as `12.5`, `"12.5s"`, `"1:30"` or `"1:02:03.5"`; nil for anything else or a negative time.
    static func seconds(_ text: String) -> Double? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("s") { trimmed.removeLast() }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            if index < parts.count - 1, value != value.rounded() { return nil }
            if index > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }

    private func time(_ node: YAMLNode, what: String, positive: Bool) -> Double? {
        guard let text = string(node, what: what) else { return nil }
        guard let value = Self.seconds(text), !positive || value > 0 else {
            sink.error(node, "\(what) is a time \(positive ? "above 0 " : "")in seconds, not '\(text)'", suggestion: "like 2.5, \"10s\" or \"1:30\"")
            return nil
        }
        return value
    }

    private func whole(_ node: YAMLNode?, _ what: String, _ range: ClosedRange<Int>, ok: inout Bool) -> Int? {
        guard let node else { return nil }
        guard let value = integer(node, what: what) else { ok = false; return nil }
        guard range.contains(value) else {
            sink.error(node, "\(what) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            ok = false
            return nil
        }
        return value
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ node: YAMLNode?, _ what: String, _ type: T.Type, ok: inout Bool) -> T?
    where T.RawValue == String {
        guard let node else { return nil }
        guard let text = string(node, what: what) else { ok = false; return nil }
        let names = T.allCases.map(\.rawValue)
        guard let value = T(rawValue: text) else {
            sink.error(node, "unknown \(what) '\(text)'", suggestion: DiagnosticSink.didYouMean(text, in: names) ?? "one of \(names.joined(separator: ", "))")
            ok = false
            return nil
        }
        return value
    }

    private func channels(_ node: YAMLNode?, _ what: String, ok: inout Bool) -> Bool? {
        enum Channels: String, CaseIterable { case split, mixed }
        return choice(node, what, Channels.self, ok: &ok).map { $0 == .split }
    }

    private func decibels(_ node: YAMLNode, what: String) -> Double? {
        guard let text = string(node, what: what) else { return nil }
        var number = text.trimmingCharacters(in: .whitespaces)
        if number.lowercased().hasSuffix("db") { number = String(number.dropLast(2)).trimmingCharacters(in: .whitespaces) }
        guard let value = Double(number), value < 0, value >= -200 else {
            sink.error(node, "\(what) is a level below 0 dB (down to -200 dB), not '\(text)'", suggestion: "like -120dB")
            return nil
        }
        return value
    }

    /// `animation: { from: 5, duration: 3, fps: 10, width: 320, format: gif, loop: 0, palette: clip }`.
    func animation(_ node: YAMLNode) -> AnimationSettings? {
        guard let fields = mapping(node, keys: Self.animationKeys, what: "animation") else { return nil }
        var settings = AnimationSettings(), ok = true
        if let n = fields["from"] { if let v = time(n, what: "animation.from", positive: false) { settings.from = v } else { ok = false } }
        if let n = fields["duration"] { if let v = time(n, what: "animation.duration", positive: true) { settings.duration = v } else { ok = false } }
        if let n = fields["fps"] {
            if let text = string(n, what: "animation.fps"), let v = Self.number(text), v > 0, v <= 100 { settings.fps = v } else {
                sink.error(n, "animation.fps is a frame rate above 0 and at most 100", suggestion: "like 10 or 12.5 (GIF delays are whole centiseconds)")
                ok = false
            }
        }
        if let v = whole(fields["width"], "animation.width", 1...8_192, ok: &ok) { settings.width = v }
        if let v = whole(fields["loop"], "animation.loop", 0...65_535, ok: &ok) { settings.loop = v }
        if let v = whole(fields["effort"], "animation.effort", 1...10, ok: &ok) { settings.effort = v }
        if let v = choice(fields["format"], "animation.format", AnimationSettings.Format.self, ok: &ok) { settings.format = v }
        if let v = choice(fields["palette"], "animation.palette", AnimationSettings.Palette.self, ok: &ok) { settings.palette = v }
        if let n = fields["dither"] {
            if let text = string(n, what: "animation.dither"), let v = Self.number(text), (0...1).contains(v) { settings.dither = v } else {
                sink.error(n, "animation.dither is from 0 (none) to 1 (full)")
                ok = false
            }
        }
        if let n = fields["quality"] {
            if case .scalar("lossless", _, _) = n { settings.quality = nil } else if let v = whole(n, "animation.quality", 1...100, ok: &ok) { settings.quality = v }
        }
        if settings.format == .gif, let n = fields["quality"] {
            sink.error(n, "animation.quality is for WebP; a GIF's colours are set by 'palette' and 'dither'", suggestion: "remove it, or add 'format: webp'")
            ok = false
        }
        if settings.format == .webp, let n = fields["palette"] {
            sink.error(n, "animation.palette is for GIF; WebP keeps every colour", suggestion: "remove it, or use 'format: gif'")
            ok = false
        }
        return ok ? settings : nil
    }

    /// `sprites: { every: 10s, columns: 5, width: 160, vtt: true }`.
    func sprites(_ node: YAMLNode) -> SpriteSettings? {
        guard let fields = mapping(node, keys: Self.spritesKeys, what: "sprites") else { return nil }
        var settings = SpriteSettings(), ok = true
        if let n = fields["every"] { if let v = time(n, what: "sprites.every", positive: true) { settings.every = v } else { ok = false } }
        if let v = whole(fields["columns"], "sprites.columns", 1...100, ok: &ok) { settings.columns = v }
        if let v = whole(fields["width"], "sprites.width", 8...1_920, ok: &ok) { settings.width = v }
        if let n = fields["vtt"] { if let v = boolean(n, what: "sprites.vtt") { settings.vtt = v } else { ok = false } }
        return ok ? settings : nil
    }

    /// `spectrogram: { width: 800, height: 257, floor: -120dB, colors: heat, channels: split }`.
    func spectrogram(_ node: YAMLNode) -> SpectrogramSettings? {
        guard let fields = mapping(node, keys: Self.spectrogramKeys, what: "spectrogram") else { return nil }
        var settings = SpectrogramSettings(), ok = true
        if let v = whole(fields["width"], "spectrogram.width", 16...20_000, ok: &ok) { settings.width = v }
        if let v = whole(fields["height"], "spectrogram.height", 16...4_097, ok: &ok) { settings.height = v }
        if let n = fields["floor"] { if let v = decibels(n, what: "spectrogram.floor") { settings.floor = v } else { ok = false } }
        if let v = choice(fields["colors"], "spectrogram.colors", SoundPicture.Palette.self, ok: &ok) { settings.palette = v }
        if let v = channels(fields["channels"], "spectrogram.channels", ok: &ok) { settings.split = v }
        return ok ? settings : nil
    }

    /// `waveform: { width: 1800, height: 140, scale: linear, color: '#3A559F', background: '#FFFFFF', channels: mixed }`.
    func waveform(_ node: YAMLNode) -> WaveformSettings? {
        guard let fields = mapping(node, keys: Self.waveformKeys, what: "waveform") else { return nil }
        var settings = WaveformSettings(), ok = true
        if let v = whole(fields["width"], "waveform.width", 16...20_000, ok: &ok) { settings.width = v }
        if let v = whole(fields["height"], "waveform.height", 8...4_096, ok: &ok) { settings.height = v }
        enum Scale: String, CaseIterable { case linear, dB }
        let scale = choice(fields["scale"], "waveform.scale", Scale.self, ok: &ok) ?? .linear
        if let n = fields["floor"] {
            if scale != .dB {
                sink.error(n, "waveform.floor is the bottom of a dB scale", suggestion: "add 'scale: dB', or remove 'floor'")
                ok = false
            } else if let v = decibels(n, what: "waveform.floor") { settings.floor = v } else { ok = false }
        } else if scale == .dB {
            settings.floor = -60
        }
        for key in ["color", "background"] {
            guard let n = fields[key] else { continue }
            if let v = sheetColour(n, what: "waveform.\(key)") {
                let bytes = v.map { UInt8(max(0, min(255, $0.rounded()))) }
                if key == "color" { settings.colour = bytes } else { settings.background = bytes }
            } else { ok = false }
        }
        if let v = channels(fields["channels"], "waveform.channels", ok: &ok) { settings.split = v }
        return ok ? settings : nil
    }
}

extension SchemaReader {
    /// One picture an item: a movie becomes a poster, an animation or sprites; a sound a spectrogram
    /// or a waveform, not also a transcode. Each needs an export.
    func checkPictureStages(_ fields: [String: YAMLNode], hasExport: Bool) {
        for group in [["poster", "animation", "sprites"], ["spectrogram", "waveform", "transcode"]] {
            let present = group.filter { fields[$0] != nil }
            if present.count > 1, let node = fields[present[1]] {
                sink.error(node, "'\(present[1])' and '\(present[0])' both make the output of one item; a job makes one",
                           suggestion: "put them in two jobs")
            }
        }
        for key in ["animation", "sprites", "spectrogram", "waveform"] {
            if let node = fields[key], !hasExport {
                sink.error(node, "\(key) makes a file, but the job has no 'export'", suggestion: "add 'export: { to: out }'")
            }
        }
    }
}
