import Foundation
import MedleyFilters
import MedleyKernels

/// What happened to one item, as one line of the job's manifest (SPEC §9: input, persistentID,
/// output, status, error, properties, metering, image analysis and auto-adjustment). The one type every reader of a manifest decodes
/// (`init(line:)`: merge, playlist, report, incremental runs) and every writer renders (`line`);
/// `CodingKeys` spell its fields once for both.
struct ManifestRecord: Decodable {
    /// `excluded`: media the job's media types or `where` left out (listed so that every media
    /// file of the ingest is accounted for, which `medley merge` checks). `ignored`: a file that is
    /// not media, or media of a kind the job does not take, named with the reason.
    enum Status: String, Codable { case succeeded, skipped, failed, excluded, ignored }

    /// Peak and average power per channel in dBFS to 0.01 dB (silence as −160).
    struct Metering: Decodable, Equatable {
        var peakPower: [Double]
        var averagePower: [Double]

        init(peakPower: [Double], averagePower: [Double]) {
            self.peakPower = peakPower
            self.averagePower = averagePower
        }

        /// A measurement as the manifest records it.
        init(_ meter: Meter) {
            let channels = 0..<meter.peak.count
            peakPower = channels.map { ManifestRecord.decibels(meter.peakPower(channel: $0)) }
            averagePower = channels.map { ManifestRecord.decibels(meter.averagePower(channel: $0)) }
        }
    }

    /// The manifest's field names, in the order a line lists them.
    enum CodingKeys: String, CodingKey {
        case job, item, input, status, persistentID, mediaType, output, bytes, movedTo, error, warnings, duration, metering, loudness,
             normalization, album, analysis, autoAdjust, properties
    }

    /// The job's name.
    var job: String
    /// The input's path below its ingest root: the key that shards' manifests merge on.
    var item: String
    /// The input's absolute path ("" for a listing failure).
    var input: String
    var status: Status
    /// The XXH3 hash of the input's bytes, in hex.
    var persistentID: String?
    var mediaType: MediaType?
    /// The output's path (also for a skipped item: the output it kept).
    var output: String?
    /// The size of the output written.
    var bytes: Int64?
    /// `ingest.afterwards.move`: where the input was moved once its output was in place.
    var movedTo: String?
    /// Why the item failed, was skipped, excluded or ignored.
    var error: String?
    /// What the item's output could not keep (tags its container cannot hold).
    var warnings: [String] = []
    /// Its properties after the tag stage (decoded: by name).
    var properties: [(name: String, value: TemplateValue)] = []
    /// Per-channel levels, when the job meters its audio, as the manifest records them.
    var metering: Metering?
    /// The measurement itself (not decoded: the event stream reports it unrounded); setting it
    /// sets `metering`.
    var meter: Meter? { didSet { metering = meter.map(Metering.init) } }
    /// Seconds of audio written.
    var duration: Double?
    /// `analyze: [loudness]`: the output's loudness as written (EBU R128).
    var loudness: LoudnessRecord?
    /// What a loudness normalization measured and did.
    var normalization: NormalizationRecord?
    /// Album mode: the loudness of the item's album, measured over all its tracks.
    var album: AlbumRecord?
    /// What `analyze:` measured of an image as exported (`Analyze/ImageAnalysis.swift`).
    var analysis: ImageAnalysis?
    /// The filters `autoAdjust:` chose for an image, with their parameters.
    var autoAdjust: AutoAdjustment?

    /// A record of an item just taken from the ingest.
    init(job: String, item: String, input: String, status: Status) {
        self.job = job
        self.item = item
        self.input = input
        self.status = status
    }

    /// Decodes one manifest line. Fields a line lacks take their empty value (a manifest written by
    /// hand may list only what its reader needs); a line that is not a JSON object with a known
    /// `status` throws.
    init(line: String) throws {
        self = try JSONDecoder().decode(ManifestRecord.self, from: Data(line.utf8))
    }

    /// Decodes a record (see `init(line:)`).
    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        job = try c.decodeIfPresent(String.self, forKey: .job) ?? ""
        input = try c.decodeIfPresent(String.self, forKey: .input) ?? ""
        item = try c.decodeIfPresent(String.self, forKey: .item) ?? ""
        status = try c.decode(Status.self, forKey: .status)
        persistentID = try c.decodeIfPresent(String.self, forKey: .persistentID)
        mediaType = (try? c.decodeIfPresent(String.self, forKey: .mediaType)).flatMap { $0.flatMap(MediaType.init(rawValue:)) }
        output = try c.decodeIfPresent(String.self, forKey: .output)
        bytes = try? c.decodeIfPresent(Int64.self, forKey: .bytes)
        movedTo = try? c.decodeIfPresent(String.self, forKey: .movedTo)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        warnings = (try? c.decodeIfPresent([String].self, forKey: .warnings)) ?? []
        duration = try? c.decodeIfPresent(Double.self, forKey: .duration)
        metering = try? c.decodeIfPresent(Metering.self, forKey: .metering)
        loudness = try? c.decodeIfPresent(LoudnessRecord.self, forKey: .loudness)
        normalization = try? c.decodeIfPresent(NormalizationRecord.self, forKey: .normalization)
        album = try? c.decodeIfPresent(AlbumRecord.self, forKey: .album)
        analysis = try? c.decodeIfPresent(ImageAnalysis.self, forKey: .analysis)
        autoAdjust = try? c.decodeIfPresent(AutoAdjustment.self, forKey: .autoAdjust)
        if let values = try? c.decodeIfPresent([String: PropertyJSON].self, forKey: .properties) {
            properties = values.map { ($0.key, $0.value.value) }.sorted { $0.name < $1.name }
        }
    }

    /// A property value as JSON holds it: text, or a number (an integer when it is one).
    private struct PropertyJSON: Decodable {
        let value: TemplateValue
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let text = try? c.decode(String.self) {
                value = .text(text)
            } else {
                let number = try c.decode(Double.self)
                value = number == number.rounded() && abs(number) < 1e15 ? .integer(Int(number)) : .number(number)
            }
        }
    }

    /// A property by name.
    subscript(property name: String) -> TemplateValue? { properties.first { $0.name == name }?.value }

    /// The record as one line of JSON, its fields in `CodingKeys` order. Rendered by `JSONValue`
    /// (not `JSONEncoder`) so numbers, escapes and order are exactly those of every other JSON
    /// Medley writes.
    var line: String { json.rendered() }

    /// The record as JSON, its fields in `CodingKeys` order.
    var json: JSONValue {
        var fields: [(CodingKeys, JSONValue)] = [(.job, .string(job)), (.item, .string(item)), (.input, .string(input)),
                                                 (.status, .string(status.rawValue))]
        if let persistentID { fields.append((.persistentID, .string(persistentID))) }
        if let mediaType { fields.append((.mediaType, .string(mediaType.rawValue))) }
        if let output { fields.append((.output, .string(output))) }
        if let bytes { fields.append((.bytes, .number(Double(bytes)))) }
        if let movedTo { fields.append((.movedTo, .string(movedTo))) }
        if let error { fields.append((.error, .string(error))) }
        if !warnings.isEmpty { fields.append((.warnings, .array(warnings.map { .string($0) }))) }
        if let duration { fields.append((.duration, .number((duration * 1000).rounded() / 1000))) }
        if let metering {
            fields.append((.metering, .object([
                ("peakPower", .array(metering.peakPower.map { .number($0) })),
                ("averagePower", .array(metering.averagePower.map { .number($0) })),
            ])))
        }
        if let loudness { fields.append((.loudness, loudness.json)) }
        if let normalization { fields.append((.normalization, normalization.json)) }
        if let album { fields.append((.album, album.json)) }
        if let analysis { fields.append((.analysis, analysis.json)) }
        if let autoAdjust { fields.append((.autoAdjust, autoAdjust.json)) }
        if !properties.isEmpty {
            fields.append((.properties, .object(properties.map { ($0.name, $0.value.json) })))
        }
        return .object(fields.map { ($0.0.rawValue, $0.1) })
    }

    /// dBFS to 0.01 dB; silence (−∞) as AVAudioPlayer's floor, −160.
    static func decibels(_ value: Double) -> Double {
        value.isFinite ? (value * 100).rounded() / 100 : -160
    }
}

extension TemplateValue {
    /// The value as a whole number, a real one truncated toward zero (nil for text, or a real
    /// beyond Int's range).
    var integerValue: Int? {
        switch self {
        case .integer(let n): return n
        case .number(let n): return n.magnitude < 9.2e18 ? Int(n) : nil
        case .text, .path: return nil
        }
    }

    /// The value as a real number (nil for text).
    var numberValue: Double? {
        switch self {
        case .integer(let n): return Double(n)
        case .number(let n): return n
        case .text, .path: return nil
        }
    }
}
