import Foundation

/// A date's fields as a property gives them: EXIF's "2021:05:03 10:00:00", ISO 8601's
/// "2021-05-03", "2021-05-03T10:00:00Z" or "2021-05-03 10:00:00+02:00", or a bare year "2021".
/// Fields are taken as written (no time-zone conversion); a time that is absent is 00:00:00.
struct TemplateDate: Equatable {
    var year: Int, month = 1, day = 1, hour = 0, minute = 0, second = 0
    /// Whether the text gave more than a year (a bare year has no month or day to show).
    var hasDay = false

    init?(parsing text: String) {
        let digits = Array(text.trimmingCharacters(in: .whitespaces).unicodeScalars)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= digits.count else { return nil }
            var n = 0
            for scalar in digits[from..<(from + count)] {
                guard ("0"..."9").contains(scalar) else { return nil }
                n = n * 10 + Int(scalar.value - 48)
            }
            return n
        }
        func separator(_ at: Int, _ allowed: String) -> Bool {
            at < digits.count && allowed.unicodeScalars.contains(digits[at])
        }
        guard let year = number(0, 4) else { return nil }
        self.year = year
        if digits.count == 4 { return }
        guard separator(4, ":-"), let month = number(5, 2), separator(7, ":-"), let day = number(8, 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        (self.month, self.day, hasDay) = (month, day, true)
        if digits.count == 10 { return }
        guard separator(10, "T "), let hour = number(11, 2), separator(13, ":"), let minute = number(14, 2),
              hour <= 23, minute <= 59 else { return nil }
        (self.hour, self.minute) = (hour, minute)
        if separator(16, ":"), let second = number(17, 2), second <= 60 { self.second = second }
    }

    /// The fields the spec names, zero-padded; nil when it asks for a month or day a bare year lacks.
    func formatted(_ fields: [TemplateDateField]) -> String? {
        var out = ""
        for field in fields {
            switch field {
            case .year: out += TemplatePlaceholder.zeroPadded(year, width: 4)
            case .shortYear: out += TemplatePlaceholder.zeroPadded(year % 100, width: 2)
            case .literal(let character): out.append(character)
            default:
                guard hasDay else { return nil }
                let value: Int
                switch field {
                case .month: value = month
                case .day: value = day
                case .hour: value = hour
                case .minute: value = minute
                default: value = second
                }
                out += TemplatePlaceholder.zeroPadded(value, width: 2)
            }
        }
        return out
    }
}
