/// Problems with the run as a whole (not with one item).
public enum RunError: Error, CustomStringConvertible {
    /// The run cannot begin: its export root is held by another run, cannot be written, or has a
    /// link planted where Medley keeps its own files. Nothing was run (exit 2).
    case cannotStart(String)
    case cannotWrite(path: String, reason: String)
    case internalError(String)

    public var description: String {
        switch self {
        case .cannotStart(let message): return message
        case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
        case .internalError(let message): return "internal error: \(message)"
        }
    }
}
