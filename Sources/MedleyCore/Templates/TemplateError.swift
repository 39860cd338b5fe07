import MedleyFilters
/// A problem with a name template, found either while parsing its text or while rendering it for an item.
public struct TemplateError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, phrased for the person who wrote the template.
    public let message: String
    /// 0-based character offset in the template text where the problem is.
    ///
    /// Counted in Swift `Character`s (what an editor shows as one character), so an emoji earlier in the
    /// template moves the offset by one.
    public let offset: Int
    /// A likely fix, e.g. the nearest property name for a misspelt one; `nil` when there is no good guess.
    public let suggestion: String?

    /// Creates an error; `suggestion` is shown as "did you mean …?".
    public init(message: String, offset: Int, suggestion: String? = nil) {
        self.message = message
        self.offset = offset
        self.suggestion = suggestion
    }

    /// The message with its position and suggestion, ready to print.
    public var description: String {
        var text = "\(message) (at character \(offset))"
        if let suggestion {
            text += "; did you mean '\(suggestion)'?"
        }
        return text
    }
}
