import Foundation
import MedleyFilters
import MedleyKernels

/// What happened to one item, as one line of the job's manifest (docs/runs.md, "Manifests": input, persistentID,
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
        case job, item, input, page, segment, status, persistentID, mediaType, output, bytes, movedTo, error, warnings, duration, metering, loudness,
             normalization, album, analysis, autoAdjust, movie, properties, finished
    }

    /// The job's name.
    var job: String
    /// The input's path below its ingest root: the key that shards' manifests merge on.
    var item: String
    /// The input's absolute path ("" for a listing failure).
    var input: String
    /// `ingest.page: all`: the page of the PDF this item is (its `item` ends in `#page=N`).
    var page: Int?
    /// `transcode.segment`: the part of the recording this item is (its `item` ends in `#segment=N`).
    var segment: Int?
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
    /// A movie re-encode's decisions (deinterlacing, black bars, HDR) and the tracks it carried.
    var movie: MovieRecord?
    /// When the item's outcome was recorded, ISO-8601 UTC to the millisecond (the report's charts
    /// over time). The one field of a line that differs between two runs of the same items; older
    /// manifests have none.
    var finished: String?

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
        page = Self.count(try? c.decodeIfPresent(Int.self, forKey: .page))
        segment = Self.count(try? c.decodeIfPresent(Int.self, forKey: .segment))
        status = try c.decode(Status.self, forKey: .status)
        persistentID = try c.decodeIfPresent(String.self, forKey: .persistentID)
        mediaType = (try? c.decodeIfPresent(String.self, forKey: .mediaType)).flatMap { $0.flatMap(MediaType.init(rawValue:)) }
        output = try c.decodeIfPresent(String.self, forKey: .output)
        bytes = (try? c.decodeIfPresent(Int64.self, forKey: .bytes)).flatMap { $0.flatMap { (0...Self.exactInteger).contains($0) ? $0 : nil } }
        movedTo = try? c.decodeIfPresent(String.self, forKey: .movedTo)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        warnings = (try? c.decodeIfPresent([String].self, forKey: .warnings)) ?? []
        duration = (try? c.decodeIfPresent(Double.self, forKey: .duration)).flatMap { $0.flatMap { (0...Self.longestDuration).contains($0) ? $0 : nil } }
        metering = try? c.decodeIfPresent(Metering.self, forKey: .metering)
        loudness = try? c.decodeIfPresent(LoudnessRecord.self, forKey: .loudness)
        normalization = try? c.decodeIfPresent(NormalizationRecord.self, forKey: .normalization)
        album = try? c.decodeIfPresent(AlbumRecord.self, forKey: .album)
        analysis = try? c.decodeIfPresent(ImageAnalysis.self, forKey: .analysis)
        autoAdjust = try? c.decodeIfPresent(AutoAdjustment.self, forKey: .autoAdjust)
        movie = try? c.decodeIfPresent(MovieRecord.self, forKey: .movie)
        finished = try? c.decodeIfPresent(String.self, forKey: .finished)
        if let values = try? c.decodeIfPresent([String: PropertyJSON].self, forKey: .properties) {
            properties = values.map { ($0.key, $0.value.value) }.sorted { $0.name < $1.name }
        }
    }

    /// The largest integer a JSON number (a Double) holds exactly: a `bytes` beyond it (which no
    /// file has) would not read back as written, so a line claiming one reads as having none.
    private static let exactInteger: Int64 = 1 << 53
    /// A billion seconds (31 years): a `duration` beyond it (or negative, or not finite) is no
    /// recording's, and its milliseconds (written rounded) would not read back as written.
    private static let longestDuration = 1e9
    /// A page or segment number as written (1 and up, within what a Double holds exactly), or none.
    private static func count(_ value: Int??) -> Int? {
        guard let number = value ?? nil, number >= 1, number <= Int(exactInteger) else { return nil }
        return number
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
        var fields: [(CodingKeys, JSONValue)] = [(.job, .string(job)), (.item, .string(item)), (.input, .string(input))]
        if let page { fields.append((.page, .number(Double(page)))) }
        if let segment { fields.append((.segment, .number(Double(segment)))) }
        fields.append((.status, .string(status.rawValue)))
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
        if let movie { fields.append((.movie, movie.json)) }
        if !properties.isEmpty {
            fields.append((.properties, .object(properties.map { ($0.name, $0.value.json) })))
        }
        if let finished { fields.append((.finished, .string(finished))) }
        return .object(fields.map { ($0.0.rawValue, $0.1) })
    }

    /// `date` (default now) as ISO-8601 UTC with milliseconds: "2026-12-02T13:40:17.125Z".
    static func timestamp(_ date: Date = Date()) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds > 0, seconds < 253_402_300_800 else { return "1970-01-01T00:00:00.000Z" }
        // To the nearest millisecond, then split (so 0.036 s is 36 ms, not 35.999…).
        let total = (seconds * 1000).rounded()
        let whole = (total / 1000).rounded(.down)
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        let milliseconds = Int(total - whole * 1000)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
    }

    /// Seconds since 1970 of a `finished` timestamp ("YYYY-MM-DDTHH:MM:SS[.fff]Z"); nil for anything else.
    static func seconds(ofTimestamp text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count <= 30, let digits = number(20..<(bytes.count - 1)) else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 21))
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        // Days from the civil date (proleptic Gregorian), so no time zone or locale is involved.
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
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

extension ManifestRecord {
    /// The record with what the step wrote: its output, size, measurements and warnings (after
    /// those the journey gathered before it).
    mutating func add(_ written: WrittenOutput) {
        output = written.output
        bytes = written.bytes
        warnings += written.warnings
        duration = written.duration
        meter = written.meter
        loudness = written.loudness
        normalization = written.normalization
        analysis = written.analysis
        autoAdjust = written.autoAdjust
        movie = written.movie
    }
}

extension ManifestRecord {
    /// The record as `outcome` leaves it: its status, and its output, size and measurements, or the
    /// reason it has none, and when it `finished` (the journey passes now). The one place an
    /// outcome becomes manifest fields.
    mutating func settle(_ outcome: ItemOutcome, finished date: Date? = nil) {
        if let date { finished = Self.timestamp(date) }
        switch outcome {
        case .written(let written):
            status = .succeeded
            add(written)
        case .skipped(let output, let reason):
            status = .skipped
            self.output = output
            error = reason.description
        case .excluded(let reason):
            status = .excluded
            error = reason.description
            output = nil
        case .ignored(let reason):
            status = .ignored
            error = reason
        case .failed(_, let reason):
            status = .failed
            error = reason
            output = nil
            bytes = nil
        }
    }
}
