/// Something that went wrong while finding or reading input files. Every case names the path (or pattern) involved,
/// because the message ends up in front of a person who has to go and fix it.
public enum IngestError: Error, Equatable, CustomStringConvertible {
    /// A root given in the source does not exist (as given, glob roots included).
    case missingRoot(String)
    /// A file or folder exists but could not be read; `reason` is the system's explanation (strerror text).
    case unreadable(path: String, reason: String)
    /// A file has no bytes at all, so there is nothing to recognise.
    case empty(path: String)
    /// A glob pattern could not be understood; `reason` says what is wrong with it.
    case badPattern(String, reason: String)

    /// The path or pattern the error is about.
    public var subject: String {
        switch self {
        case .missingRoot(let root): return root
        case .unreadable(let path, _), .empty(let path): return path
        case .badPattern(let pattern, _): return pattern
        }
    }

    /// A sentence naming the path or pattern and the reason.
    public var description: String {
        switch self {
        case .missingRoot(let root):
            return "The input \"\(root)\" does not exist."
        case .unreadable(let path, let reason):
            return "Could not read \"\(path)\": \(reason)."
        case .empty(let path):
            return "The file \"\(path)\" is empty (0 bytes), so there is nothing to process."
        case .badPattern(let pattern, let reason):
            return "The pattern \"\(pattern)\" is not valid: \(reason)."
        }
    }
}
