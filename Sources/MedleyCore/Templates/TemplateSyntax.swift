// The parsed form of a name template. Internal: callers only see `NameTemplate`.
// Names carry a `Template` prefix because MedleyCore is shared with other subsystems.

/// One piece of a parsed template: text copied verbatim or a placeholder filled from the item.
enum TemplateSegment: Sendable, Equatable {
    /// Literal template text, already validated at parse time (escaped braces are already unescaped).
    case literal(String)
    /// A `{…}` placeholder.
    case placeholder(TemplatePlaceholder)
}

/// A `{a|b|"literal":spec}` placeholder.
struct TemplatePlaceholder: Sendable, Equatable {
    /// Alternatives tried left to right; the first one with a value wins.
    var alternatives: [TemplateAlternative]
    /// How to format the winning value, if a spec was given.
    var format: TemplateFormat?
    /// Character offset of the opening "{", for render-time errors.
    var offset: Int
}

/// One alternative inside a placeholder.
enum TemplateAlternative: Sendable, Equatable {
    /// A property looked up on the item.
    case property(String)
    /// Literal fallback text, validated at parse time and used verbatim.
    case literal(String)
}

/// A placeholder's format spec, the part after ":".
enum TemplateFormat: Sendable, Equatable {
    /// `:0N`: integers zero-padded to `width` characters (the sign counts, as in printf).
    case zeroPad(width: Int)
    /// `:.Nf`: numbers with exactly `decimals` digits after the point.
    case fixed(decimals: Int)
    /// `:yyyy`, `:yyyy-MM-dd`, `:dd.MM.yy HH:mm`: a date's fields (EXIF "2021:05:03 10:00:00" or
    /// ISO 8601 "2021-05-03T10:00:00Z") picked out; a value that is not such a date counts as missing.
    case date([TemplateDateField])
}

/// One piece of a date format spec.
enum TemplateDateField: Sendable, Equatable {
    case year, shortYear, month, day, hour, minute, second
    /// A separator copied as it is: one of `-`, `.`, `:`, `_`, space.
    case literal(Character)
}
