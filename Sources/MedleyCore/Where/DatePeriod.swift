import Foundation

/// A date as `where` and `tag` read it: an ISO 8601 year, month, day or time, taken as the span of
/// time it names. "2024" is all of 2024, "2024-05" all of May 2024, "2024-05-01T10:00" that minute,
/// "2024-05-01T10:00:00Z" that second; a time with fractions of a second is an instant.
///
/// Accepted forms: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then optionally `T` (or a space) and `hh:mm`,
/// `hh:mm:ss` or `hh:mm:ss.fff`, then optionally `Z` or an offset `±hh:mm`, `±hhmm`, `±hh`.
/// A time without a zone is UTC. Parsed by hand: no formatter is built per item.
public struct DatePeriod: Sendable, Equatable {
    /// The first instant, in seconds since 1970-01-01T00:00:00Z.
    public let start: Double
    /// The first instant after the period; equal to `start` when the text names an instant.
    public let end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    /// Parses ISO 8601 text (surrounding whitespace ignored); nil when it is not one of the accepted forms
    /// or names an impossible date (month 13, 30 February, hour 24).
    public init?(iso8601 text: String) {
        var scanner = DigitScanner(Array(text.trimmingCharacters(in: .whitespaces).utf8))
        guard let year = scanner.number(digits: 4) else { return nil }
        guard !scanner.atEnd else {
            self.init(start: Self.seconds(year, 1, 1), end: Self.seconds(year + 1, 1, 1))
            return
        }
        guard scanner.take("-"), let month = scanner.number(digits: 2), (1...12).contains(month) else { return nil }
        guard !scanner.atEnd else {
            let (nextYear, nextMonth) = month == 12 ? (year + 1, 1) : (year, month + 1)
            self.init(start: Self.seconds(year, month, 1), end: Self.seconds(nextYear, nextMonth, 1))
            return
        }
        guard scanner.take("-"), let day = scanner.number(digits: 2),
              (1...Self.daysIn(month, of: year)).contains(day) else { return nil }
        let midnight = Self.seconds(year, month, day)
        guard !scanner.atEnd else {
            self.init(start: midnight, end: midnight + 86_400)
            return
        }
        guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
              let hour = scanner.number(digits: 2), hour < 24,
              scanner.take(":"), let minute = scanner.number(digits: 2), minute < 60 else { return nil }
        var time = Double(hour * 3600 + minute * 60)
        var length = 60.0
        if scanner.take(":") {
            guard let second = scanner.number(digits: 2), second < 60 else { return nil }
            time += Double(second)
            length = 1
            if scanner.take(".") || scanner.take(",") {
                guard let fraction = scanner.fraction() else { return nil }
                time += fraction
                length = 0
            }
        }
        var offset = 0
        if scanner.take("Z") || scanner.take("z") {
            offset = 0
        } else if !scanner.atEnd {
            let sign: Int
            if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
            guard let hours = scanner.number(digits: 2), hours < 24 else { return nil }
            var minutes = 0
            if !scanner.atEnd {
                _ = scanner.take(":")
                guard let m = scanner.number(digits: 2), m < 60 else { return nil }
                minutes = m
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        let start = midnight + time - Double(offset)
        self.init(start: start, end: start + length)
    }

    /// How an instant relates to this period: before it, within it, or after it.
    func place(of instant: Double) -> WhereOrder {
        if instant < start { return .less }
        if end > start ? instant < end : instant == start { return .same }
        return .greater
    }

    /// Seconds since the epoch of midnight UTC on a proleptic Gregorian date (Howard Hinnant's
    /// days-from-civil algorithm).
    static func seconds(_ year: Int, _ month: Int, _ day: Int) -> Double {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Double(era * 146_097 + dayOfEra - 719_468) * 86_400
    }

    static func daysIn(_ month: Int, of year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }
}

/// Reads fixed-width ASCII numbers and separators from the front of a byte string.
private struct DigitScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(character.value) else { return false }
        position += 1
        return true
    }

    mutating func number(digits: Int) -> Int? {
        guard position + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[position..<position + digits] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        position += digits
        return value
    }

    /// The digits after a decimal point, as a fraction of one.
    mutating func fraction() -> Double? {
        var value = 0.0, scale = 1.0
        let first = position
        while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
            scale /= 10
            value += Double(bytes[position] - 0x30) * scale
            position += 1
        }
        return position > first ? value : nil
    }
}
