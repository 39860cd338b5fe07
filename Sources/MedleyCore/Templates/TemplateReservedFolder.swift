import Foundation

extension NameTemplate {
    /// Where the template's own text sends some item's output into `folder` at the top of the
    /// export root (Medley's `.medley`): the character offset of that text, or nil. Every way each
    /// placeholder can render is tried — empty for `{relpath}` of a top-level item, each literal
    /// fallback as written, an item's value as an opaque name — so `.medley/x`, `./.medley/x`,
    /// `{relpath}/.medley/x` and `{artist|".medley"}/x` are found, while a value that happens to
    /// spell `.medley` is left to the check made on every rendered path. Compared without case.
    public func offsetLeading(into folder: String) -> Int? {
        let opaque = "\u{1}"
        var choices: [[String]] = []
        for segment in segments {
            switch segment {
            case .literal(let text):
                choices.append([text])
            case .placeholder(let placeholder):
                var renderings: [String] = []
                for alternative in placeholder.alternatives {
                    switch alternative {
                    case .literal(let text):
                        renderings.append(text)
                    case .property(let name):
                        renderings.append(opaque)
                        if name == "relpath" { renderings.append("") }
                        continue
                    }
                    break  // a literal always renders: later alternatives are never reached
                }
                choices.append(Array(Set(renderings)))
            }
        }
        // Every combination, up to a bound that real templates stay far below.
        let total = choices.reduce(1) { $0 * max(1, $1.count) }
        guard total <= 4096 else { return nil }
        var picks = [Int](repeating: 0, count: choices.count)
        for _ in 0..<total {
            let rendered = zip(choices, picks).map { $0[$1] }.joined()
            let first = rendered.split(separator: "/", omittingEmptySubsequences: true).first { $0 != "." }
            if let first, first.lowercased() == folder.lowercased() {
                guard let range = text.range(of: folder, options: .caseInsensitive) else { return 0 }
                return text.distance(from: text.startIndex, to: range.lowerBound)
            }
            for index in picks.indices {
                picks[index] += 1
                if picks[index] < choices[index].count { break }
                picks[index] = 0
            }
        }
        return nil
    }
}
