/// A value a property supplies to a template.
///
/// Every case is sanitised before it reaches the path, so a property can never add folders or escape the export
/// root; only ``path(_:)`` keeps its "/" separators, and even then each of its components is sanitised.
public enum TemplateValue: Sendable, Equatable {
    /// Free text such as a title or an artist; "/" and "\" inside it become "_".
    case text(String)
    /// A whole number such as a track number; `{name:0N}` zero-pads it to width N.
    case integer(Int)
    /// A real number such as a duration; `{name:.Nf}` renders it with N decimals.
    case number(Double)
    /// A relative folder path whose "/" separators are kept (e.g. {relpath}); each component is still sanitised.
    ///
    /// Unlike the other cases an empty path is a present value (an item at the root of its source folder), so
    /// `"{relpath}/x.jpg"` renders `"x.jpg"` rather than falling back or failing.
    case path(String)
}
