import Foundation

extension NameTemplate {
    /// Renders as a tag value rather than a path: the same placeholders, fallbacks and format specs, but
    /// values are kept as they are ("AC/DC" stays "AC/DC") and no path rules apply. Blank text counts as
    /// missing and a `.path` value is always present, as in ``render(_:)``. The result may be empty (an empty quoted fallback, `{x|""}`).
    ///
    /// - Throws: ``TemplateError`` when a placeholder has no value and no fallback.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        try joined { try $0.renderText(lookup) }
    }
}

extension TemplatePlaceholder {
    /// The formatted text of the first alternative that has a non-blank value.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        try firstValue(lookup, path: { $0 }) { text in text.allSatisfy(\.isWhitespace) ? nil : text }
    }
}

extension NameTemplate {
    /// The value itself, not its text, when the template is one placeholder with no format spec
    /// (`{albumTrackNumber}`, `{artist|albumArtist}`) whose first alternative with a value is a
    /// property: the value `renderText` would format. Nil for anything else (literals, text
    /// around the placeholder, a format spec, a `.path` value, a fallback literal, no value),
    /// which only `renderText` renders.
    func soleValue(_ lookup: (String) -> TemplateValue?) -> TemplateValue? {
        guard segments.count == 1, case .placeholder(let placeholder) = segments[0], placeholder.format == nil else { return nil }
        for alternative in placeholder.alternatives {
            guard case .property(let name) = alternative else { return nil }
            switch lookup(name) {
            case nil: continue
            case .text(let text)? where text.allSatisfy(\.isWhitespace): continue
            case .path?: return nil
            case let value?: return value
            }
        }
        return nil
    }
}
