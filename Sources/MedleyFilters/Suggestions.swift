// Did-you-mean helpers shared by name templates and the pipeline validator.

/// The Levenshtein distance between two strings: the fewest single-character insertions, deletions and
/// substitutions that turn `a` into `b`.
///
/// Characters are compared as Swift `Character`s (grapheme clusters), so an accented letter or an emoji counts
/// as one edit, which matches how a person sees the misspelling. The comparison is case-sensitive.
public func editDistance(_ a: String, _ b: String) -> Int {
    let source = Array(a)
    let target = Array(b)
    if source.isEmpty { return target.count }
    if target.isEmpty { return source.count }

    // Two rolling rows keep memory linear; the names compared here are short but the validator may pass
    // arbitrary user text.
    var previous = Array(0...target.count)
    var current = [Int](repeating: 0, count: target.count + 1)
    for (i, sourceCharacter) in source.enumerated() {
        current[0] = i + 1
        for (j, targetCharacter) in target.enumerated() {
            let substitution = previous[j] + (sourceCharacter == targetCharacter ? 0 : 1)
            let deletion = previous[j + 1] + 1
            let insertion = current[j] + 1
            current[j + 1] = min(substitution, deletion, insertion)
        }
        swap(&previous, &current)
    }
    return previous[target.count]
}

/// The candidate a misspelt `name` most likely meant, for "did you mean …?" messages.
///
/// A case-insensitive exact match wins outright (e.g. `"AlbumArtist"` → `"albumArtist"`), because a wrong
/// capitalisation is the likeliest slip even when it costs many edits. Otherwise the candidate with the smallest
/// ``editDistance(_:_:)`` (ignoring case) is returned if that distance is at most `max(2, name.count / 3)`, so longer names
/// tolerate proportionally more typos. Ties go to the alphabetically first candidate so that the answer does not
/// depend on the iteration order of a `Set`.
///
/// - Returns: The suggested candidate, or `nil` when nothing is close enough.
public func nearest(_ name: String, in candidates: some Sequence<String>) -> String? {
    let lowercasedName = name.lowercased()
    let threshold = max(2, name.count / 3)
    var caseInsensitiveMatch: String?
    var best: (candidate: String, distance: Int)?

    for candidate in candidates {
        if candidate.lowercased() == lowercasedName {
            if caseInsensitiveMatch.map({ candidate < $0 }) ?? true { caseInsensitiveMatch = candidate }
            continue
        }
        let distance = editDistance(lowercasedName, candidate.lowercased())
        guard distance <= threshold else { continue }
        if let current = best, current.distance < distance || (current.distance == distance && current.candidate <= candidate) {
            continue
        }
        best = (candidate, distance)
    }
    return caseInsensitiveMatch ?? best?.candidate
}
