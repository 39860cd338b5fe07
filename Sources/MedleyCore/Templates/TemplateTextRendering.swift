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
