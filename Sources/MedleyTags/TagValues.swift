import Foundation

/// Conversions between MediaTags' values and the typed fields containers store, shared by
/// every container's mapping. Text is parsed only where it is text in a file (an ID3 TRCK frame,
/// a Vorbis TRACKNUMBER field) or where a value was given as text (``MediaTags/init(values:)``).
enum TagValues {
    /// "3", "3/12" or "/12" → (3, 12); non-numeric parts are nil.
    static func pair(_ text: String) -> (number: Int?, count: Int?) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ part: Substring?) -> Int? {
            guard let part else { return nil }
            return Int(part.trimmingCharacters(in: .whitespaces))
        }
        return (number(parts.first), parts.count > 1 ? number(parts[1]) : nil)
    }

    /// Stores a number/count pair read from a container; zero means "not set".
    static func store(_ pair: (number: Int?, count: Int?), into tags: inout MediaTags, number: String, count: String) {
        if let n = pair.number, n > 0 { tags.entries[number] = .integer(n) }
        if let c = pair.count, c > 0 { tags.entries[count] = .integer(c) }
    }

    /// A number field's text as read: an `integer` when the text is the number's plain decimal
    /// form (so its text is unchanged), else the text, which a writer reads as a number if it can.
    static func number(_ text: String) -> TagValue {
        if let integer = Int(text), String(integer) == text { return .integer(integer) }
        return .text(text)
    }

    /// A whole number in `range`: an integer as it is; text (given as text, or a file's number
    /// that was not plain) read as the text overload reads it; a flag or several values never.
    static func integer(_ value: TagValue?, in range: ClosedRange<Int>) -> Int? {
        switch value {
        case .integer(let integer)?: return range.contains(integer) ? integer : nil
        case .text(let text)?: return integer(text, in: range)
        case .flag?, .texts?, nil: return nil
        }
    }

    /// A flag as it is; the integer 1 or 0; text as the text overload reads it.
    static func flag(_ value: TagValue?) -> Bool? {
        switch value {
        case .flag(let flag)?: return flag
        case .integer(let integer)?: return integer == 1 ? true : integer == 0 ? false : nil
        case .text(let text)?: return flag(text)
        case .texts?, nil: return nil
        }
    }

    /// A whole number in `range`, from integer or decimal text (decimals round), else nil.
    static func integer(_ text: String?, in range: ClosedRange<Int>) -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let value = Int(text) { return range.contains(value) ? value : nil }
        // "1e300" in a tag is a number, just not one any range holds: compare before converting.
        guard let value = Double(text), value.isFinite,
              value.rounded() >= Double(range.lowerBound), value.rounded() <= Double(range.upperBound) else { return nil }
        let rounded = Int(value.rounded())
        return range.contains(rounded) ? rounded : nil
    }

    /// "1"/"true"/"yes" → true, "0"/"false"/"no" → false, anything else nil.
    static func flag(_ text: String?) -> Bool? {
        switch text?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: return nil
        }
    }

    /// Text without NULs, which every container uses as a separator or terminator.
    static func clean(_ text: String) -> String {
        text.contains("\0") ? text.replacingOccurrences(of: "\0", with: "") : text
    }

    /// The non-empty values of `tags` (empty means "no value").
    static func present(_ tags: MediaTags) -> [String: TagValue] {
        tags.entries.filter { $0.value != .text("") }
    }

    /// Genre names by ID3v1 index (also MP4 `gnre`, which counts from 1).
    static let id3v1Genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop", "Vocal", "Jazz+Funk",
        "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise",
        "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative", "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic",
        "Darkwave", "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta",
        "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave", "Psychadelic", "Rave", "Showtunes",
        "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll", "Hard Rock",
    ]

    /// Sets `mediaKind` to podcast from a genre of "Podcast" when nothing else marked the kind (docs/library.md, "Properties": mediaType).
    static func inferKind(_ tags: inout MediaTags) {
        if tags["mediaKind"] == nil, tags["genre"]?.caseInsensitiveCompare("Podcast") == .orderedSame {
            tags["mediaKind"] = "podcast"
        }
    }
}
