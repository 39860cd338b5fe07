import MedleyFilters
import MedleyMedia

/// A loudness measurement as the manifest, events and report give it: LUFS, LU, dBFS and dBTP to
/// 0.01; a silent stream has no integrated loudness and no peaks (null).
struct LoudnessRecord: Codable, Equatable {
    var integrated: Double?
    var range: Double
    var samplePeak: Double?
    var truePeak: Double?

    init(integrated: Double?, range: Double, samplePeak: Double?, truePeak: Double?) {
        self.integrated = integrated
        self.range = range
        self.samplePeak = samplePeak
        self.truePeak = truePeak
    }

    init(_ measurement: LoudnessMeasurement) {
        func rounded(_ value: Double?) -> Double? { value.map { ($0 * 100).rounded() / 100 } }
        integrated = rounded(measurement.integrated)
        range = rounded(measurement.range) ?? 0
        samplePeak = rounded(measurement.samplePeakDecibels)
        truePeak = rounded(measurement.truePeakDecibels)
    }

    var json: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        return .object([("integrated", number(integrated)), ("range", .number(range)),
                        ("samplePeak", number(samplePeak)), ("truePeak", number(truePeak))])
    }
}

/// What `normalize: {loudness: …}` did to an item: the loudness it was measured at (its album's,
/// in album mode), the target it was brought to, and the gain applied.
struct NormalizationRecord: Codable, Equatable {
    /// The loudness the gain was computed from (the item's, or its album's).
    var measured: LoudnessRecord
    /// The target reached (lower than asked when the true peak would not allow it).
    var target: Double
    /// The gain applied, dB.
    var gain: Double
    /// The album's group text, in album mode.
    var album: String?
    /// The target asked for, when the one reached differs (a lowered target, an item left as it is).
    var requested: Double?
    /// The true-peak ceiling, dBTP (the peak ceiling, dBFS, for the audiobook preset).
    var ceiling: Double?
    /// Why the gain is not target − measured: "truePeak" (target lowered), "limited" (the limiter
    /// held the ceiling), "threshold", "lowerOnly", "silent".
    var note: String?
    /// Whether the true-peak limiter ran.
    var limiter: Bool?
    /// dB added to the gain to make up the loudness the limiter took off (measured in a trial pass).
    var limiterMakeUp: Double?
    /// The audiobook preset: the loudest channel's RMS before the gain (dBFS), and ACX compliance after it.
    var rms: Double?
    var audiobook: AudiobookCheck?
    /// After a lossy encode: the output decoded and measured, as delivered.
    var delivered: DeliveredLoudness?

    init(measured: LoudnessRecord, target: Double, gain: Double, album: String? = nil) {
        self.measured = measured
        self.target = target
        self.gain = gain
        self.album = album
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [("measured", measured.json), ("target", .number(target)), ("gain", .number(gain))]
        if let album { fields.append(("album", .string(album))) }
        if let requested { fields.append(("requested", .number(requested))) }
        if let ceiling { fields.append(("ceiling", .number(ceiling))) }
        if let note { fields.append(("note", .string(note))) }
        if let limiter { fields.append(("limiter", .bool(limiter))) }
        if let limiterMakeUp { fields.append(("limiterMakeUp", .number(limiterMakeUp))) }
        if let rms { fields.append(("rms", .number(rms))) }
        if let audiobook { fields.append(("audiobook", audiobook.json)) }
        if let delivered { fields.append(("delivered", delivered.json)) }
        return .object(fields)
    }
}

/// A lossy output's loudness as delivered (decoded from the file written): what platforms measure.
struct DeliveredLoudness: Codable, Equatable {
    /// Integrated loudness, LUFS, and true peak, dBTP, of the decoded output (nil: silent).
    var integrated: Double?
    var truePeak: Double?
    /// Encodes made (1 when the first met the ceiling).
    var encodes: Int
    /// dB the level was lowered by, in all, to bring the delivered true peak under the ceiling.
    var lowered: Double?

    private enum CodingKeys: String, CodingKey { case integrated, truePeak, encodes, lowered }

    init(integrated: Double?, truePeak: Double?, encodes: Int, lowered: Double?) {
        (self.integrated, self.truePeak, self.encodes, self.lowered) = (integrated, truePeak, encodes, lowered)
    }

    /// As a manifest line holds it: `encodes` a count a JSON number holds exactly, or the record does not decode.
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        integrated = try c.decodeIfPresent(Double.self, forKey: .integrated)
        truePeak = try c.decodeIfPresent(Double.self, forKey: .truePeak)
        encodes = try c.decodeExactCount(.encodes)
        lowered = try c.decodeIfPresent(Double.self, forKey: .lowered)
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = []
        fields.append(("integrated", integrated.map(JSONValue.number) ?? .null))
        fields.append(("truePeak", truePeak.map(JSONValue.number) ?? .null))
        fields.append(("encodes", .number(Double(encodes))))
        if let lowered { fields.append(("lowered", .number(lowered))) }
        return .object(fields)
    }
}

/// An album's loudness in the manifest line of each of its tracks: LUFS, dBFS and dBTP to 0.01.
struct AlbumRecord: Codable, Equatable {
    var group: String
    var integrated: Double?
    var samplePeak: Double?
    var truePeak: Double?
    var tracks: Int

    private enum CodingKeys: String, CodingKey { case group, integrated, samplePeak, truePeak, tracks }

    init(group: String, integrated: Double?, samplePeak: Double?, truePeak: Double?, tracks: Int) {
        (self.group, self.integrated, self.samplePeak, self.truePeak, self.tracks) = (group, integrated, samplePeak, truePeak, tracks)
    }

    /// As a manifest line holds it: `tracks` a count a JSON number holds exactly, or the record does not decode.
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        group = try c.decode(String.self, forKey: .group)
        integrated = try c.decodeIfPresent(Double.self, forKey: .integrated)
        samplePeak = try c.decodeIfPresent(Double.self, forKey: .samplePeak)
        truePeak = try c.decodeIfPresent(Double.self, forKey: .truePeak)
        tracks = try c.decodeExactCount(.tracks)
    }

    var json: JSONValue { .object(jsonFields) }

    /// Its fields, as the manifest and the `albumMeasured` event list them.
    var jsonFields: [(String, JSONValue)] {
        func number(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }
        return [("group", .string(group)), ("integrated", number(integrated)), ("samplePeak", number(samplePeak)),
                ("truePeak", number(truePeak)), ("tracks", .number(Double(tracks)))]
    }
}

/// ACX's audiobook requirements checked on an item as written (its measured levels plus the gain):
/// RMS −23…−18 dB, sample peak ≤ −3 dBFS, noise floor ≤ −60 dB, each per channel.
struct AudiobookCheck: Codable, Equatable {
    /// Each channel's RMS after the gain, dBFS (null: silent).
    var rms: [Double?]
    /// The highest sample after the gain, dBFS.
    var peak: Double?
    /// Each channel's quietest 500 ms window after the gain, dBFS.
    var noiseFloor: [Double?]
    var rmsOK: Bool
    var peakOK: Bool
    var noiseFloorOK: Bool

    static let rmsRange = -23.0...(-18.0)
    static let peakLimit = -3.0
    static let noiseFloorLimit = -60.0

    var warnings: [String] {
        func list(_ values: [Double?]) -> String {
            values.map { $0.map { String(format: "%.1f", $0) } ?? "silent" }.joined(separator: ", ")
        }
        var found: [String] = []
        if !rmsOK { found.append("ACX: RMS \(list(rms)) dB is outside -23…-18 dB") }
        if !peakOK, let peak { found.append(String(format: "ACX: peak %.1f dBFS is over -3 dBFS", peak)) }
        if !noiseFloorOK { found.append("ACX: noise floor \(list(noiseFloor)) dB is over -60 dB (quietest 500 ms)") }
        return found
    }

    var json: JSONValue {
        func numbers(_ values: [Double?]) -> JSONValue { .array(values.map { $0.map { .number($0) } ?? .null }) }
        return .object([("rms", numbers(rms)), ("peak", peak.map { .number($0) } ?? .null), ("noiseFloor", numbers(noiseFloor)),
                        ("rmsOK", .bool(rmsOK)), ("peakOK", .bool(peakOK)), ("noiseFloorOK", .bool(noiseFloorOK))])
    }
}

extension KeyedDecodingContainer {
    /// A count a manifest line holds: 0 … 2^53, what a JSON number (a Double) holds exactly, so the line is
    /// written back as it was read (9007199254740993 would come back as …992). Anything else throws.
    func decodeExactCount(_ key: Key) throws -> Int {
        let count = try decode(Int.self, forKey: key)
        guard count >= 0, count <= 1 << 53 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "a count beyond 0…2^53")
        }
        return count
    }

    func decodeExactCounts(_ key: Key) throws -> [Int] {
        guard let counts = try decodeExactCountsIfPresent(key) else {
            throw DecodingError.valueNotFound([Int].self, .init(codingPath: codingPath + [key], debugDescription: "no counts"))
        }
        return counts
    }

    func decodeExactCountsIfPresent(_ key: Key) throws -> [Int]? {
        guard let counts = try decodeIfPresent([Int].self, forKey: key) else { return nil }
        guard counts.allSatisfy({ $0 >= 0 && $0 <= 1 << 53 }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "a count beyond 0…2^53")
        }
        return counts
    }
}
