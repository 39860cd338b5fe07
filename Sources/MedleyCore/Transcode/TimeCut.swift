import Foundation
import MedleyKernels
import MedleyYAML

/// `cut: {from: 10s, to: 40s}` (or `duration: 30s`): the part of the item kept, by time, as
/// `sox in out trim 10 =40` and `ffmpeg -ss 10 -to 40` keep it — applied to the decoded stream
/// (after mix and resample, at the output rate), before the silence `trim` and the fades, so
/// every frame position is exact whatever the codec's packets.
public struct TimeCut: Sendable, Equatable {
    /// A point in the item: seconds from its start, or a share of its decoded length.
    public enum Position: Sendable, Equatable {
        case seconds(Double)
        /// 0…100.
        case percent(Double)
    }
    /// Where the cut ends: at a position, or a length after `from`.
    public enum End: Sendable, Equatable {
        case to(Position)
        case duration(Position)
    }

    public var from: Position = .seconds(0)
    /// nil: to the item's end.
    public var end: End?

    public init(from: Position = .seconds(0), end: End? = nil) {
        self.from = from
        self.end = end
    }

    /// Whether any position is a share of the item's length, which needs the length counted first.
    public var needsLength: Bool {
        if case .percent = from { return true }
        switch end {
        case .to(.percent)?, .duration(.percent)?: return true
        default: return false
        }
    }

    /// The frames kept, `start..<end`, of a stream at `rate` whose decoded length is `total`
    /// (needed only for percentages; nil: unknown, the end unbounded).
    public func frames(rate: Int, total: Int?) -> (start: Int, end: Int) {
        func frames(_ position: Position) -> Int {
            switch position {
            case .seconds(let seconds): return AudioEdit.frames(seconds, rate: rate)
            case .percent(let share):
                let value = (Double(total ?? 0) * share / 100).rounded()
                return value.isFinite && value > 0 ? min(Int(value), total ?? 0) : 0
            }
        }
        let start = frames(from)
        switch end {
        case nil: return (start, Int.max)
        case .to(let position)?: return (start, max(start, frames(position)))
        case .duration(let position)?:
            let length = frames(position)
            return (start, length > Int.max - start ? Int.max : start + length)
        }
    }
}

extension TimeCut {
    /// Part `number` (1 for the first) of a recording split every `every` seconds, inside `cut` when there is one:
    /// its bounds are the same multiples of `every` for the part before and the part after, so the parts join
    /// frame for frame; the last runs to the cut's end (or the item's).
    static func segment(_ part: SegmentPart, every: Double, of cut: TimeCut?) -> TimeCut {
        var origin = 0.0
        var limit: Double?
        if let cut, case .seconds(let from) = cut.from {
            origin = from
            switch cut.end {
            case .to(.seconds(let to))?: limit = to
            case .duration(.seconds(let length))?: limit = from + length
            default: break
            }
        }
        let start = origin + Double(part.number - 1) * every
        if part.isLast { return TimeCut(from: .seconds(start), end: limit.map { .to(.seconds($0)) }) }
        let end = origin + Double(part.number) * every
        return TimeCut(from: .seconds(start), end: .to(.seconds(limit.map { min($0, end) } ?? end)))
    }

    /// How many parts a recording of `length` seconds at `rate` Hz is split into (at least 1); a rest shorter
    /// than half a frame is no part.
    static func segmentCount(length: Double, rate: Int, every: Double, cut: TimeCut?) -> Int {
        var origin = 0.0, end = length
        if let cut, case .seconds(let from) = cut.from {
            origin = from
            switch cut.end {
            case .to(.seconds(let to))?: end = min(end, to)
            case .duration(.seconds(let duration))?: end = min(end, from + duration)
            default: break
            }
        }
        let parts = ((end - origin - 0.5 / Double(max(rate, 1))) / every).rounded(.up)
        guard parts.isFinite, parts >= 1 else { return 1 }
        return parts >= Double(TranscodeSettings.segmentMaximumCount) ? TranscodeSettings.segmentMaximumCount : Int(parts)
    }
}

extension TranscodeSettings {
    static let cutKeys = ["from", "to", "duration"]
    /// Positions and lengths: up to a week.
    static let cutSecondsRange = 0.0...(7 * 86400.0)

    /// `cut:`.
    static func readCut(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        guard let node = fields.nodes["cut"] else { return }
        guard case .mapping = node else {
            fields.error(node, "cut must be a mapping, like {from: 10s, to: 40s}, found \(node.kindDescription)",
                         suggestion: "give from and to (or duration): seconds (10s, 10), mm:ss.sss, hh:mm:ss or a share like 25%")
            return
        }
        guard let values = fields.mapping(node, keys: cutKeys, what: "cut") else { return }
        var cut = TimeCut()
        var readable = true
        if let value = values["from"] {
            if let position = fields.position(value, "cut.from") { cut.from = position } else { readable = false }
        }
        if values["to"] != nil, let node = values["duration"] {
            fields.error(node, "give cut.to or cut.duration, not both", suggestion: "to is where the cut ends; duration is how long it is")
            readable = false
        }
        if let value = values["to"] {
            if let position = fields.position(value, "cut.to") { cut.end = .to(position) } else { readable = false }
        } else if let value = values["duration"] {
            if let position = fields.position(value, "cut.duration") { cut.end = .duration(position) } else { readable = false }
        }
        let allKnown = TranscodeSettings.pairs(of: node)?.count == values.count
        if allKnown, values.isEmpty {
            fields.error(node, "cut needs from, to or duration", suggestion: "like {from: 10s, to: 40s}")
        } else if readable && allKnown {
            switch (cut.from, cut.end) {
            case (.seconds(let from), .to(.seconds(let to))?) where to <= from,
                 (.percent(let from), .to(.percent(let to))?) where to <= from:
                fields.error(values["to"] ?? node, "cut.to must come after cut.from",
                             suggestion: "to is a position in the item, not a length; write duration: for a length")
            case (_, .duration(.seconds(0))?), (_, .duration(.percent(0))?):
                fields.error(values["duration"] ?? node, "cut.duration of 0 keeps nothing", suggestion: "give a length, like duration: 30s")
            case (.seconds(0), nil), (.percent(0), nil):
                fields.error(node, "a cut from the start to the end keeps everything", suggestion: "remove 'cut', or give from, to or duration")
            default: break
            }
        }
        settings.cut = cut
    }

    /// The shortest part `segment.every` makes, and the most parts one recording is split into.
    static let segmentMinimum = 0.1
    static let segmentMaximumCount = 1_000_000

    /// `segment: {every: 10m}`: a recording split into numbered parts of that length (`sox … trim 0 600 :
    /// newfile : restart`, ffmpeg's segment muxer), the parts of a `cut` when there is one.
    static func readSegment(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
        guard let node = fields.nodes["segment"] else { return }
        guard case .mapping = node else {
            fields.error(node, "segment must be a mapping, like {every: 10m}, found \(node.kindDescription)",
                         suggestion: "segment: {every: 10m} splits each recording into numbered parts of 10 minutes")
            return
        }
        guard let values = fields.mapping(node, keys: ["every"], what: "segment") else { return }
        guard let every = values["every"] else {
            if TranscodeSettings.pairs(of: node)?.count == values.count {
                fields.error(node, "segment needs every", suggestion: "like {every: 10m}: the length of each part")
            }
            return
        }
        guard let position = fields.position(every, "segment.every") else { return }
        guard case .seconds(let seconds) = position else {
            fields.error(every, "segment.every is a length of time, not a share of the item",
                         suggestion: "like every: 10m, every: 30s or every: 1:30")
            return
        }
        guard seconds >= segmentMinimum else {
            fields.error(every, seconds == 0 ? "a segment length of 0 splits nothing" : "segment.every must be at least 0.1 s, not \(seconds) s",
                         suggestion: "give the length of each part, like every: 10m")
            return
        }
        if let cut = settings.cut, cut.needsLength, let cutNode = fields.nodes["cut"] {
            fields.error(cutNode, "segment splits a cut given in time, not as a share of the item",
                         suggestion: "write the cut in seconds or mm:ss (from: 1:30), or drop segment")
            return
        }
        settings.segment = seconds
    }

    /// "10", "10s", "250ms", "10m", "1.5h", "1:30", "01:02:03.250" → seconds; nil for anything else.
    static func positionSeconds(_ text: String) -> Double? {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value.contains(":") {
            let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard (2...3).contains(parts.count) else { return nil }
            var total = 0.0
            for (index, part) in parts.enumerated() {
                let last = index == parts.count - 1
                guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                      let number = Double(part), number.isFinite else { return nil }
                // Minutes and seconds after the first field are below 60, as in 1:02:03.
                if index > 0, number >= 60 { return nil }
                total = total * 60 + number
            }
            return total
        }
        for (suffix, scale) in [("ms", 0.001), ("min", 60.0), ("s", 1.0), ("m", 60.0), ("h", 3600.0)] where value.hasSuffix(suffix) {
            let body = value.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard let number = Double(body), number.isFinite else { return nil }
            return number * scale
        }
        guard let number = Double(value), number.isFinite else { return nil }
        return number
    }
}

extension TranscodeFields {
    /// A position or length in the item: seconds (`10s`, `10`, `250ms`, `2m`), `mm:ss.sss`,
    /// `hh:mm:ss`, or `25%` of its length; nil (reported) for anything else.
    func position(_ node: YAMLNode, _ what: String) -> TimeCut.Position? {
        let text = node.isNull ? nil : node.scalarText?.trimmingCharacters(in: .whitespaces)
        if let text, text.hasSuffix("%") {
            if let share = Double(text.dropLast().trimmingCharacters(in: .whitespaces)), share.isFinite, (0...100).contains(share) {
                return .percent(share)
            }
            error(node, "\(what) as a share of the item is 0% to 100%, not '\(text)'", suggestion: "like 25%")
            return nil
        }
        if let text, let seconds = TranscodeSettings.positionSeconds(text), TranscodeSettings.cutSecondsRange.contains(seconds) {
            return .seconds(seconds)
        }
        error(node, "\(what) is a time in the item, not '\(node.scalarText ?? node.kindDescription)'",
              suggestion: "seconds (10s, 10, 250ms), mm:ss.sss (1:30.5), hh:mm:ss (01:02:03) or a share (25%)")
        return nil
    }
}
