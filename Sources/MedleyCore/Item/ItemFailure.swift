import MedleyMedia
import MedleyTags

/// Why one item failed: what kind of failure, the words for the summary, — when the words
/// are a library's — what Medley was doing (the path is added by the caller), and the error
/// underneath (`cause`), kept whole so a full disk or a refused permission is known by its case.
public struct ItemFailure: ClassifiedError, CustomStringConvertible {
    /// Where in the item's journey it failed, for whoever handles failures by kind.
    public enum Kind: String, Sendable {
        /// The input as listed cannot be read: it vanished, was replaced, is empty or is not media.
        case input
        /// A media library cannot read the content: undecodable, damaged, truncated.
        case decode
        /// The job cannot make this item's output: a stage it lacks, a format, rate or
        /// extension the output cannot take.
        case unsupported
        /// A resource limit: pixels, memory, open files, a system sound's length.
        case limit
        /// The output cannot be named, claimed or written.
        case output
        /// The job's stages cannot be applied to the item (a tag it needs is unreadable).
        case stage
    }

    public let kind: Kind
    public let reason: String
    /// What was being done when a library said `reason` ("cannot re-encode"), or nil.
    public let context: String?
    /// The error this failure reports (an adapter's `MediaError`, a file-system failure, the run
    /// state's), with its errno or library code; nil when Medley itself refused the item.
    public let cause: Error?

    public init(_ kind: Kind, _ reason: String, context: String? = nil, cause: Error? = nil) {
        self.kind = kind
        self.reason = reason
        self.context = context
        self.cause = cause
    }

    /// A media library's error as an item's failure: the one place its words become Medley's.
    public init(_ error: MediaError, _ kind: Kind = .decode, context: String? = nil) {
        self.init(kind, error.reason, context: context, cause: error)
    }

    /// The tag module's error as an item's failure, in its own words; its errno, when a system
    /// call failed, is kept as the cause's (so a full disk while tagging is known by its case).
    public init(_ error: TagIOError, _ kind: Kind = .decode, context: String? = nil) {
        let cause = MediaError(.medley, "read or write tags", error.reason,
                               cause: error.errno.map { .system(errno: $0) } ?? .unspecified)
        self.init(kind, error.reason, context: context, cause: cause)
    }

    /// The class of the cause (a full disk, a refused permission …), nil without one.
    public var failureClass: FailureClass? { (cause as? ClassifiedError)?.failureClass }

    /// The cause's errno, when it has one.
    public var systemErrno: Int32? { (cause as? ClassifiedError)?.systemErrno }

    public var description: String { context.map { "\($0): \(reason)" } ?? reason }

    /// Runs `body`, a media library's (or the tag module's) error becoming the item's failure (`init(_:_:context:)`).
    static func converting<T>(_ kind: Kind = .decode, context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MediaError {
            throw ItemFailure(error, kind, context: context)
        } catch let error as TagIOError {
            throw ItemFailure(error, kind, context: context)
        }
    }
}
