import MedleyKernels

/// Where `trim:` cuts and `fade:` fades one item, in frames at the output rate (after mix and
/// resample), from what the first pass found: the frames the stream decodes to and where its
/// sound starts and ends. Decoding is deterministic, so the written pass cuts and fades by these
/// absolute positions, sample-exact; nothing is held in memory but the current block.
struct AudioEdit: Equatable {
    /// The trim keeps frames `start..<end` of the decoded stream.
    var start: Int
    var end: Int
    /// Frames of fade-in and fade-out, after shortening to the trimmed length.
    var fadeIn = 0
    var fadeOut = 0
    var curve = FadeCurve.linear
    /// What the item should hear: all silence, a fade shortened.
    var warnings: [String] = []

    /// Frames left after the trim.
    var length: Int { end - start }

    /// Frames in `seconds` at `rate`, rounded to the nearest; `seconds` is validated to
    /// 0…3600 s and rates to at most 768 kHz, but a value outside saturates rather than traps.
    static func frames(_ seconds: Double, rate: Int) -> Int {
        let value = (seconds * Double(rate)).rounded()
        guard value.isFinite, value > 0 else { return 0 }
        return value < 1e15 ? Int(value) : Int(1e15)
    }

    /// The edit of a stream of `total` frames whose sound (|sample| above the trim's threshold)
    /// spans frames `first...last` (nil: none). Start cut at max(0, first − keep), end cut at
    /// min(total, last + 1 + keep). A stream with no sound at all keeps its first `keep` frames
    /// (at least one), with a warning. Fade-in and fade-out that together exceed the trimmed
    /// length are both shortened in proportion so that they meet without overlapping, with a warning.
    init(total: Int, first: Int?, last: Int?, trim: SilenceTrim?, fade: Fade?, rate: Int) {
        start = 0
        end = max(0, total)
        if let trim {
            let keep = Self.frames(trim.keep, rate: rate)
            if let first, let last {
                if trim.start { start = max(0, first - keep) }
                if trim.end { end = min(end, last + 1 + keep) }
            } else {
                end = min(end, max(keep, 1))
                warnings.append("silent throughout (no sample above \(Self.decibels(trim.silence)) dB): trimmed to its first "
                                + (keep > 0 ? "\(Self.seconds(trim.keep)) s" : "frame"))
            }
        }
        guard let fade else { return }
        curve = FadeCurve(fade.curve)
        var fadeIn = Self.frames(fade.fadeIn, rate: rate), fadeOut = Self.frames(fade.fadeOut, rate: rate)
        let length = end - start
        if fadeIn + fadeOut > length {
            let asked = "fade-in \(Self.seconds(fade.fadeIn)) s + fade-out \(Self.seconds(fade.fadeOut)) s"
            let shortenedIn = Int((Double(fadeIn) * Double(length) / Double(fadeIn + fadeOut)).rounded(.down))
            fadeOut = length - shortenedIn
            fadeIn = shortenedIn
            let seconds = Double(length) / Double(max(rate, 1))
            warnings.append("\(asked) is longer than the \(trim == nil ? "" : "trimmed ")item (\(Self.seconds(seconds)) s): "
                            + "shortened to \(Self.seconds(Double(fadeIn) / Double(max(rate, 1)))) s + "
                            + "\(Self.seconds(Double(fadeOut) / Double(max(rate, 1)))) s, meeting without overlap")
        }
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
    }

    /// The trim step, when the trim cuts anything (`total`: the frames the first pass counted).
    func trimStep(total: Int, channels: Int) -> TrimProcessor? {
        start == 0 && end >= total ? nil : TrimProcessor(start: start, end: end, channels: channels)
    }

    /// The fade step, when there is a fade.
    func fadeStep(channels: Int) -> FadeProcessor? {
        fadeIn == 0 && fadeOut == 0 ? nil
            : FadeProcessor(fadeIn: fadeIn, fadeOut: fadeOut, length: length, curve: curve, channels: channels)
    }

    /// "0.25", "2", "1.234": seconds to the millisecond, without trailing zeros.
    static func seconds(_ value: Double) -> String {
        let millis = (value * 1000).rounded()
        guard millis.isFinite, abs(millis) < 1e12 else { return "\(value)" }
        let whole = Int(millis)
        let fraction = abs(whole % 1000)
        var text = "\(whole / 1000)"
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// "-50", "-60.5": a level as written.
    static func decibels(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e6 ? "\(Int(value))" : "\(value)"
    }
}

extension FadeCurve {
    init(_ curve: Fade.Curve) {
        switch curve {
        case .linear: self = .linear
        case .log: self = .log
        case .sCurve: self = .sCurve
        }
    }
}

extension AudioStage {
    /// The edit `trim:` and `fade:` make, from the first pass; nil without either (or without a first pass).
    func edit(first: Pass?, rate: Int) -> AudioEdit? {
        guard settings.trim != nil || settings.fade != nil, let first else { return nil }
        return AudioEdit(total: first.frames, first: first.extent?.first, last: first.extent?.last,
                         trim: settings.trim, fade: settings.fade, rate: rate)
    }

    /// Whether the written pass decoded what the first pass did: a stream that decodes to a different
    /// length the second time (it should not: decoding is deterministic) would be cut or faded in
    /// the wrong places, so it is said.
    func editCheck(first: Pass?, written: Pass, steps: [AudioProcessor]) -> [String] {
        guard let first, settings.trim != nil || settings.fade != nil else { return [] }
        let decoded = steps.lazy.compactMap { $0 as? TrimProcessor }.first?.received ?? written.frames
        guard decoded != first.frames else { return [] }
        return ["the stream decoded to \(decoded) frames in the written pass but \(first.frames) in the first: "
                + "the trim and fade may be misplaced"]
    }
}
