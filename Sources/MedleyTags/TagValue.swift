/// One tag's value as its container holds it, so it reaches a writer in the type it was read in
/// (a track number as a number, a compilation mark as a flag, repeated fields as their list)
/// rather than as text to be parsed again.
///
/// A track or disc "3/12" is two values, `albumTrackNumber` and `albumTrackCount`, each an
/// `integer` (the keys of ``MediaTags``); a writer that stores them as one field joins them.
public enum TagValue: Sendable, Equatable {
    /// Free text, or a number or flag whose text in the file is not a plain one (" 3", "1e300"):
    /// a writer reads it as its field's kind.
    case text(String)
    /// A whole number: track and disc numbers and counts, beats per minute.
    case integer(Int)
    /// A yes/no mark: `isCompilation`.
    case flag(Bool)
    /// Several values of one field (three ARTIST fields), in the order read; always two or more.
    case texts([String])

    /// The text a probe and the tag tests show: a number in decimal, a flag as "1" or "0",
    /// several values joined with "; ".
    public var text: String {
        switch self {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .flag(let flag): return flag ? "1" : "0"
        case .texts(let list): return list.joined(separator: "; ")
        }
    }

    /// `list` as one value: nil when empty, its text when one, else `texts`.
    public static func several(_ list: [String]) -> TagValue? {
        list.count > 1 ? .texts(list) : list.first.map(TagValue.text)
    }
}
