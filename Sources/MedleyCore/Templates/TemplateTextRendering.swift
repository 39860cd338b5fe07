import Foundation

extension NameTemplate {
    /// Renders as a tag value rather than a path: the same placeholders, fallbacks and format specs, but
    /// values are kept as they are ("AC/DC" stays "AC/DC") and no path rules apply. Blank text counts as
    /// missing and a `.path` value is always present, as in ``render(_:)``. The result may be empty (an empty quoted fallback, `{x|""}`).
    ///
    /// - Throws: ``TemplateError`` when a placeholder has no value and no fallback.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        var rendered = ""
        for segment in segments {
            switch segment {
            case .literal(let literal):
                rendered += literal
            case .placeholder(let placeholder):
                rendered += try placeholder.renderText(lookup)
            }
        }
        return rendered
    }
}

extension TemplatePlaceholder {
    /// The formatted text of the first alternative that has a non-blank value.
    func renderText(_ lookup: (String) -> TemplateValue?) throws -> String {
        for alternative in alternatives {
            switch alternative {
            case .literal(let literal):
                return literal
            case .property(let name):
                guard let value = lookup(name) else { continue }
                if case .path(let path) = value { return path }
                let text = Self.format(value, with: format)
                if !text.allSatisfy(\.isWhitespace) { return text }
            }
        }
        throw missingValueError()
    }
}
