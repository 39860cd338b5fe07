import Foundation

// The rules that keep a rendered path inside the export root. Everything works on Unicode scalars or UTF-8
// bytes, never on Characters: the filesystem sees bytes, and a "/" with a combining mark after it is a single
// Character that `split(separator: "/")` over Characters would not split, yet it is still a separator on disk.

/// Sanitises substituted values and normalises rendered paths.
enum TemplatePathRules {
    /// Longest path component most filesystems accept (ext4, APFS, NTFS all cap names near 255 bytes).
    static let maximumComponentBytes = 255
    /// Longest suffix (dot included) still treated as a file extension worth keeping when truncating; longer
    /// "extensions" are usually a sentence with a full stop in it, like "Vol. 2 Live at …".
    static let maximumExtensionBytes = 17

    /// Whether `scalar` is a C0 control character or DEL, which never belong in a file name.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    /// Whether `component` is exactly "." (compared by bytes, so look-alikes are not confused with it).
    static func isCurrentComponent(_ component: String) -> Bool {
        component.utf8.elementsEqual([0x2E])
    }

    /// Whether `component` is exactly "..", the only component that can climb out of a folder.
    static func isParentComponent(_ component: String) -> Bool {
        component.utf8.elementsEqual([0x2E, 0x2E])
    }

    /// Makes a substituted value safe as (part of) one path component.
    ///
    /// Removes control characters, turns "/" and "\" into "_", trims surrounding whitespace, and replaces a
    /// value that is exactly "." or ".." with "_". The result may be empty, which callers treat as "no value".
    static func sanitiseComponent(_ value: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where !isControl(scalar) {
            scalars.append(scalar == "/" || scalar == "\\" ? "_" : scalar)
        }
        let trimmed = String(scalars).trimmingCharacters(in: .whitespacesAndNewlines)
        if isCurrentComponent(trimmed) || isParentComponent(trimmed) { return "_" }
        return trimmed
    }

    /// Makes a `.path` value safe, keeping its "/" separators: each component is sanitised, empty components
    /// are dropped, and "." or ".." components become "_".
    static func sanitisePath(_ value: String) -> String {
        value.unicodeScalars
            .split(separator: "/", omittingEmptySubsequences: true)
            .map { sanitiseComponent(String(String.UnicodeScalarView($0))) }
            .filter { !$0.isEmpty }
            .joined(separator: "/")
    }

    /// Turns the concatenated render output into the final relative path.
    ///
    /// This is the last line of defence and holds whatever the template and values were: it splits on every
    /// "/" scalar, drops empty and "." components (they mean "this folder"), replaces ".." with "_", keeps
    /// every "/" a character of its own (see ``mergesWithSeparators``), and truncates each component to
    /// ``maximumComponentBytes``, keeping the last component's extension.
    static func normalise(_ rendered: String) -> String {
        let rawComponents = rendered.unicodeScalars
            .split(separator: "/", omittingEmptySubsequences: true)
            .map { String(String.UnicodeScalarView($0)) }
            .filter { !isCurrentComponent($0) }
        return rawComponents.enumerated().map { index, component in
            let isLast = index == rawComponents.count - 1
            let merges = mergesWithSeparators(component, followed: !isLast)
            let room = maximumComponentBytes - (merges.front ? 1 : 0) - (merges.back ? 1 : 0)
            var truncated = truncate(component, keepingExtension: isLast, limit: room)
            if merges.front { truncated = "_" + truncated }
            if merges.back { truncated += "_" }
            // Truncation cannot realistically produce "." or "..", but re-checking costs nothing.
            return isParentComponent(truncated) || isCurrentComponent(truncated) ? "_" : truncated
        }
        .joined(separator: "/")
    }

    /// Whether the "/" before a component (and, when `followed`, the one after it) would join it in one
    /// Character: a leading combining mark ("\u{0338}.." shows as "/̸..") or a trailing prepend mark. On
    /// disk the "/" still separates, but a path shown or compared as Characters reads wrong — Swift's
    /// `hasPrefix(root + "/")` is false for it. Such a component gets "_" on that side.
    static func mergesWithSeparators(_ component: String, followed: Bool) -> (front: Bool, back: Bool) {
        guard !component.isEmpty else { return (false, false) }
        return (("/" + component).first != "/", followed && (component + "/").last != "/")
    }

    /// Shortens `component` to at most `limit` UTF-8 bytes at a Character boundary, keeping a short extension
    /// (".m4a") on the end when `keepingExtension` is set and there is room for some of the name before it.
    static func truncate(_ component: String, keepingExtension: Bool, limit: Int = maximumComponentBytes) -> String {
        guard component.utf8.count > limit else { return component }
        if keepingExtension, let dot = component.lastIndex(of: "."), dot != component.startIndex {
            let fileExtension = component[dot...]
            let extensionBytes = fileExtension.utf8.count
            if extensionBytes >= 2, extensionBytes <= maximumExtensionBytes,
               !fileExtension.contains(where: { $0.isWhitespace }) {
                let stem = prefix(component[..<dot], maximumBytes: limit - extensionBytes)
                if !stem.isEmpty { return stem + fileExtension }
            }
        }
        return prefix(component[...], maximumBytes: limit)
    }

    /// The longest prefix of `text` that fits in `maximumBytes` of UTF-8, cut between Characters so that an
    /// emoji sequence or an accented letter is never split. If even the first Character is too long (a
    /// pathological stack of combining marks) the cut falls between scalars instead, which is still valid UTF-8.
    static func prefix(_ text: Substring, maximumBytes: Int) -> String {
        var bytes = 0
        var end = text.startIndex
        for character in text {
            let width = character.utf8.count
            if bytes + width > maximumBytes { break }
            bytes += width
            end = text.index(after: end)
        }
        if end != text.startIndex { return String(text[..<end]) }

        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in text.unicodeScalars {
            let width = String(scalar).utf8.count
            if bytes + width > maximumBytes { break }
            bytes += width
            scalars.append(scalar)
        }
        return String(scalars)
    }
}
