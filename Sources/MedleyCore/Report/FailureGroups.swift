/// Failures grouped by reason: a reason's shape (its item's own paths, other paths, numbers and
/// temporary-file names replaced by placeholders) names the group, so 40,000 "cannot decode
/// /in/x/123.png: truncated at byte 4096" make one line with a count.
enum FailureGroups {
    struct Group: Equatable {
        var shape: String
        /// Indices of the group's items, in the order given.
        var members: [Int]
    }

    /// The shape of `reason` for an item whose own paths are `paths` (its input, output…).
    static func shape(of reason: String, paths: [String] = []) -> String {
        var text = reason
        // The item's own paths first: they may hold spaces, which the word rule below would cut.
        for path in paths.filter({ !$0.isEmpty }).sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: path, with: "PATH")
        }
        var out = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            out += placeholder(for: word)
            word = ""
        }
        for character in text {
            if character.isWhitespace || "\"'`()[]{},;".contains(character) {
                flush()
                out.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return out
    }

    /// A word of a reason as its shape spells it: a path as PATH, then each run of digits as N.
    static func placeholder(for word: String) -> String {
        // A word with a slash (or a home-relative ~/…) is a path, whatever its trailing colon.
        var core = Substring(word), tail = ""
        while let last = core.last, ":.!?".contains(last) {
            tail = String(last) + tail
            core = core.dropLast()
        }
        if core.contains("/") && core != "/" { return "PATH" + tail }
        var out = ""
        var inNumber = false
        for character in word {
            if character.isASCII, character.isNumber {
                if !inNumber { out += "N" }
                inNumber = true
            } else {
                inNumber = false
                out.append(character)
            }
        }
        return out
    }

    /// The groups of `reasons` (index, reason, the item's own paths), largest first; equal counts by shape.
    static func group(_ reasons: [(index: Int, reason: String, paths: [String])]) -> [Group] {
        var byShape: [String: [Int]] = [:]
        var order: [String] = []
        for entry in reasons {
            let key = shape(of: entry.reason, paths: entry.paths)
            if byShape[key] == nil { order.append(key) }
            byShape[key, default: []].append(entry.index)
        }
        return order.map { Group(shape: $0, members: byShape[$0] ?? []) }
            .sorted { $0.members.count != $1.members.count ? $0.members.count > $1.members.count
                      : Array($0.shape.utf8).lexicographicallyPrecedes(Array($1.shape.utf8)) }
    }
}
