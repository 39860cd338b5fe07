import MedleyMedia

/// Why one item failed: what kind of failure, the words for the summary, and — when the words
/// are a library's — what Medley was doing (the path is added by the caller).
public struct ItemFailure: Error, CustomStringConvertible {
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

    public init(_ kind: Kind, _ reason: String, context: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.context = context
    }

    /// A media library's error as an item's failure: the one place its words become Medley's.
    public init(_ error: MediaError, _ kind: Kind = .decode, context: String? = nil) {
        self.init(kind, error.reason, context: context)
    }

    public var description: String { context.map { "\($0): \(reason)" } ?? reason }

    /// Runs `body`, a media library's error becoming the item's failure (`init(_:_:context:)`).
    static func converting<T>(_ kind: Kind = .decode, context: String? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MediaError {
            throw ItemFailure(error, kind, context: context)
        }
    }
}
