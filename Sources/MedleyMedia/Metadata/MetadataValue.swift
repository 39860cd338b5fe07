import Foundation

/// A metadata value as `exiftool -n` gives it: numbers as numbers (rationals divided out), text as
/// stored, several values as a list; never a display string ("F4.5", "1/125 s", "Spot").
public enum MetadataValue: Sendable, Equatable {
    case text(String)
    case integer(Int)
    case number(Double)
    /// Several values: an XMP bag or sequence, repeated IPTC datasets (Keywords).
    case list([String])
}

/// One tag as exiv2 names it ("Exif.Photo.FNumber") with its value.
public struct MetadataTag: Sendable {
    /// The stored value as gexiv2 gives it (unformatted: "45/10", "48 50 50 48") and exiv2's type name.
    public struct Raw: Sendable {
        public var type: String
        public var text: String
        /// The values of an XMP array or a repeated IPTC dataset (the x-default text of a LangAlt).
        public var list: [String]?

        public init(type: String, text: String, list: [String]?) {
            self.type = type
            self.text = text
            self.list = list
        }
    }

    public let key: String
    public let raw: Raw
    /// `Exif`, `Iptc` or `Xmp`.
    public let family: MetadataFamily
    /// The middle of the key: "Photo", "GPSInfo", "Nikon3", "Application2", "dc".
    public let group: String
    /// The last part: "FNumber", "Keywords", "subject" (an XMP structure's path as exiv2 writes it).
    public let name: String

    /// The key is split once, here: every property name and value asks for its parts.
    public init(key: String, raw: Raw) {
        self.key = key
        self.raw = raw
        family = Self.family(of: key)
        let parts = key.split(separator: ".", maxSplits: 2)
        group = parts.count == 3 ? String(parts[1]) : ""
        name = parts.count == 3 ? String(parts[2]) : key
    }

    /// The family of exiv2's key.
    public static func family(of key: String) -> MetadataFamily {
        if key.hasPrefix("Iptc.") { return .iptc }
        return key.hasPrefix("Xmp.") ? .xmp : .exif
    }

    /// The value as `exiftool -n` gives it (see ``MetadataValue``).
    public var value: MetadataValue { MetadataValues.value(of: self) }
}

/// exiv2's stored values read the way `exiftool -n` reads them: integers as integers, rationals as
/// decimals, several numbers as one text separated by spaces, EXIF versions (UNDEFINED bytes that
/// are ASCII) as their text, APEX values (ApertureValue, ShutterSpeedValue) converted as exiftool's
/// ValueConv does, GPS coordinates as decimal degrees signed by their Ref (S, W and below sea level
/// negative), GPSTimeStamp as "hh:mm:ss".
public enum MetadataValues {
    /// Longer binary values are named, not listed, as `exiftool -j` does.
    static let binaryLimit = 256

    /// Rounded to 10 decimals, so that 48 + 51/60 + 27.72/3600 reads 48.8577, as exiftool prints it.
    public static func tidy(_ number: Double) -> Double { (number * 1e10).rounded() / 1e10 }

    /// Tokens of a stored numeric value ("45/10 1/3", "2 2 0 0") as numbers, or nil when one is not.
    public static func numbers(_ text: String) -> [Double]? {
        let tokens = text.split(separator: " ")
        guard !tokens.isEmpty else { return nil }
        var values: [Double] = []
        for token in tokens {
            let pair = token.split(separator: "/", omittingEmptySubsequences: false)
            if pair.count == 2 {
                guard let n = Double(pair[0]), let d = Double(pair[1]), d != 0 else { return nil }
                values.append(n / d)
            } else {
                guard let n = Double(token), n.isFinite else { return nil }
                values.append(n)
            }
        }
        return values
    }

    static func value(of tag: MetadataTag) -> MetadataValue {
        let raw = tag.raw
        switch tag.family {
        case .xmp:
            if raw.type == "LangAlt" { return .text(defaultLanguage(raw.text)) }
            if let list = raw.list {
                // A LangAlt is its x-default text; a bag or sequence a list; a simple property its text.
                if raw.type == "XmpBag" || raw.type == "XmpSeq" || list.count > 1 { return .list(list) }
            }
            return xmpValue(tag)
        case .iptc:
            if let list = raw.list, list.count > 1 { return .list(list) }
            let text = raw.list?.first ?? raw.text
            if raw.type == "Short", let number = Int(text) { return .integer(number) }
            // exiv2 writes an IPTC date "2024-05-01"; exiftool -n gives "2024:05:01", as stored.
            if raw.type == "Date", text.count == 10 { return .text(text.replacingOccurrences(of: "-", with: ":")) }
            return .text(text)
        case .exif:
            return exifValue(tag)
        }
    }

    static func exifValue(_ tag: MetadataTag) -> MetadataValue {
        let raw = tag.raw
        switch raw.type {
        case "Ascii", "String":
            // As exiftool: up to the first NUL; the fields cameras pad to a fixed size without their trailing spaces.
            let text = raw.text.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return .text(paddedNames.contains(tag.name) ? trailingSpacesDropped(text) : text)
        case "Comment":
            // exiv2 gives a UserComment with its character code ("charset=Ascii …"); exiftool the text alone.
            var text = raw.text
            if text.hasPrefix("charset="), let space = text.firstIndex(of: " ") {
                text = String(text[text.index(after: space)...])
            } else if text.hasPrefix("charset=") {
                text = ""
            }
            return .text(trailingSpacesDropped(text.trimmingCharacters(in: CharacterSet(charactersIn: "\0"))))
        case "Undefined":
            return undefined(raw.text)
        default:
            break
        }
        guard let numbers = numbers(raw.text) else { return .text(raw.text) }
        if let converted = converted(tag.name, numbers) { return converted }
        guard numbers.count == 1 else {
            if numbers.count > binaryLimit { return .text("(Binary data \(numbers.count) bytes)") }
            return .text(numbers.map { plain(tidy($0)) }.joined(separator: " "))
        }
        let isRational = raw.text.contains("/")
        if !isRational, let whole = Int(exactly: numbers[0]) { return .integer(whole) }
        return .number(tidy(numbers[0]))
    }

    /// The ASCII fields whose trailing spaces exiftool drops (its RawConv for them): cameras pad them.
    static let paddedNames: Set<String> = ["Make", "Model", "Software", "Artist", "Copyright"]

    static func trailingSpacesDropped(_ text: String) -> String {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)] == " " { end = text.index(before: end) }
        return String(text[..<end])
    }

    /// The XMP namespaces that hold EXIF's numbers as text (exif:FNumber "8/1", exif:ISOSpeedRatings
    /// "400"): read as exiftool -n reads them, a number (APEX values converted as in EXIF).
    static let numericNamespaces: Set<String> = ["exif", "tiff", "aux", "exifEX"]

    static func xmpValue(_ tag: MetadataTag) -> MetadataValue {
        let text = tag.raw.list?.count == 1 ? tag.raw.list?.first ?? tag.raw.text : tag.raw.text
        guard tag.raw.type == "XmpText", (tag.raw.list?.count ?? 1) == 1, numericNamespaces.contains(tag.group), !tag.name.contains("/"), !tag.name.contains("["),
              let numbers = numbers(text), numbers.count == 1 else { return .text(text) }
        if let converted = converted(tag.name, numbers), !tag.name.hasPrefix("GPS") { return converted }
        if !text.contains("/"), !text.contains("."), let whole = Int(exactly: numbers[0]) { return .integer(whole) }
        return .number(tidy(numbers[0]))
    }

    /// exiftool's ValueConv for the fields where `-n` still converts.
    static func converted(_ name: String, _ numbers: [Double]) -> MetadataValue? {
        switch name {
        case "ApertureValue", "MaxApertureValue":
            return numbers.count == 1 ? .number(tidy(pow(2, numbers[0] / 2))) : nil
        case "ShutterSpeedValue":
            return numbers.count == 1 ? .number(tidy(pow(2, -numbers[0]))) : nil
        case "GPSLatitude", "GPSLongitude", "GPSDestLatitude", "GPSDestLongitude":
            // Unsigned here; the Ref is applied by ``signed(_:in:)`` where the whole IFD is known.
            guard numbers.count >= 1, numbers.count <= 3 else { return nil }
            let parts = numbers + Array(repeating: 0, count: 3 - numbers.count)
            return .number(tidy(parts[0] + parts[1] / 60 + parts[2] / 3600))
        case "GPSTimeStamp":
            guard numbers.count == 3 else { return nil }
            let seconds = tidy(numbers[2])
            func two(_ value: Double) -> String {
                let text = plain(value)
                return value < 10 ? "0" + text : text
            }
            return .text("\(two(numbers[0])):\(two(numbers[1])):\(two(seconds))")
        default:
            return nil
        }
    }

    /// UNDEFINED bytes ("48 50 50 48"): one byte is a number (FileSource 3), ASCII bytes are text
    /// (ExifVersion "0220"), others numbers separated by spaces, long ones named as binary data.
    static func undefined(_ text: String) -> MetadataValue {
        let tokens = text.split(separator: " ")
        let bytes = tokens.compactMap { UInt8($0) }
        guard bytes.count == tokens.count, !bytes.isEmpty else { return .text(text) }
        if bytes.count == 1 { return .integer(Int(bytes[0])) }
        if bytes.count > binaryLimit { return .text("(Binary data \(bytes.count) bytes)") }
        var trimmed = bytes
        while trimmed.last == 0 { trimmed.removeLast() }
        if trimmed.count >= 2, trimmed.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) {
            return .text(String(decoding: trimmed, as: UTF8.self))
        }
        return .text(tokens.joined(separator: " "))
    }

    /// The x-default text of a LangAlt as exiv2 writes it whole (`lang="x-default" Pier, at dusk,
    /// lang="de" Steg`), else its first language's.
    static func defaultLanguage(_ text: String) -> String {
        let entries = text.components(separatedBy: ", lang=\"").enumerated().map { $0.offset == 0 ? $0.element : "lang=\"" + $0.element }
        let chosen = entries.first { $0.hasPrefix("lang=\"x-default\"") } ?? entries.first ?? text
        return withoutLanguage(chosen)
    }

    /// A LangAlt entry as exiv2 writes it (`lang="x-default" Hello`) without its language: "Hello".
    static func withoutLanguage(_ text: String) -> String {
        guard text.hasPrefix("lang=\""), let close = text.dropFirst(6).firstIndex(of: "\"") else { return text }
        return String(text[text.index(after: close)...].drop { $0 == " " })
    }

    /// "2.8", "3", "0.008": the shortest text of a number.
    public static func plain(_ value: Double) -> String {
        if let whole = Int(exactly: value) { return String(whole) }
        return String(value)
    }

    /// The EXIF GPS values of `tags` signed by their Ref: S and W negative, below sea level
    /// (GPSAltitudeRef 1) negative.
    public static func signedGPS(_ name: String, value: Double, ref: MetadataValue?) -> Double {
        switch (name, ref) {
        case ("GPSAltitude", .integer(1)?): return -value
        case ("GPSAltitude", _): return value
        case (_, .text(let text)?) where ["S", "W"].contains(text.trimmingCharacters(in: .whitespaces).uppercased()): return -value
        default: return value
        }
    }
}
